import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../common/settings.ts';
import { evaluate, parseExpression } from '../../ipxact/expr/index.ts';
import type { EtraceConfig } from './config.ts';
import { ETRACE_APB_ADDR_WIDTH, etracePorts, rtlFileNames } from './ports.ts';
import { ETRACE_SETTINGS, etraceConfig } from './settings.ts';

const config = (sets: string[] = []): EtraceConfig => etraceConfig(resolveSettings('test', ETRACE_SETTINGS, sets));
const names = (c: EtraceConfig): string[] => etracePorts(c).map((p) => p.name);

/** The width expression evaluated over the configuration's parameters, as an IP-XACT tool would. */
function evalWidth(expr: string, c: EtraceConfig): number {
  const params = c.params as unknown as Record<string, unknown>;
  return Number(evaluate(parseExpression(expr), { lookup: (k) => (typeof params[k] === 'number' ? BigInt(params[k] as number) : undefined) }));
}

const VARIANTS: string[][] = [
  [],
  ['taken_branches_p=3', 'retires_p=4', 'iretire_width_p=4', 'itype_width_p=3'],
  ['payload_layout=2.0', 'notime_p=0', 'time_width_p=40', 'nocontext_p=1'],
  ['sijump_p=1', 'impdef_width_p=5', 'lastsize_width_p=2', 'iaddress_width_p=32', 'ecause_width_p=5', 'privilege_width_p=3'],
];

describe('port contract', () => {
  it.each(VARIANTS.map((v) => [v.join(' ') || 'defaults', v]))('widths as numbers and as SV expressions agree (%s)', (_label, sets) => {
    const c = config(sets as string[]);
    for (const p of etracePorts(c)) {
      expect(evalWidth(p.widthExpr, c), p.name).toBe(p.width);
      expect(p.width, p.name).toBeGreaterThan(0);
      expect(p.name).toMatch(p.direction === 'in' ? /_(i|ni)$/ : /_o$/);
    }
  });

  it('starts with clk_i and rst_ni and has the APB4 completer and the byte stream', () => {
    const ports = etracePorts(config());
    expect(ports.slice(0, 2).map((p) => p.name)).toEqual(['clk_i', 'rst_ni']);
    const byName = new Map(ports.map((p) => [p.name, p]));
    for (const n of ['psel_i', 'penable_i', 'pwrite_i', 'pready_o', 'pslverr_o', 'tx_valid_o', 'tx_ready_i', 'stall_o', 'halted_i', 'reset_i']) expect(byName.get(n)?.width, n).toBe(1);
    expect(byName.get('paddr_i')?.width).toBe(ETRACE_APB_ADDR_WIDTH);
    expect(byName.get('pwdata_i')?.width).toBe(32);
    expect(byName.get('prdata_o')?.width).toBe(32);
    expect(byName.get('pstrb_i')?.width).toBe(4);
    expect(byName.get('tx_data_o')?.width).toBe(8);
    expect(new Set(ports.map((p) => p.name)).size).toBe(ports.length);
  });

  it('replicates the block signals taken_branches_p times', () => {
    const c = config(['taken_branches_p=2', 'retires_p=3', 'iretire_width_p=3', 'sijump_p=1']);
    const w = new Map(etracePorts(c).map((p) => [p.name, p.width]));
    expect(w.get('itype_i')).toBe(8);
    expect(w.get('iretire_i')).toBe(6);
    expect(w.get('ilastsize_i')).toBe(2);
    expect(w.get('iaddr_i')).toBe(64);
    expect(w.get('sijump_i')).toBe(2);
    expect(w.get('trigger_i')).toBe(6);
    expect(w.get('cause_i')).toBe(4); // per cycle, not replicated
    expect(w.get('tval_i')).toBe(32);
  });

  it('has the optional inputs exactly when they are used', () => {
    expect(names(config())).toContain('context_i'); // 1.1.1: F3 SF2 carries context
    expect(names(config(['nocontext_p=1']))).toContain('context_i');
    expect(names(config(['payload_layout=2.0', 'nocontext_p=1']))).not.toContain('context_i');
    expect(names(config(['payload_layout=2.0', 'nocontext_p=1', 'comparators_p=1']))).toContain('context_i');
    expect(names(config(['payload_layout=2.0', 'nocontext_p=0']))).toContain('context_i');
    expect(names(config())).not.toContain('time_i');
    expect(names(config(['notime_p=0']))).not.toContain('time_i'); // 1.1.1 has no time
    expect(names(config(['payload_layout=2.0', 'notime_p=0']))).toContain('time_i');
    expect(names(config())).not.toContain('sijump_i');
    expect(names(config(['sijump_p=1']))).toContain('sijump_i');
    expect(names(config())).not.toContain('impdef_i');
    expect(names(config(['impdef_width_p=3']))).toContain('impdef_i');
  });

  it('names the RTL files, top level first, with the optional units when built', () => {
    expect(rtlFileNames(config()).map((f) => f.name)).toEqual(['etrace_top.sv', 'etrace_apb_regs.sv', 'etrace_ingress.sv', 'etrace_encoder.sv', 'etrace_encoder_step.sv',
      'etrace_step_decision.sv', 'etrace_step_contents.sv', 'etrace_step_accept.sv', 'etrace_packer.sv', 'etrace_fifo.sv']);
    const full = rtlFileNames(config(['bpred_size_p=2', 'cache_size_p=2', 'f0s_width_p=1', 'return_stack_size_p=2', 'filters_p=1'])).map((f) => f.name);
    for (const n of ['etrace_filter.sv', 'etrace_bpred.sv', 'etrace_jtc.sv', 'etrace_irstack.sv']) expect(full).toContain(n);
    expect(rtlFileNames(config()).map((f) => f.name)).not.toContain('etrace_step_write.sv');
    expect(rtlFileNames(config(['pipeline_stages_p=1'])).map((f) => f.name)).toContain('etrace_step_write.sv');
  });

  it('has the data interface of table 4.9 exactly with data trace, data_i holding two values when CSRs or atomics are traced', () => {
    const data = ['dretire_i', 'dtype_i', 'daddr_i', 'dsize_i', 'data_i'];
    for (const n of [...data, 'iaddr_lsbs_i']) expect(names(config())).not.toContain(n);
    const withData = (sets: string[]) => {
      const c = config(['data_trace_p=1', ...sets]);
      // The IP-XACT export's view: the data parameters are parameters of their own.
      const params = { ...c.params, ...c.params.dataTrace } as unknown as Record<string, unknown>;
      for (const p of etracePorts(c)) {
        const v = evaluate(parseExpression(p.widthExpr), { lookup: (k) => (typeof params[k] === 'number' ? BigInt(params[k] as number) : undefined) });
        expect(Number(v), p.name).toBe(p.width);
      }
      return new Map(etracePorts(c).map((p) => [p.name, p.width]));
    };
    // Defaults: 64-bit data, dtype 4 bits, atomics and CSRs: 2 x 64 bits of data.
    const full = withData(['iaddress_width_p=64']);
    expect(data.map((n) => full.get(n))).toEqual([1, 4, 64, 2, 128]);
    expect(full.has('iaddr_lsbs_i')).toBe(false);
    // Loads and stores only on 32-bit data: one value; dsize still 2 bits (4 bytes: dsize 2).
    const ls = withData(['iaddress_width_p=48', 'data_width_p=32', 'dtype_width_p=1', 'data_atomics_p=0', 'data_csr_p=0', 'iaddr_lsbs_width_p=3']);
    expect(data.map((n) => ls.get(n))).toEqual([1, 1, 48, 2, 32]);
    expect(ls.get('iaddr_lsbs_i')).toBe(3);
  });

  it('names the data path files with data trace', () => {
    expect(rtlFileNames(config(['data_trace_p=1'])).map((f) => f.name).slice(-4)).toEqual(['etrace_data_encoder.sv', 'etrace_data_codes.sv', 'etrace_data_compress.sv', 'etrace_data_packer.sv']);
  });
});
