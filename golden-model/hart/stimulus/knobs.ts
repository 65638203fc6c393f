/**
 * The knobs of the stimulus generator: the shape of the random program (static densities) and the
 * rates of the events its execution injects (dynamic densities). Every knob is a setting of
 * `rvtrace stimulus`, so `--set NAME=VALUE` overrides it for one run.
 */

export type PrivilegeSet = 'MSU' | 'MU' | 'M';

/**
 * Where the two code regions go. `default`: at rom_base and code_base. `low`: the code region at
 * address 0 (a microcontroller's flash) and the ROM 1 MiB above it. `sv39`, `sv48`, `sv57` (RV64
 * only): the code region at the lowest address of the upper half of that virtual address space
 * (where a kernel runs: 0xffffffc000000000, 0xffff800000000000, 0xff00000000000000), the ROM at
 * rom_base, so the two are as far apart as such a system puts them.
 */
export type Placement = 'default' | 'low' | 'sv39' | 'sv48' | 'sv57';
export const PLACEMENTS: readonly Placement[] = ['default', 'low', 'sv39', 'sv48', 'sv57'];

export interface StimulusKnobs {
  xlen: 32 | 64;
  /** The C extension: 16-bit encodings (c.j, c.jal, c.jr, c.jalr, c.beqz, ...). */
  compressed: boolean;
  /** Privilege levels the program uses: traps from U to S and M, S to M, returns with xRET. */
  privileges: PrivilegeSet;
  /** Low "boot ROM" region: reset vector and library functions reachable with lui/c.lui pairs. */
  rom_base: bigint;
  /** Main code region (handlers, functions, main loop). */
  code_base: bigint;
  /** Where the two regions go (see Placement); anything but `default` overrides rom_base and code_base. */
  placement: Placement;
  /** Number of generated functions besides main and the trap handlers. */
  functions: number;

  // Static densities: relative weights of the statements a function body is made of.
  w_straight: number;
  w_if: number;
  w_loop: number;
  w_call: number;
  w_indirect_call: number;
  w_sijump_call: number;
  w_tail_call: number;
  w_jump_table: number;
  w_other_jump: number;
  w_swap: number;
  w_ecall: number;
  w_ebreak: number;
  w_illegal: number;
  /** AMOs (amo<op>.w/.d on a global); 0 by default so that programs stay what they were. */
  w_amo: number;
  /** Byte and half-word loads and stores (lb, lbu, lh, lhu, sb, sh on a global); 0 by default, as w_amo. */
  w_narrow: number;
  /**
   * A run of 256 to 264 direct calls (jal) in a row to a leaf function without branches: more
   * implicit returns between two branches than the Implicit Return extension counts (irets, 255);
   * 0 by default, as w_amo.
   */
  w_call_run: number;
  /**
   * A run of 64 to 72 branches that are never taken (error checks: `if (err) goto fail`), which a
   * branch predictor gets right from its reset state, so that 31 and more correctly predicted
   * branches come before a jump, call, trap or return; half the time the run is the body of a
   * loop. With it, every trap handler ends with such a run before its xRET. 0 by default, as w_amo.
   */
  w_checks: number;
  /**
   * A call to a leaf that returns past the 4-byte word after the call (an inline argument the
   * leaf skips: `jalr x0, 4(ra)`), so the return goes elsewhere than the address the call pushed
   * and a return stack mispredicts it; the call comes after a run of checks and is the body of a
   * short loop. 0 by default, as w_amo.
   */
  w_skip_return: number;

  // Dynamic densities: probabilities per retired instruction unless said otherwise.
  /** Asynchronous interrupt before an instruction of non-handler code. */
  interrupt_rate: number;
  /** A load of non-handler code faults (page fault): the trap retires nothing, the load re-executes. */
  fault_rate: number;
  /** Per S-mode handler entry: an M-mode interrupt arrives before the handler retires anything. */
  nested_interrupt_rate: number;
  /** Per sret to U: a context (process) switch reported precisely (ctype 2). */
  context_switch_rate: number;
  /** Context change reported as an asynchronous discontinuity (ctype 3), e.g. a hart switch. */
  async_context_rate: number;
  halt_rate: number;
  reset_rate: number;
  /** A cycle in which nothing retires (stall). */
  idle_rate: number;
  /** Per instruction: a long stall (a wait for an interrupt, a slow memory) of long_stall_cycles idle cycles; 0 by default. */
  long_stall_rate: number;
  long_stall_cycles: number;
  notify_rate: number;
  trace_off_rate: number;
  /** While trace is off: probability per instruction of a trace-on trigger. */
  trace_on_rate: number;
  /** Probability that a backward loop branch is taken again (mean iterations 1/(1-p)). */
  loop_continue: number;
  /** Deepest self-recursion of a recursive function. */
  max_recursion: number;
}

export function defaultKnobs(): StimulusKnobs {
  return {
    xlen: 64,
    compressed: true,
    privileges: 'MSU',
    rom_base: 0x1000n,
    code_base: 0x80000000n,
    placement: 'default',
    functions: 24,
    w_straight: 30,
    w_if: 18,
    w_loop: 8,
    w_call: 10,
    w_indirect_call: 5,
    w_sijump_call: 4,
    w_tail_call: 3,
    w_jump_table: 3,
    w_other_jump: 2,
    w_swap: 2,
    w_ecall: 2,
    w_ebreak: 1,
    w_illegal: 1,
    w_amo: 0,
    w_narrow: 0,
    w_call_run: 0,
    w_checks: 0,
    w_skip_return: 0,
    interrupt_rate: 0.001,
    fault_rate: 0.002,
    nested_interrupt_rate: 0.05,
    context_switch_rate: 0.3,
    async_context_rate: 0.0002,
    halt_rate: 0.0001,
    reset_rate: 0.00002,
    idle_rate: 0.02,
    long_stall_rate: 0,
    long_stall_cycles: 40_000,
    notify_rate: 0.0005,
    trace_off_rate: 0.0002,
    trace_on_rate: 0.002,
    loop_continue: 0.8,
    max_recursion: 6,
  };
}

/** One line of help per knob, for `rvtrace stimulus --help`. */
export const KNOB_HELP: Record<keyof StimulusKnobs, string> = {
  xlen: 'hart XLEN',
  compressed: 'use the C extension (16-bit encodings)',
  privileges: 'privilege levels used',
  rom_base: 'base of the boot ROM region (reset vector)',
  code_base: 'base of the main code region',
  placement: 'where the code goes: default (rom_base, code_base), low (code at 0, ROM at 1 MiB), sv39|sv48|sv57 (RV64: code in the upper half of that address space)',
  functions: 'number of generated functions',
  w_straight: 'weight of straight-line code',
  w_if: 'weight of forward branches (if)',
  w_loop: 'weight of loops (backward branches)',
  w_call: 'weight of direct calls (jal, c.jal, recursion)',
  w_indirect_call: 'weight of calls through a register (jalr, c.jalr)',
  w_sijump_call: 'weight of auipc/lui/c.lui + jalr pairs (sequentially inferable)',
  w_tail_call: 'weight of tail calls (jal x0, c.j, jalr x0, c.jr)',
  w_jump_table: 'weight of jump tables (other uninferable jumps)',
  w_other_jump: 'weight of jal with a non-link rd (other inferable jumps)',
  w_swap: 'weight of co-routine swaps',
  w_ecall: 'weight of ecall',
  w_ebreak: 'weight of ebreak / c.ebreak',
  w_illegal: 'weight of illegal instructions (emulated by the handler)',
  w_amo: 'weight of atomic memory operations (amoadd.w, amoswap.d, ...; 0 keeps older programs)',
  w_narrow: 'weight of byte and half-word loads and stores (lb, lhu, sh, ...; 0 keeps older programs)',
  w_call_run: 'weight of runs of 256-264 direct calls to a branch-free leaf (0 keeps older programs)',
  w_checks: 'weight of runs of 64-72 never-taken branches (half of them in a loop), also ending every trap handler (0 keeps older programs)',
  w_skip_return: 'weight of calls to a leaf that returns past an inline argument word (a return the return stack mispredicts), after a run of never-taken branches, in a short loop (0 keeps older programs)',
  interrupt_rate: 'interrupts per instruction',
  fault_rate: 'page faults per executed load',
  nested_interrupt_rate: 'interrupts on S-handler entry, per entry',
  context_switch_rate: 'context switches (ctype 2) per sret',
  async_context_rate: 'asynchronous context changes (ctype 3) per instruction',
  halt_rate: 'halts per instruction',
  reset_rate: 'resets per instruction',
  idle_rate: 'idle cycles per instruction',
  long_stall_rate: 'long stalls per instruction (0 keeps older streams)',
  long_stall_cycles: 'idle cycles of a long stall',
  notify_rate: 'trace-notify triggers per instruction',
  trace_off_rate: 'trace-off triggers per instruction',
  trace_on_rate: 'trace-on triggers per instruction while off',
  loop_continue: 'probability a loop branch is taken again',
  max_recursion: 'deepest self-recursion',
};
