/**
 * The N-Trace encoder's trace codec (core/block.ts TraceCodec): the MSEO byte stream of the model's
 * output FIFO (golden-model/ntrace/output.ts), its independent decoder (decoder.ts) and the
 * message framing, dump and per-TCODE counts (mseo.ts, dump.ts).
 */
import type { TraceCodec, TraceStats } from '../../core/block.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { decodeNtrace } from '../../golden-model/ntrace/decoder.ts';
import { dumpLine, ntraceStats } from '../../golden-model/ntrace/dump.ts';
import { parseNtrace, type FramingConfig, type NtraceMessage } from '../../golden-model/ntrace/mseo.ts';
import { encodeNtraceStream } from '../../golden-model/ntrace/output.ts';
import type { NtraceConfig } from '../../golden-model/ntrace/settings.ts';

/**
 * The messages of a well-formed stream. The parser reports a framing error as an item and goes on
 * (the decoder recovers at the next synchronizing message); a dump or a count of a damaged stream
 * would be silently partial, so here the first framing error is the stream's error, at its offset.
 */
function messagesOf(bytes: Uint8Array, c: FramingConfig): NtraceMessage[] {
  const items = parseNtrace(bytes, c);
  const bad = items.find((it) => it.kind === 'error');
  if (bad !== undefined) throw new RvError('bad-file', bad.message, { offset: bad.offset });
  return items as NtraceMessage[];
}

function stats(bytes: Uint8Array, c: FramingConfig): TraceStats {
  const s = ntraceStats(messagesOf(bytes, c), bytes);
  return {
    rowsAre: 'TCODE',
    rows: s.perTcode.map((t) => ({ kind: `${t.name}(${t.tcode})`, count: t.count, bytes: t.bytes })),
    otherBytes: s.idleBytes,
  };
}

export const ntraceCodec: TraceCodec<NtraceConfig> = {
  units: 'messages',
  xlen: (c) => c.xlen,
  encode(records, config, { ready }) {
    const r = encodeNtraceStream(records, config, { ...(ready ? { ready } : {}) });
    return { bytes: r.bytes, count: r.messages.length, lost: r.lost, stallCycles: r.stallCycles };
  },
  // The decoder never throws: framing errors and messages that do not fit the image are `bad-trace`
  // gaps with their offset and detail, and decoding goes on at the next synchronizing message.
  decode: (bytes, image, config) => decodeNtrace(bytes, image, config),
  dump: (bytes, config) => messagesOf(bytes, config).map(dumpLine),
  stats: (bytes, config) => stats(bytes, config),
};
