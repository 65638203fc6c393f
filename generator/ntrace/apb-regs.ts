/**
 * Context of `templates/ntrace/ntrace_apb_regs.sv.hbs`: the APB4 register file of the N-Trace
 * encoder, built from the register map of golden-model/ntrace/registers.ts for one configuration.
 *
 * Every field of every register is read from here: a read-only field is a constant (no logic), and
 * the few fields with state are named below, each read from its flop or input. A read-write field
 * this generator does not know is an error, so the map and the RTL cannot drift apart silently.
 */
import { NTRACE_APB_ADDR_WIDTH, NTRACE_APB_DATA_WIDTH } from '../../golden-model/ntrace/ports.ts';
import { ntraceMemoryMap, type RegisterField } from '../../golden-model/ntrace/registers.ts';
import type { NtraceConfig } from '../../golden-model/ntrace/settings.ts';
import { camelCase, padColumn, svBits, svRange, svSized } from '../render.ts';

export const NTRACE_APB_REGS_MODULE = 'ntrace_apb_regs';
export const NTRACE_APB_REGS_TEMPLATE = 'ntrace/ntrace_apb_regs.sv.hbs';

/** The signal each field with state reads (all others are constants). */
const STATEFUL: Readonly<Record<string, string>> = {
  trTeActive: 'active_q',
  trTeEnable: 'enable_q',
  trTeInstTracing: 'tracing_q',
  trTeEmpty: 'fifo_empty_i',
  trTeInstStallOrOverflow: 'stall_or_overflow_q',
  trTsActive: 'active_q',
};

/** trTeControl bits the template writes by position (TCI trTeControl). */
const WRITTEN_BITS: Readonly<Record<string, number>> = { trTeActive: 0, trTeEnable: 1, trTeInstTracing: 2, trTeInstStallOrOverflow: 12 };

/** The signal a field reads, or undefined for a constant. Throws for a read-write field without a rule. */
export function fieldSignal(f: RegisterField): string | undefined {
  const s = STATEFUL[f.name];
  if (s === undefined && f.access !== 'read-only') throw new Error(`${NTRACE_APB_REGS_MODULE}: no implementation for the read-write field ${f.name}`);
  return s;
}

export interface NtraceRegsContext {
  banner: string;
  module: string;
  ar: string;
  addrParams: string[];
  words: { addr: string; reg: string; readLines: string[] }[];
  controlAddr: string;
  /** The configuration can lose trace: the output FIFO's recover signal sets trTeInstStallOrOverflow. */
  lossy: boolean;
  dataZero: string;
  /** Several signal groups a cycle: the triggers are vectors, bit k for group k. */
  groups: boolean;
  nGroups: number;
  gR: string;
  /** trTeActive & trTeEnable for each group. */
  allEnabled: string;
}

/** Builds the template context. `banner` is the comment banner (with its `//` and newlines). */
export function ntraceApbRegsContext(c: NtraceConfig, banner: string): NtraceRegsContext {
  const aw = NTRACE_APB_ADDR_WIDTH;
  const dw = NTRACE_APB_DATA_WIDTH;
  const names: string[] = [];
  const values: string[] = [];
  const words: NtraceRegsContext['words'] = [];
  for (const block of ntraceMemoryMap(c).addressBlocks) {
    for (const reg of block.registers) {
      if (reg.size !== dw) throw new Error(`${reg.name}: only ${dw}-bit registers`);
      const addr = `${camelCase(reg.name)}Addr`;
      names.push(addr);
      values.push(svSized(aw, BigInt(block.baseAddress + reg.offset)));
      if (reg.offset === 0) {
        for (const [name, bit] of Object.entries(WRITTEN_BITS)) {
          const f = reg.fields.find((x) => x.name === name);
          if (reg.name !== 'trTeControl' || f?.bitOffset !== bit || f.bitWidth !== 1) throw new Error(`${NTRACE_APB_REGS_MODULE}: ${name} must be trTeControl bit ${bit}`);
        }
      }
      const readLines = reg.fields.map((f) => {
        const dst = `rdata${svBits(f.bitOffset + f.bitWidth - 1, f.bitOffset)}`;
        const s = fieldSignal(f);
        return `${dst} = ${s ?? svSized(f.bitWidth, f.reset)};  // ${f.name}`;
      });
      words.push({ addr, reg: reg.name, readLines });
    }
  }
  const col = padColumn(names);
  return {
    banner,
    module: NTRACE_APB_REGS_MODULE,
    ar: `[${aw - 1}:0]`,
    addrParams: names.map((name, i) => `localparam logic [${aw - 1}:0] ${col[i]} = ${values[i]};`),
    words,
    controlAddr: names[0]!,
    lossy: !c.stallEnable,
    dataZero: svSized(dw, 0n),
    groups: c.takenBranches > 1,
    nGroups: c.takenBranches,
    gR: svRange(c.takenBranches).padEnd(6),
    allEnabled: `{${c.takenBranches}{active_d & enable_d}}`,
  };
}

/** Trigger bit b of each signal group (group k in trigger_i[3k + 2 : 3k]), group 0 last. */
export function triggerBit(c: NtraceConfig, b: number): string {
  const g = c.takenBranches;
  return g === 1 ? `trigger_i[${b}]` : `{${Array.from({ length: g }, (_, k) => `trigger_i[${3 * (g - 1 - k) + b}]`).join(', ')}}`;
}

/** The connections of the register file's instance in ntrace_top (port, signal). */
export function ntraceApbRegsConnections(c: NtraceConfig): [string, string][] {
  return [
    ['clk_i', 'clk_i'],
    ['rst_ni', 'rst_ni'],
    ['paddr_i', 'paddr_i'],
    ['psel_i', 'psel_i'],
    ['penable_i', 'penable_i'],
    ['pwrite_i', 'pwrite_i'],
    ['pwdata_i', 'pwdata_i'],
    ['pstrb_i', 'pstrb_i'],
    ['prdata_o', 'prdata_o'],
    ['pready_o', 'pready_o'],
    ['pslverr_o', 'pslverr_o'],
    ['taken_i', '~stall_o'],
    ['halted_i', 'halted_i'],
    ['reset_i', 'reset_i'],
    ['trace_on_i', triggerBit(c, 0)],
    ['trace_off_i', triggerBit(c, 1)],
    ['fifo_empty_i', '~mseo_valid_o'],
    // Stalled for the FIFO, not held for a frame's further signal groups.
    ['stalled_i', c.takenBranches > 1 ? 'fifo_stall' : 'stall_o'],
    ...(c.stallEnable ? [] : ([['recover_i', 'recover']] as [string, string][])),
    ['trace_on_o', 'trace_on'],
    ['trace_off_o', 'trace_off'],
  ];
}
