/**
 * Names for the tandem-verification trace: register numbers as the RISC-V Debug specification
 * numbers them ("Abstract Register Numbers": CSRs 0x0000-0x0fff by their 12-bit address, GPR xN at
 * 0x1000 + N, FPR fN at 0x1020 + N, 0xc000-0xffff non-standard), CSR names from the privileged
 * specification, privilege modes and memory operations of the trace protocol.
 *
 * Pure tables, no I/O; written for the decoder and dump, usable by anyone who prints a register.
 */

export const GPR_BASE = 0x1000;
export const FPR_BASE = 0x1020;

/** ABI names of x0..x31 (the unprivileged specification's calling convention table). */
export const GPR_ABI_NAMES: readonly string[] = [
  'zero', 'ra', 'sp', 'gp', 'tp', 't0', 't1', 't2',
  's0', 's1', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5',
  'a6', 'a7', 's2', 's3', 's4', 's5', 's6', 's7',
  's8', 's9', 's10', 's11', 't3', 't4', 't5', 't6',
];

/** ABI names of f0..f31. */
export const FPR_ABI_NAMES: readonly string[] = [
  'ft0', 'ft1', 'ft2', 'ft3', 'ft4', 'ft5', 'ft6', 'ft7',
  'fs0', 'fs1', 'fa0', 'fa1', 'fa2', 'fa3', 'fa4', 'fa5',
  'fa6', 'fa7', 'fs2', 'fs3', 'fs4', 'fs5', 'fs6', 'fs7',
  'fs8', 'fs9', 'fs10', 'fs11', 'ft8', 'ft9', 'ft10', 'ft11',
];

/** CSR names by 12-bit address: user, supervisor, machine, debug/trigger, counters, PMP. */
export const CSR_NAMES: ReadonlyMap<number, string> = (() => {
  const m = new Map<number, string>([
    // Unprivileged: floating point, vector, entropy, counters.
    [0x000, 'ustatus'], [0x004, 'uie'], [0x005, 'utvec'],
    [0x040, 'uscratch'], [0x041, 'uepc'], [0x042, 'ucause'], [0x043, 'utval'], [0x044, 'uip'],
    [0x001, 'fflags'], [0x002, 'frm'], [0x003, 'fcsr'],
    [0x008, 'vstart'], [0x009, 'vxsat'], [0x00a, 'vxrm'], [0x00f, 'vcsr'],
    [0x015, 'seed'],
    [0xc00, 'cycle'], [0xc01, 'time'], [0xc02, 'instret'],
    [0xc80, 'cycleh'], [0xc81, 'timeh'], [0xc82, 'instreth'],
    [0xc20, 'vl'], [0xc21, 'vtype'], [0xc22, 'vlenb'],
    // Supervisor.
    [0x100, 'sstatus'], [0x102, 'sedeleg'], [0x103, 'sideleg'], [0x104, 'sie'], [0x105, 'stvec'],
    [0x106, 'scounteren'], [0x10a, 'senvcfg'],
    [0x140, 'sscratch'], [0x141, 'sepc'], [0x142, 'scause'], [0x143, 'stval'], [0x144, 'sip'],
    [0x14d, 'stimecmp'], [0x15d, 'stimecmph'],
    [0x180, 'satp'], [0x5a8, 'scontext'],
    // Machine.
    [0xf11, 'mvendorid'], [0xf12, 'marchid'], [0xf13, 'mimpid'], [0xf14, 'mhartid'], [0xf15, 'mconfigptr'],
    [0x300, 'mstatus'], [0x301, 'misa'], [0x302, 'medeleg'], [0x303, 'mideleg'], [0x304, 'mie'],
    [0x305, 'mtvec'], [0x306, 'mcounteren'], [0x30a, 'menvcfg'], [0x310, 'mstatush'], [0x31a, 'menvcfgh'],
    [0x320, 'mcountinhibit'],
    [0x340, 'mscratch'], [0x341, 'mepc'], [0x342, 'mcause'], [0x343, 'mtval'], [0x344, 'mip'],
    [0x34a, 'mtinst'], [0x34b, 'mtval2'],
    [0x747, 'mseccfg'], [0x757, 'mseccfgh'],
    [0xb00, 'mcycle'], [0xb02, 'minstret'], [0xb80, 'mcycleh'], [0xb82, 'minstreth'],
    // Debug and trigger (Debug specification).
    [0x7a0, 'tselect'], [0x7a1, 'tdata1'], [0x7a2, 'tdata2'], [0x7a3, 'tdata3'], [0x7a4, 'tinfo'],
    [0x7a5, 'tcontrol'], [0x7a8, 'mcontext'], [0x7aa, 'mscontext'],
    [0x7b0, 'dcsr'], [0x7b1, 'dpc'], [0x7b2, 'dscratch0'], [0x7b3, 'dscratch1'],
  ]);
  for (let n = 3; n <= 31; n++) {
    m.set(0xc00 + n, `hpmcounter${n}`);
    m.set(0xc80 + n, `hpmcounter${n}h`);
    m.set(0xb00 + n, `mhpmcounter${n}`);
    m.set(0xb80 + n, `mhpmcounter${n}h`);
    m.set(0x320 + n, `mhpmevent${n}`);
  }
  for (let n = 0; n < 16; n++) m.set(0x3a0 + n, `pmpcfg${n}`);
  for (let n = 0; n < 64; n++) m.set(0x3b0 + n, `pmpaddr${n}`);
  return m;
})();

const BY_NAME: ReadonlyMap<string, number> = (() => {
  const m = new Map<string, number>();
  for (const [n, name] of CSR_NAMES) m.set(name, n);
  GPR_ABI_NAMES.forEach((name, n) => {
    m.set(name, GPR_BASE + n);
    m.set(`x${n}`, GPR_BASE + n);
  });
  m.set('fp', GPR_BASE + 8); // s0 is also the frame pointer
  FPR_ABI_NAMES.forEach((name, n) => {
    m.set(name, FPR_BASE + n);
    m.set(`f${n}`, FPR_BASE + n);
  });
  return m;
})();

/** What a Debug-spec register number refers to. */
export type RegClass = 'csr' | 'gpr' | 'fpr' | 'other';

export function regClass(regno: number): RegClass {
  if (regno >= 0 && regno < 0x1000) return 'csr';
  if (regno >= GPR_BASE && regno < GPR_BASE + 32) return 'gpr';
  if (regno >= FPR_BASE && regno < FPR_BASE + 32) return 'fpr';
  return 'other';
}

const hex = (n: number, digits: number): string => `0x${n.toString(16).padStart(digits, '0')}`;

/** A CSR's name, or `csr0x7c0` for an address without one here. */
export function csrName(addr: number): string {
  return CSR_NAMES.get(addr) ?? `csr${hex(addr, 3)}`;
}

/**
 * The name of a register by its Debug-spec number: ABI names for GPRs and FPRs (`a0`, `ft7`) or
 * numeric ones (`x10`, `f7`) with `style: 'numeric'`, CSR names, `reg0x2000` for anything else.
 */
export function regName(regno: number, style: 'abi' | 'numeric' = 'abi'): string {
  switch (regClass(regno)) {
    case 'csr':
      return csrName(regno);
    case 'gpr':
      return style === 'abi' ? GPR_ABI_NAMES[regno - GPR_BASE]! : `x${regno - GPR_BASE}`;
    case 'fpr':
      return style === 'abi' ? FPR_ABI_NAMES[regno - FPR_BASE]! : `f${regno - FPR_BASE}`;
    default:
      return `reg${hex(regno, 4)}`;
  }
}

/** The Debug-spec number of a register name (`a0`, `x10`, `ft7`, `f7`, `mstatus`, `csr0x7c0`), or undefined. */
export function regNumber(name: string): number | undefined {
  const known = BY_NAME.get(name);
  if (known !== undefined) return known;
  const csr = /^csr0x([0-9a-f]{1,3})$/i.exec(name);
  if (csr) return parseInt(csr[1]!, 16);
  const other = /^reg0x([0-9a-f]{1,4})$/i.exec(name);
  if (other) return parseInt(other[1]!, 16);
  return undefined;
}

/**
 * Privilege modes as the privileged specification encodes them (the trace carries PRIVLEN = 2 bits,
 * zero extended to a byte). 2 is reserved (it was H-mode in old drafts). 4 is not a trace value:
 * the E-Trace specification numbers debug mode 4, and the dump uses the name for debug-module groups.
 */
export const PRIV_NAMES: ReadonlyMap<number, string> = new Map([
  [0, 'U'],
  [1, 'S'],
  [2, 'reserved'],
  [3, 'M'],
  [4, 'D'],
]);

export function privName(priv: number): string {
  return PRIV_NAMES.get(priv) ?? `priv${priv}`;
}

/** Memory request operations (trace spec chapter 2, "Memory Request Opcode"). */
export const MEM_OP_NAMES: readonly string[] = [
  'load', 'store', 'lr', 'sc',
  'amoswap', 'amoadd', 'amoxor', 'amoand', 'amoor', 'amomin', 'amomax', 'amominu', 'amomaxu',
  'fetch',
];

export function memOpName(op: number): string {
  return MEM_OP_NAMES[op] ?? `op${op}`;
}

/** Additional-state identifiers (opcode 7), with the dump's name for each. */
export const ADDL_NAMES: ReadonlyMap<number, string> = new Map([
  [1, 'priv'],
  [2, 'paddr'],
  [3, 'eaddr'],
  [4, 'store.data'],
  [5, 'store.data'],
  [6, 'store.data'],
  [7, 'store.data'],
  [8, 'mtime'],
  [9, 'pc.paddr'],
  [10, 'pc'],
]);

/** Trace opcodes by number, named as the spec's table describes them. */
export const OPCODE_NAMES: ReadonlyMap<number, string> = new Map([
  [1, 'begin group'],
  [2, 'end group'],
  [3, 'increment pc'],
  [4, 'full register'],
  [5, 'incremental register (add)'],
  [6, 'incremental register (OR)'],
  [7, 'additional state'],
  [8, 'memory request'],
  [9, 'memory response'],
  [10, 'hart reset'],
  [11, 'state initialization'],
  [16, '16-bit instruction'],
  [17, '32-bit instruction'],
]);
