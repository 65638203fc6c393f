/** The te_inst packet layer: parameters, field tables, packing, encapsulation and dumps. */
export * from './params.ts';
export * from './fields.ts';
export * from './pack.ts';
export * from './encapsulate.ts';
export * from './dump.ts';
