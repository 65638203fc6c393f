/** The PMU golden model: configuration, settings, CSR map, register layouts and the counter block. */
export * from './access.ts';
export * from './config.ts';
export * from './csr-map.ts';
export * from './ports.ts';
export * from './registers.ts';
export * from './settings.ts';
export * from './unit.ts';
