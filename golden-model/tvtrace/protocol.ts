/**
 * The numbers of the Trace Protocol Specification 2018-11-20, chapter 2 (tables "Opcode", "Memory
 * Request Size", "Memory Request Opcode", "Memory Request Result", "Identifier"), and the register
 * addresses of the CSRs the encoder names itself (privileged spec CSR listing).
 */

/** Opcodes (chapter 2, first table). */
export const TvOp = {
  beginGroup: 1,
  endGroup: 2,
  /** Increment pc by the instruction length of the group's opcode 16 or 17. */
  incrementPc: 3,
  /** 16-bit register address, XLEN or FLEN data. */
  fullRegister: 4,
  /** 16-bit register address, 8-bit signed offset. */
  incrementRegister: 5,
  /** 16-bit register address, 8-bit OR mask. */
  orRegister: 6,
  /** 8-bit identifier, identifier-dependent data. */
  additionalState: 7,
  memoryRequest: 8,
  memoryResponse: 9,
  hartReset: 10,
  stateInitialization: 11,
  instruction16: 16,
  instruction32: 17,
} as const;

/** Additional-state identifiers (chapter 2, last table). */
export const TvState = {
  /** 8 bits: privilege mode, zero extended. */
  priv: 1,
  /** MLEN: physical address. */
  paddr: 2,
  /** MLEN: effective address. */
  eaddr: 3,
  /** Memory store data of 8, 16, 32, 64 bits: identifiers 4 + log2(bytes). */
  storeData8: 4,
  storeData16: 5,
  storeData32: 6,
  storeData64: 7,
  /** 64 bits. */
  mtime: 8,
  /** MLEN: physical address of the pc. */
  pcPaddr: 9,
  /** XLEN: the program counter (the pc after the group). */
  pc: 10,
} as const;

/** Memory request opcodes (op[3:0] of the byte after the address). */
export const TvMemOp = {
  load: 0,
  store: 1,
  loadReserved: 2,
  storeConditional: 3,
  amoSwap: 4,
  amoAdd: 5,
  amoXor: 6,
  amoAnd: 7,
  amoOr: 8,
  amoMin: 9,
  amoMax: 10,
  amoMinu: 11,
  amoMaxu: 12,
  instructionFetch: 13,
} as const;

/** Names of the memory request opcodes, by number (the text record format's `memN=<op>:...`). */
export const TV_MEM_OP_NAMES: readonly string[] = [
  'load', 'store', 'lr', 'sc', 'amoswap', 'amoadd', 'amoxor', 'amoand', 'amoor', 'amomin', 'amomax', 'amominu', 'amomaxu', 'fetch',
];

/** log2 of a byte count 1, 2, 4, 8: the memory request size code and the store-data identifier offset. */
export function sizeCode(bytes: 1 | 2 | 4 | 8): 0 | 1 | 2 | 3 {
  return bytes === 1 ? 0 : bytes === 2 ? 1 : bytes === 4 ? 2 : 3;
}

/** CSR addresses the encoder writes on its own (privileged spec, CSR listing). */
export const Csr = {
  ustatus: 0x000,
  fflags: 0x001,
  frm: 0x002,
  fcsr: 0x003,
  uepc: 0x041,
  ucause: 0x042,
  utval: 0x043,
  sstatus: 0x100,
  sepc: 0x141,
  scause: 0x142,
  stval: 0x143,
  mstatus: 0x300,
  mepc: 0x341,
  mcause: 0x342,
  mtval: 0x343,
  mcycle: 0xb00,
  minstret: 0xb02,
  mcycleh: 0xb80,
  minstreth: 0xb82,
} as const;

/**
 * The trap CSRs written when a trap enters privilege `priv`, in the record's field order (status,
 * cause, epc, tval): Flute picks them by the new privilege (TV_Encode.bsv rl_log_trace_TRAP).
 */
export function trapCsrs(priv: 0 | 1 | 3): readonly [number, number, number, number] {
  return priv === 3 ? M_TRAP_CSRS : priv === 1 ? S_TRAP_CSRS : U_TRAP_CSRS;
}

// One frozen tuple each, so that the encoder's trap records allocate no array.
const M_TRAP_CSRS = Object.freeze([Csr.mstatus, Csr.mcause, Csr.mepc, Csr.mtval] as const);
const S_TRAP_CSRS = Object.freeze([Csr.sstatus, Csr.scause, Csr.sepc, Csr.stval] as const);
const U_TRAP_CSRS = Object.freeze([Csr.ustatus, Csr.ucause, Csr.uepc, Csr.utval] as const);
