/**
 * The generated tandem-verification trace RTL: deterministic to the byte; tvtrace_top has exactly
 * the ports of the port contract; the slot layout's longest record is the model's longest record
 * (maxTvRecordBytes, and an instruction record with every field as the encoder writes it); Verilator
 * lint with and without --assert reports nothing and Icarus elaborates it for configurations beyond
 * the shipped ones (RV32 with F or D, RV64 with F, every beat width, a FIFO of the longest record,
 * the seed field order);
 * a FIFO smaller than the longest record is refused. (Yosys and the
 * shipped components are blocks/gates.test.ts's.)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../golden-model/common/settings.ts';
import { encodeTvRecords } from '../../golden-model/tvtrace/encoder.ts';
import { maxTvRecordBytes, TVTRACE_BLOCK_SETTINGS, tvtraceRtlConfig, type TvtraceRtlConfig, validateTvtraceRtlSettings } from '../../golden-model/tvtrace/settings.ts';
import { renderWaivers } from '../waivers.ts';
import { TVTRACE_TOP_MODULE, tvtracePorts } from './ports.ts';
import { renderTvtraceRtl, tvSlotLayout, tvtraceLintWaivers, tvtraceRtlFiles } from './rtl.ts';

const CONFIGS: Record<string, string[]> = {
  rv64d: [],
  'rv64d-byte': ['out_bytes=1'],
  'rv64f-2': ['flen=32', 'out_bytes=2'],
  'rv32imc-sv32': ['xlen=32', 'flen=0', 'mlen=34', 'out_bytes=4', 'fifo_bytes=128'],
  'rv32f-smallest-fifo': ['xlen=32', 'flen=32', 'mlen=32', 'fifo_bytes=121'],
  'rv32d-sv32-8': ['xlen=32', 'flen=64', 'mlen=34', 'out_bytes=8', 'fifo_bytes=1024'],
  // The seed's field order: the decoder's pc and fcsr in tvtrace_seed_state.
  'rv64d-seed': ['field_order=seed'],
  'rv32imc-sv32-seed-byte': ['xlen=32', 'flen=0', 'mlen=34', 'field_order=seed', 'out_bytes=1'],
};
const NAMES = Object.keys(CONFIGS);
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-tvtrace-rtl-'));

function settingsOf(sets: readonly string[]) {
  return resolveSettings('test', TVTRACE_BLOCK_SETTINGS, sets);
}

function render(name: string): { c: TvtraceRtlConfig; files: { name: string; content: string }[] } {
  const sets = CONFIGS[name]!;
  const s = settingsOf(sets);
  expect(validateTvtraceRtlSettings(s).map((e) => e.oneLine())).toEqual([]);
  const c = tvtraceRtlConfig(s);
  const provenance = { component: 'tvtrace', inputHash: 'test', sets };
  return { c, files: [...renderTvtraceRtl(c, s, provenance), renderWaivers('tvtrace.vlt', tvtraceLintWaivers(), provenance)] };
}

function run(cmd: string, args: string[], cwd: string): { status: number; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return { status: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

describe('tvtrace RTL generation', () => {
  it.each(NAMES)('%s: deterministic, and tvtrace_top declares exactly the contract ports', (name) => {
    const a = render(name);
    expect(render(name).files).toEqual(a.files);
    expect(a.files.map((f) => f.name)).toEqual([...tvtraceRtlFiles(a.c), 'tvtrace.vlt']);
    expect(a.files.some((f) => f.name === 'tvtrace_seed_state.sv')).toBe(a.c.fieldOrder === 'seed');
    const top = a.files.find((f) => f.name === `${TVTRACE_TOP_MODULE}.sv`)!.content;
    const declared = [...top.matchAll(/^\s*(input|output)\s+logic\s*(\[(\d+):0\])?\s+(\w+)/gm)].map((m) => [m[4], m[1] === 'input' ? 'in' : 'out', m[3] === undefined ? 1 : Number(m[3]) + 1]);
    expect(declared).toEqual(tvtracePorts(a.c).map((p) => [p.name, p.direction, p.width]));
    for (const f of a.files) expect(f.content).not.toMatch(/\{\{|\}\}|undefined|NaN(?!-boxed)/);
  });

  it.each(NAMES)('%s: verilator --lint-only -Wall (with and without --assert) reports nothing; iverilog elaborates it', (name) => {
    const out = join(dir, name);
    mkdirSync(out, { recursive: true });
    const { c, files } = render(name);
    for (const f of files) writeFileSync(join(out, f.name), f.content);
    const sv = tvtraceRtlFiles(c);
    for (const extra of [[], ['--assert']]) {
      const r = run('verilator', ['--lint-only', '-Wall', ...extra, '--top-module', TVTRACE_TOP_MODULE, 'tvtrace.vlt', ...sv], out);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    }
    const ivl = run('iverilog', ['-g2012', '-o', 'top.vvp', '-s', TVTRACE_TOP_MODULE, ...sv], out);
    expect(ivl.status, ivl.out).toBe(0);
  }, 60_000);

  it.each(NAMES)('%s: the longest record of the slots is the model\'s, and an instruction with every field is that long', (name) => {
    const { c } = render(name);
    const longest = maxTvRecordBytes(c);
    expect(tvSlotLayout(c).recordBytes).toBe(longest);
    const ones = (bits: number): bigint => (1n << BigInt(bits)) - 1n;
    const bytes = encodeTvRecords(
      [
        {
          kind: 'instruction',
          nextPc: ones(c.xlen),
          instr: { size: 32, bits: 0xffff_ffff },
          priv: 3,
          gpr: { reg: 31, value: ones(c.xlen) },
          ...(c.flen > 0 ? { fpr: { reg: 31, value: ones(c.flen) } } : {}),
          storeData: { bytes: Math.max(c.xlen, c.flen) / 8 as 4 | 8, value: ones(Math.max(c.xlen, c.flen)) },
          eaddr: ones(c.mlen),
          paddr: ones(c.mlen),
          csrs: [0, 1, 2, 3].map((k) => ({ csr: 0x7c0 + k, value: ones(c.xlen) })),
          fcsr: ones(c.xlen),
          pcPaddr: ones(c.mlen),
          // Two AMOs: request and response both with data of max(XLEN, FLEN) bits.
          mem: [0, 1].map(() => ({
            op: 12,
            bytes: (Math.max(c.xlen, c.flen) / 8) as 4 | 8,
            addr: ones(c.mlen),
            data: ones(Math.max(c.xlen, c.flen)),
            response: { ok: false, data: ones(Math.max(c.xlen, c.flen)) },
          })),
        },
      ],
      c,
    );
    expect(bytes.length).toBe(longest);
  });

  it('known longest records: 193 bytes for RV64 D, 119 for RV32 without F with Sv32 (typed from chapter 2)', () => {
    // 1 + (2 + 8) pc + 10 pc paddr + 5 instr + 3 priv + 11 rd + 11 frd + 10 store + 10 eaddr + 10 paddr
    // + 2 * (10 request head + 8 data + 2 response head + 8 data) + 4 * 11 csr + 11 fcsr + 1
    expect(maxTvRecordBytes(tvtraceRtlConfig(settingsOf([])))).toBe(193);
    // 1 + 6 + 7 pc paddr + 5 + 3 + 7 rd + 6 store + 7 eaddr + 7 paddr + 2 * (7 + 4 + 2 + 4) + 4 * 7 + 7 + 1
    expect(maxTvRecordBytes(tvtraceRtlConfig(settingsOf(['xlen=32', 'flen=0', 'mlen=34'])))).toBe(119);
  });

  it('refuses a FIFO smaller than the longest record', () => {
    expect(validateTvtraceRtlSettings(settingsOf(['fifo_bytes=192'])).map((e) => e.oneLine())).toEqual([
      'parameters/fifo_bytes: fifo_bytes is 192; allowed: at least 193, the longest record of RV64 with FLEN 64 and MLEN 64 (a record enters the FIFO whole)',
    ]);
    expect(validateTvtraceRtlSettings(settingsOf(['xlen=32', 'flen=0', 'mlen=34', 'fifo_bytes=119']))).toEqual([]);
  });
});
