/**
 * The APB side of the N-Trace co-simulation (tb/ntrace/apb.ts): the register writes of a run
 * change the trace (trTeInstTracing written 0 ends it with ProgTraceCorrelation EVCODE 4, written 1
 * restarts it with ProgTraceSync SYNC 5, trTeEnable written 0 ends it for good), the RTL agrees
 * byte for byte and access for access, and a copy of the RTL with a register fault is caught: a
 * wrong constant (the prologue's read-back), a trace-on write that is not passed on as a trigger
 * (the bytes), a write-1-to-clear that does not clear (the epilogue's read-back after losses).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import { generateStimulus } from '../../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs } from '../../golden-model/hart/stimulus/knobs.ts';
import { EVCODE, SYNC } from '../../golden-model/ntrace/messages.ts';
import { NTRACE_SETTINGS, ntraceConfig } from '../../golden-model/ntrace/settings.ts';
import { renderNtraceRtl } from '../../generator/ntrace/rtl.ts';
import type { BuiltModel } from '../build.ts';
import { buildNtraceModel, cosimNtrace } from './cosim.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-ntrace-apb-'));

/** A Verilator model of a configuration, with `edit` applied to ntrace_apb_regs.sv. */
function model(label: string, sets: string[], edit?: (text: string) => string): BuiltModel {
  const settings = resolveSettings('test', NTRACE_SETTINGS, sets);
  const c = ntraceConfig(settings);
  const out = join(dir, label);
  mkdirSync(out, { recursive: true });
  const files = renderNtraceRtl(c, settings, { component: 'ntrace', inputHash: 'test', sets });
  for (const f of files) {
    const text = f.name === 'ntrace_apb_regs.sv' && edit ? edit(f.content) : f.content;
    if (edit && f.name === 'ntrace_apb_regs.sv') expect(text, 'the fault is in the file').not.toBe(f.content);
    writeFileSync(join(out, f.name), text);
  }
  return buildNtraceModel(c, files.map((f) => join(out, f.name)));
}

const configOf = (sets: string[]) => ntraceConfig(resolveSettings('test', NTRACE_SETTINGS, sets));
const records = (n: number, seed = 1) => generateStimulus({ ...defaultKnobs(), trace_on_rate: 0, trace_off_rate: 0, halt_rate: 0, reset_rate: 0 }, seed, n).records;

describe('N-Trace co-simulation: register writes change the trace, RTL and model alike', () => {
  it('HTM: trTeInstTracing off at 30%, on at 50%, trTeEnable off at 90%; every access compared', async () => {
    const sets: string[] = [];
    const c = configOf(sets);
    const r = await cosimNtrace(model('htm', sets), c, records(4000));
    expect(r.mismatch).toBeUndefined();
    // 10 registers read at the start, 7 mid-run reads, 3 mid-run writes, the 10 read again and 14 more accesses at the end.
    expect(r.apbAccesses).toBe(10 + 7 + 3 + 10 + 14);
    const ms = r.expected.messages;
    const corr = ms.filter((m) => m.name === 'ProgTraceCorrelation' && Number(m.fields.EVCODE) === EVCODE.traceDisabled);
    const syncs = ms.filter((m) => m.name === 'ProgTraceSync').map((m) => Number(m.fields.SYNC));
    // Without trace triggers from the hart, only the writes stop and start the trace: off at 30%,
    // on at 50%, off at 90% (the end record's trace-off then finds the trace off).
    expect(corr.length).toBe(2);
    expect(syncs.filter((s) => s === SYNC.traceEnable).length).toBe(1);
    expect(syncs[0]).toBe(SYNC.reset);
  }, 300_000);
});

describe('N-Trace co-simulation catches register faults', () => {
  it('a wrong trTeInstMode constant: the first read of trTeControl differs', async () => {
    const sets: string[] = [];
    const m = model('bad-mode', sets, (t) => t.replace("rdata[6:4] = 3'h6;", "rdata[6:4] = 3'h3;"));
    const r = await cosimNtrace(m, configOf(sets), records(300));
    expect(r.mismatch).toMatch(/^identical bytes, but a register access differs: APB access 0, read of 0x000 in frame 1 .*RTL prdata 0x0100083f pslverr 0, model 0x0100086f pslverr 0$/);
  }, 300_000);

  it('a trTeInstTracing write of 1 not passed on: the bytes differ where the trace restarts', async () => {
    const sets: string[] = [];
    const m = model('no-on', sets, (t) => t.replace('req_on   = want & ~tracing_q;', "req_on   = 1'b0;"));
    const r = await cosimNtrace(m, configOf(sets), records(2000));
    expect(r.mismatch).toMatch(/^first difference at byte \d+ .*\n[\s\S]*ProgTraceSync SYNC=5/);
  }, 300_000);

  it('a write of 1 that does not clear trTeInstStallOrOverflow: the epilogue read differs (a lossy run)', async () => {
    const sets = ['fifo_bytes=22'];
    const m = model('no-w1c', sets, (t) => t.replace('if (status_clear) stall_or_overflow_d = 1\'b0;', ''));
    const r = await cosimNtrace(m, configOf(sets), records(2000), { seed: 3, backpressure: 0.6 });
    expect(r.expected.lost).toBeGreaterThan(0);
    expect(r.expected.stallOrOverflow).toBe(true);
    expect(r.mismatch).toMatch(/^identical bytes, but a register access differs: APB access \d+, read of 0x000 .*RTL prdata 0x[0-9a-f]{4}1[0-9a-f]{3} pslverr 0, model 0x[0-9a-f]{4}0[0-9a-f]{3}/);
  }, 300_000);
});
