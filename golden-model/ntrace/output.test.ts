/**
 * The N-Trace output FIFO (output.ts): overrun -> Error + SYNC 7, stall. Directed cases with bytes
 * worked out by hand (byte = MDO << 2 | MSEO, fields LSB first, ../shared/design/ntrace.md), then
 * every round-trip configuration under back-pressure, decoded by the independent decoder and
 * judged by traceRecovery against the retired instructions themselves.
 */
import { describe, expect, it } from 'vitest';
import { cycleChance } from '../common/rng.ts';
import { resolveSettings } from '../common/settings.ts';
import { regroupIntoBlocks } from '../hart/blocks.ts';
import { emptyRecord, Itype, type RetirementRecord } from '../hart/records.ts';
import { recoveryLine, retiredAddresses, traceRecovery } from '../hart/recovery.ts';
import { generateProgramAndStream } from '../hart/stimulus/generate.ts';
import { defaultKnobs } from '../hart/stimulus/knobs.ts';
import { decodeNtrace } from './decoder.ts';
import { fieldValue, type FramingConfig, parseNtrace } from './mseo.ts';
import { encodeNtrace } from './encoder.ts';
import { encodeNtraceStream, NtraceStreamEncoder } from './output.ts';
import { defaultNtraceConfig, maxNtraceMessageBytes, NTRACE_SETTINGS, ntraceConfig, validateNtraceSettings } from './settings.ts';
import { ROUND_TRIP_CASES, type RoundTripCase, traced } from './test-fixtures/roundtrip-cases.ts';

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
function ins(addr: number, size: 2 | 4, itype: number = Itype.none, extra: Partial<RetirementRecord> = {}): RetirementRecord {
  return { ...emptyRecord(), iaddr: BigInt(addr), iretire: size / 2, ilastsize: size === 4 ? 1 : 0, itype, ...extra };
}
const JMP = Itype.otherUninferableJump;

describe('N-Trace output FIFO: directed', () => {
  const htm = defaultNtraceConfig({ mode: 'htm' });
  const noImage = { fetch: () => undefined } as never;

  /*
   * FIFO of 8 bytes; the transport takes a byte from cycle 3 on. The messages a record makes in
   * cycle c are offered to the FIFO in cycle c + 1 (latency 1, given: the rules at the shortest
   * pipeline; the RTL's is 2, checked by co-simulation), after that cycle's
   * byte left and after a pending Error message; the encoder learns that the restart is due from
   * the FIFO's state as a cycle starts (ERROR_SENT, no SYNC 7 in the stage).
   * cycle 0: c.jr at 0x100 -> ProgTraceSync(SYNC 1, I-CNT 0, F-ADDR 0x80) = 24 05 00 0b.
   * cycle 1: it enters (fill 4); c.jr at 0x200 -> IndirectBranchHist(B-TYPE 0, I-CNT 1, U-ADDR
   *   (0x200^0x100)>>1 = 0x180, HIST 1) = 70 | B-TYPE 00 + I-CNT 1 -> 000100_01 = 11 | 0x180 ->
   *   000000_00, 000110_01 = 00 19 | HIST 1 -> 000001_11 = 07: 5 bytes.
   * cycle 2: no byte leaves; 4 + 5 > 8: lost (lost 1, state LOST); c.add at 0x300 sends the
   *   pending IndirectBranchHist of the c.jr at 0x200 (U-ADDR 0x80).
   * cycle 3: a byte leaves (3); Error(ETYPE 0, ECODE 4) = 20 | ETYPE 0000 + ECODE bits 0-1 ->
   *   000000_00 = 00 | ECODE bit 2 -> 000001_11 = 07: 3 + 3 <= 8: enters (6); the IndirectBranchHist
   *   of cycle 2 is dropped (lost 2). c.add at 0x302: the encoder does not know yet: nothing to send.
   * cycle 4: 5; the restart is due: c.add at 0x304: ProgTraceSync(SYNC 7, I-CNT 0, F-ADDR 0x182) =
   *   24 | 0111 + 0 -> 000111_01 = 1d | 000010_00, 000110_11 = 08 1b.
   * cycle 5: 4; 4 + 4 <= 8: it enters (8), state NORMAL. c.add at 0x306: I-CNT 2 since the sync.
   */
  const lossy = [ins(0x100, 2, JMP), ins(0x200, 2, JMP), ins(0x300, 2), ins(0x302, 2), ins(0x304, 2), ins(0x306, 2)];

  it('a lost message: one Error as soon as it fits, then ProgTraceSync(SYNC 7) at the first traced record where it fits', () => {
    // cycle 6 (after the last record): 7; ProgTraceCorrelation(EVCODE 4, CDF 1, I-CNT 2, HIST 1) =
    // 84 | 0100 + 01 -> 010100_00 = 50 | 000010_01 = 09 | 07. cycle 7: 6; 6 + 4 > 8: lost (lost 3,
    // a second overrun). cycle 8: 5, Error enters (8); cycles 9-16 drain it.
    const r = encodeNtraceStream(lossy, htm, { fifoBytes: 8, ready: (c) => c >= 3, latency: 1 });
    expect(hex(r.bytes)).toBe('24 05 00 0b 20 00 07 24 1d 08 1b 20 00 07');
    expect(r.lost).toBe(3);
    expect(r.overruns).toBe(2);
    // The SYNC 7 fitted at its first offer; the timestamps case below and encoder.test.ts retry it.
    expect(r.syncRetries).toBe(0);
    expect(r.stallOrOverflow).toBe(true);
    expect(r.errorUnsent).toBe(false);
    expect(r.cycles).toBe(17);
    expect(r.messages.map((m) => m.name)).toEqual(['ProgTraceSync', 'Error', 'ProgTraceSync', 'Error']);
    expect(r.messages[1]!.fields).toEqual({ ETYPE: 0, ECODE: 4 });
    expect(r.messages[2]!.fields).toEqual({ SYNC: 7, 'I-CNT': 0, 'F-ADDR': 0x182n });
    const gaps = decodeNtrace(r.bytes, noImage, htm).filter((i) => i.kind === 'gap');
    expect(gaps.map((g) => (g as { reason: string }).reason)).toEqual(['trace-lost', 'trace-lost']);
  });

  it('with room for the closing message the trace ends normally after the restart', () => {
    // cycles 6, 7: c.add at 0x308, 0x30a (7, 6); cycle 8: an idle record (5); cycle 9 (end): 4,
    // ProgTraceCorrelation(EVCODE 4, CDF 1, I-CNT 4 (0x304 to 0x30a), HIST 1) = 84 50 | 000100_01 =
    // 11 | 07; cycle 10: 3, it enters. Lost: the two IndirectBranchHist messages; no SYNC 7 retry.
    const r = encodeNtraceStream([...lossy, ins(0x308, 2), ins(0x30a, 2), emptyRecord()], htm, { fifoBytes: 8, ready: (c) => c >= 3, latency: 1 });
    expect(hex(r.bytes)).toBe('24 05 00 0b 20 00 07 24 1d 08 1b 84 50 11 07');
    expect([r.lost, r.overruns, r.syncRetries]).toEqual([2, 1, 0]);
  });

  it('the trace stops before the restart: the Error message is the last message (spec, Error Message note)', () => {
    const halt: RetirementRecord = { ...emptyRecord(), halted: true };
    // cycle 1: the sync enters (4); cycle 2: the IndirectBranchHist is lost; the halt stops the
    // trace: ProgTraceCorrelation(EVCODE 0). cycle 3: the Error message enters (7), the
    // ProgTraceCorrelation is dropped (lost 2). The transport never takes a byte: cycle 3 (the
    // end of the records) and the 10 cycles of the drain limit after it.
    const r = encodeNtraceStream([ins(0x100, 2, JMP), ins(0x200, 2, JMP), halt], htm, { fifoBytes: 8, ready: () => false, drainLimit: 10, latency: 1 });
    expect(hex(r.bytes)).toBe('24 05 00 0b 20 00 07');
    expect([r.lost, r.overruns, r.cycles, r.errorUnsent]).toEqual([2, 1, 14, false]);
  });

  it('timestamps: Error TSTAMP relative to the last TSTAMP sent, for the time of the first lost message; SYNC 7 absolute', () => {
    const c = defaultNtraceConfig({ mode: 'htm', timestamp: true });
    const at = (r: RetirementRecord, time: number): RetirementRecord => ({ ...r, time: BigInt(time) });
    /*
     * Messages made in cycle c are offered in cycle c + 1 (see the lossy case above).
     * cycle 0 (time 5): ProgTraceSync(1, 0, 0x80, TSTAMP 5) = 24 05 00 | 000010_01 = 09 |
     *   000101_11 = 17. cycle 1 (7): it enters (fill 5); c.jr at 0x102, nothing yet.
     * cycle 2 (9): IndirectBranchHist(0, I-CNT 2, U-ADDR 0x180, HIST 1, TSTAMP 7 - 5 = 2) = 70 |
     *   001000_01 = 21 | 00 19 | 05 | 000010_11 = 0b: 6 bytes.
     * cycle 3: 4; 4 + 6 > 8: lost, its time is 7. c.add at 0x202 (time 20): nothing to send.
     * cycle 4: 3; Error(0, 4, TSTAMP 7 - 5 = 2) = 20 00 | 000001_01 = 05 | 0b: 4 bytes enters (7).
     *   0x204 (21): the restart is due only from cycle 5 on: nothing.
     * cycle 5: 6; 0x206 (22): ProgTraceSync(7, 0, 0x103, 22), 5 bytes. cycle 6: 5; 5 + 5 > 8:
     *   retry 1; 0x208 (23): the SYNC 7 was in the stage as the cycle started: nothing.
     * cycle 7: 4; 0x20a (time 24): ProgTraceSync(7, 0, F-ADDR 0x105 -> 000101_00, 000100_01 = 14 11,
     *   TSTAMP 24 -> 011000_11 = 63). cycle 8: 3; 3 + 5 <= 8: 24 1d 14 11 63 enters (8).
     */
    const recs = [at(ins(0x100, 2), 5), at(ins(0x102, 2, JMP), 7), at(ins(0x200, 2), 9)];
    for (let k = 0; k < 6; k++) recs.push(at(ins(0x202 + 2 * k, 2), 20 + k));
    const s = new NtraceStreamEncoder(c, { fifoBytes: 8, ready: (cy) => cy >= 3, latency: 1 });
    for (const r of recs) s.push(r);
    expect(hex(s.bytes)).toBe('24 05 00 09 17 20 00 05 0b 24 1d 14 11 63');
    expect(s.currentCycle).toBe(8);
  });

  it('stall: the hart waits, nothing is lost, the bytes are those of the lossless encoder', () => {
    const records = [ins(0x100, 2, JMP), ins(0x200, 2, JMP), ins(0x300, 2), ins(0x302, 2)];
    // Offered a cycle after they are made. cycle 0: sync. cycle 1: it enters (4); the 5-byte
    // IndirectBranchHist of 0x100. cycle 2: it does not fit: stall cycles 3, 4 (not ready), 5 (3
    // left): enters (8); the record at 0x300, held meanwhile, is handled in cycle 5:
    // IndirectBranchHist(0, 1, U-ADDR 0x80, 1), 5 bytes. cycle 6: 7: stall 7, 8, 9, 10 (3):
    // enters. End, cycle 11: 7, ProgTraceCorrelation (4 bytes). cycle 12: 6: stall 13, 14 (4):
    // enters. 3 + 4 + 2 stall cycles.
    const r = encodeNtraceStream(records, htm, { fifoBytes: 8, stall: true, ready: (c) => c >= 5, latency: 1 });
    expect(r.stallCycles).toBe(9);
    expect(r.lost).toBe(0);
    expect(r.overruns).toBe(0);
    expect(r.stallOrOverflow).toBe(true);
    expect(hex(r.bytes)).toBe(hex(encodeNtrace(records, htm).bytes));
  });

  it('stall at every latency: nothing lost, the bytes of the lossless encoder, more stall cycles as the pipeline grows', () => {
    const records = [ins(0x100, 2, JMP), ins(0x200, 2, JMP), ins(0x300, 2, JMP), ins(0x100, 2, JMP), ins(0x200, 2, JMP)];
    for (const latency of [1, 2, 3]) {
      const r = encodeNtraceStream(records, htm, { fifoBytes: 8, stall: true, ready: (c) => c >= 5, latency });
      expect([latency, r.lost, r.overruns]).toEqual([latency, 0, 0]);
      expect(hex(r.bytes)).toBe(hex(encodeNtrace(records, htm).bytes));
    }
    expect(() => encodeNtraceStream(records, htm, { latency: 0 })).toThrow(/latency 0/);
  });

  it('fifo_bytes must hold the largest message of the configuration', () => {
    // IndirectBranchHistSync: TCODE 6 + SYNC 4 + B-TYPE 2 + I-CNT 17 bits = 29 -> 5 bytes, F-ADDR 63 -> 11, HIST 32 -> 6.
    expect(maxNtraceMessageBytes(defaultNtraceConfig())).toBe(22);
    const bad = validateNtraceSettings(resolveSettings('t', NTRACE_SETTINGS, ['fifo_bytes=16']));
    expect(bad.map((e) => e.message)).toEqual(['fifo_bytes is 16 but the largest message of this configuration takes up to 22 bytes; allowed: 22..65536']);
  });

  it('with Ownership messages, fifo_bytes must hold a SYNC 7 with its Ownership message', () => {
    // RV32 BTM: IndirectBranchSync 12 + 17 bits = 29 -> 5 bytes, F-ADDR 31 -> 6 bytes: 11. Ownership:
    // TCODE 6 + PROCESS (32-bit CONTEXT + 5) = 43 bits -> 8 bytes. Together 19.
    const sets = ['xlen=32', 'ntrace_mode=btm', 'ownership=1', 'context_width=32'];
    expect(validateNtraceSettings(resolveSettings('t', NTRACE_SETTINGS, [...sets, 'fifo_bytes=19']))).toEqual([]);
    const bad = validateNtraceSettings(resolveSettings('t', NTRACE_SETTINGS, [...sets, 'fifo_bytes=18']));
    expect(bad.map((e) => e.message)).toEqual(['fifo_bytes is 18 but a restart (SYNC 7) with its Ownership message takes up to 19 bytes; allowed: 19..65536']);
  });
});

const PRESSURE = [0, 0.05, 0.2, 0.4, 0.6];
/** Minimum recovered fraction per back-pressure (a loss costs the instructions up to the next traced record after the Error). */
const FLOOR: Record<number, number> = { 0: 0.9, 0.05: 0.9, 0.2: 0.5, 0.4: 0.2, 0.6: 0.05 };

function setup(c: RoundTripCase, seed: number, extra: string[] = []) {
  const settings = resolveSettings('test', NTRACE_SETTINGS, [...c.sets, ...extra]);
  expect(validateNtraceSettings(settings)).toEqual([]);
  const config = ntraceConfig(settings);
  const { stream } = generateProgramAndStream({ ...defaultKnobs(), ...c.knobs }, seed, 20_000);
  const records = c.blocks ? regroupIntoBlocks(stream.records, { retires_p: c.blocks, taken_branches_p: 2 }) : stream.records;
  return { config, stream, records, retired: retiredAddresses(stream.records, stream.image, traced) };
}

/** Error messages, SYNC 7 messages, and either of them out of place (an Error not followed by SYNC 7 or the end, a SYNC 7 not right after an Error). */
function errorsAndRestarts(bytes: Uint8Array, c: FramingConfig): { errors: number; restarts: number; misplaced: number } {
  const msgs = parseNtrace(bytes, c);
  let errors = 0;
  let restarts = 0;
  let misplaced = 0;
  msgs.forEach((m, i) => {
    if (m.kind !== 'message') return;
    const prev = msgs[i - 1];
    const next = msgs[i + 1];
    if (m.tcode === 8) {
      errors++;
      if (next !== undefined && !(next.kind === 'message' && fieldValue(next, 'SYNC') === 7n)) misplaced++;
    }
    if (fieldValue(m, 'SYNC') === 7n) {
      restarts++;
      if (!(prev?.kind === 'message' && prev.tcode === 8)) misplaced++;
    }
  });
  return { errors, restarts, misplaced };
}

function lastIsError(bytes: Uint8Array, c: FramingConfig): boolean {
  const msgs = parseNtrace(bytes, c);
  const last = msgs[msgs.length - 1];
  return last?.kind === 'message' && last.tcode === 8;
}

describe('N-Trace output FIFO: back-pressure round trip (independent decoder, traceRecovery)', () => {
  it.each(ROUND_TRIP_CASES)('$name: every decoded run is in the retired sequence; one Error per overrun; recovered fraction printed', (c) => {
    const lines: string[] = [];
    for (const seed of [11, 12]) {
      const { config, stream, records, retired } = setup(c, seed);
      // The default FIFO, and the smallest one the configuration allows (its largest message).
      for (const [fifo, p] of PRESSURE.flatMap((q) => [[config.fifoBytes, q] as const, [maxNtraceMessageBytes(config), q] as const])) {
        const tight = fifo < config.fifoBytes;
        const r = encodeNtraceStream(records, config, { ready: (cycle) => !cycleChance(seed, cycle, p), messages: false, fifoBytes: fifo });
        const items = decodeNtrace(r.bytes, stream.image, config);
        const rec = traceRecovery(items, retired);
        const where = `${c.name} seed ${seed} FIFO ${fifo} back-pressure ${p}: ${recoveryLine(rec)}; ${r.lost} messages lost, ${r.overruns} overruns, ${r.syncRetries} SYNC 7 retries`;
        lines.push(`  FIFO ${String(fifo).padStart(2)} p=${p.toFixed(2)} seed ${seed}: ${((100 * rec.recovered) / rec.retired).toFixed(1)} % recovered, ${r.lost} lost, ${r.overruns} overruns, ${r.syncRetries} retries, ${r.bytes.length} bytes`);
        expect(rec.wrongRun, where).toBeUndefined();
        expect(r.errorUnsent, where).toBe(false);
        // Every overrun is reported by exactly one Error message, followed at once by SYNC 7 (or
        // nothing: the trace never restarted), and every SYNC 7 comes right after an Error.
        expect(errorsAndRestarts(r.bytes, config), where).toEqual({ errors: r.overruns, restarts: r.overruns - (r.errorUnsent ? 0 : lastIsError(r.bytes, config) ? 1 : 0), misplaced: 0 });
        expect(r.overruns <= r.lost, where).toBe(true);
        // The decoder shows a trace-lost gap for each (unless a gap is already open: trace off).
        expect(rec.losses <= r.overruns, where).toBe(true);
        expect(rec.recovered / rec.retired, where).toBeGreaterThan(tight ? FLOOR[p]! / 2 : FLOOR[p]!);
        if (r.lost === 0) expect(Array.from(r.bytes), where).toEqual(Array.from(encodeNtrace(records, config).bytes));
      }
    }
    console.log(`${c.name}\n${lines.join('\n')}`);
  });

  it.each(ROUND_TRIP_CASES)('$name with stall_enable: nothing lost, everything recovered, the bytes of the lossless encoder', (c) => {
    for (const seed of [11, 12]) {
      const { config, stream, records, retired } = setup(c, seed, ['stall_enable=1']);
      // The smallest FIFO, ready one cycle in five: slower than the trace, so the hart must wait.
      const fifoBytes = maxNtraceMessageBytes(config);
      const r = encodeNtraceStream(records, config, { ready: (cycle) => !cycleChance(seed, cycle, 0.8), messages: false, fifoBytes });
      const where = `${c.name} seed ${seed}`;
      expect(r.lost, where).toBe(0);
      expect(r.overruns, where).toBe(0);
      expect(r.stallCycles, where).toBeGreaterThan(0);
      expect(Array.from(r.bytes), where).toEqual(Array.from(encodeNtrace(records, config).bytes));
      const rec = traceRecovery(decodeNtrace(r.bytes, stream.image, config), retired);
      expect(rec.wrongRun, where).toBeUndefined();
      expect(rec.losses, where).toBe(0);
      // As lossless as the round trip without FIFO (halts, resets and trace-off cost a little).
      expect(rec.recovered / rec.retired, `${where}: ${recoveryLine(rec)}`).toBeGreaterThan(0.98);
    }
  });
});
