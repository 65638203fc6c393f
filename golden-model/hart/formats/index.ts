/** The stream formats: what the CLI and the other models import. docs/formats.md describes them. */
export { BINARY_MAGIC, BINARY_VERSION, decodeBinaryStream, encodeBinaryStream } from './binary.ts';
export { STREAM_FORMATS, type StreamFormat } from './common.ts';
export { DETECT_HEAD_BYTES, detectFormat, type ParseOptions, parseStream, serializeStream } from './detect.ts';
export { ETRACE_CSV_REQUIRED, type EtraceCsvOptions, importEtraceCsv } from './etrace-csv.ts';
export { importSpikeCsv, SPIKE_CSV_HEADER, type SpikeCsvOptions } from './spike-csv.ts';
export { decodeTextStream, encodeTextChunks, encodeTextStream, TEXT_FIRST_LINE } from './text.ts';
export {
  attachDataRows,
  type DataCsvRow,
  type DataPacking,
  ETRACE_DATA_CSV_HEADER,
  type EtraceDataCsvOptions,
  importEtraceDataCsv,
  isEtraceDataCsvHeader,
  joinEtraceDataCsv,
  writeEtraceDataCsv,
} from './etrace-data-csv.ts';
