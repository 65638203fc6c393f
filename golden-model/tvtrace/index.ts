/**
 * The tandem-verification trace block's model: records, settings, protocol numbers, the encoder
 * and the record formats. docs/tvtrace-model.md describes all of it.
 */
export * from './records.ts';
export * from './settings.ts';
export * from './protocol.ts';
export { encodeTvRecords, TvEncoder, type TvEncoderStart } from './encoder.ts';
export * from './formats/index.ts';
