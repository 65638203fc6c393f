/**
 * The tandem-verification trace's codec (core/block.ts TraceCodec), for `rvtrace encode`, `decode`
 * and `dump` with a tvtrace component:
 * - encode (`encodeFile`): TV records (golden-model/tvtrace/formats: text, bin, bluespec-tv) through
 *   the model's encoder; with --backpressure the stall cycles of the generated encoder's FIFO
 *   (timing.ts: records offered back to back; nothing is ever lost);
 * - decode (`decodeFile`): the independent decoder (golden-model/tvtrace-decoder) and the groups as
 *   TV records in the text format (records-of.ts), which encode reads back;
 * - dump: one dumpTv line per group; stats: groups and bytes per group kind.
 * A stream the decoder cannot read is an RvError at its byte offset.
 */
import type { TraceCodec, TraceStats } from '../../core/block.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { TvEncoder } from '../../golden-model/tvtrace/encoder.ts';
import { parseTvRecords, TV_RECORD_FORMATS, type TvRecordFormat } from '../../golden-model/tvtrace/formats/index.ts';
import { formatTvRecord, TEXT_FIRST_LINE } from '../../golden-model/tvtrace/formats/text.ts';
import type { TvRecord } from '../../golden-model/tvtrace/records.ts';
import type { TvtraceConfig, TvtraceRtlConfig } from '../../golden-model/tvtrace/settings.ts';
import { decodeTv, type TvGroupChanges, type TvParams } from '../../golden-model/tvtrace-decoder/decoder.ts';
import { groupLine } from '../../golden-model/tvtrace-decoder/dump.ts';
import { type RecordOf, recordOfGroup, recordsOfUngrouped } from './records-of.ts';
import { tvFifoTiming } from './timing.ts';

export const tvParams = (c: TvtraceConfig): TvParams => ({ xlen: c.xlen, flen: c.flen, mlen: c.mlen, ilen: c.ilen });

/** The groups of a well-formed stream; the first decoding error is the stream's error, at its offset. */
export function tvGroupsOf(bytes: Uint8Array, c: TvtraceConfig): TvGroupChanges[] {
  const d = decodeTv(bytes, tvParams(c));
  if (d.error) throw d.error;
  return d.groups;
}

/** What encoding records gives: the stream, each record's length, the groups and the retired instructions. */
export function encodeTvStream(records: readonly TvRecord[], c: TvtraceConfig): { bytes: Uint8Array; lengths: number[]; groups: number; instructions: number } {
  const enc = new TvEncoder(c);
  const lengths: number[] = [];
  let groups = 0;
  let instructions = 0;
  let ungrouped = false;
  let before = 0;
  for (const r of records) {
    enc.encode(r);
    const now = enc.bytes().length;
    const n = now - before;
    before = now;
    lengths.push(n);
    // A run of unobserved records is one ungrouped run of the stream (what the decoder and the dump see).
    if (r.kind === 'unobserved') {
      if (n > 0 && !ungrouped) groups++;
      if (n > 0) ungrouped = true;
    } else {
      groups++;
      ungrouped = false;
    }
    if ((r.kind === 'instruction' && r.instr !== undefined) || r.kind === 'xret') instructions++;
  }
  return { bytes: enc.bytes(), lengths, groups, instructions };
}

function readRecords(input: { bytes: Uint8Array; file: string; format?: string }): TvRecord[] {
  if (input.format !== undefined && !(TV_RECORD_FORMATS as readonly string[]).includes(input.format)) {
    throw new RvError('bad-option', `--in-format ${input.format}: the tvtrace encoder reads TV records: expected one of ${TV_RECORD_FORMATS.join(', ')}`);
  }
  return parseTvRecords(input.bytes, input.file, input.format as TvRecordFormat | undefined);
}

/** The decoded groups as TV records in the text format, with a comment line for each group that is none. */
export function decodedRecordsText(bytes: Uint8Array, c: TvtraceConfig): { text: string; records: TvRecord[] } {
  const lines = [TEXT_FIRST_LINE];
  const records: TvRecord[] = [];
  for (const g of tvGroupsOf(bytes, c)) {
    const of: RecordOf[] = g.grouped ? [recordOfGroup(g, c.xlen)] : recordsOfUngrouped(g, c.xlen);
    for (const x of of) {
      if ('record' in x) {
        lines.push(formatTvRecord(x.record, records.length));
        records.push(x.record);
      } else {
        lines.push(`# ${groupLine(g)}: not a TV record: ${x.why}`);
      }
    }
  }
  return { text: `${lines.join('\n')}\n`, records };
}

function stats(bytes: Uint8Array, c: TvtraceConfig): TraceStats {
  const groups = tvGroupsOf(bytes, c);
  const rows = new Map<string, { count: number; bytes: number }>();
  groups.forEach((g, i) => {
    const kind = g.grouped ? g.kind : `${g.kind} (ungrouped)`;
    const end = groups[i + 1]?.offset ?? bytes.length;
    const row = rows.get(kind) ?? { count: 0, bytes: 0 };
    row.count++;
    row.bytes += end - g.offset;
    rows.set(kind, row);
  });
  const order = ['instruction', 'trap', 'interrupt', 'xret', 'debug-write', 'reset', 'state', 'empty'];
  const rank = (k: string): number => order.indexOf(k.split(' ')[0]!) * 2 + (k.includes('ungrouped') ? 1 : 0);
  return {
    rowsAre: 'group kind',
    rows: [...rows.entries()].sort((a, b) => rank(a[0]) - rank(b[0])).map(([kind, r]) => ({ kind, count: r.count, bytes: r.bytes })),
    otherBytes: 0,
  };
}

export const tvtraceCodec: TraceCodec<TvtraceRtlConfig> = {
  units: 'groups',
  xlen: (c) => c.xlen,
  encode() {
    throw new RvError('bad-option', 'the tandem-verification trace encoder takes TV records (text, bin, bluespec-tv), not a retirement stream');
  },
  encodeFile(input, config, { ready }) {
    const records = readRecords(input);
    let s;
    try {
      s = encodeTvStream(records, config);
    } catch (e) {
      throw e instanceof RvError && e.location.file === undefined ? e.inFile(input.file) : e;
    }
    const stallCycles = ready ? tvFifoTiming(s.lengths, config, ready).stalls : 0;
    return { bytes: s.bytes, count: s.groups, lost: 0, stallCycles, instructions: s.instructions };
  },
  decode() {
    throw new RvError('bad-option', 'the tandem-verification trace decodes without a program image');
  },
  decodeFile(bytes, config) {
    const d = decodedRecordsText(bytes, config);
    return { text: d.text, count: d.records.length, units: 'records' };
  },
  dump: (bytes, config) => tvGroupsOf(bytes, config).map(groupLine),
  stats: (bytes, config) => stats(bytes, config),
};
