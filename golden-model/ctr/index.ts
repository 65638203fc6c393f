/** The CTR golden model: configuration, register map, cycle-count coding and the unit. */
export * from './config.ts';
export * from './cycle-count.ts';
export * from './registers.ts';
export * from './unit.ts';
export * from './entry.ts';
