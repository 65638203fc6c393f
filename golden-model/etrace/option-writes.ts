/**
 * The register writes that program a configuration's run-time options (tables 2.1-2.6 and the data
 * trace options) into an encoder whose registers reset to other values: the co-simulation of a
 * hardware configuration's build (tb/etrace/frames.ts) starts every case with them, so one build
 * serves every option set.
 *
 * Each word holds the reset values of the register's read-write fields under this configuration
 * (read-only fields' bits 0), from the register map (registers.ts etraceMemoryMap), the same field
 * table the RTL's reset values come from: after the writes, every read-write field holds what the
 * configuration's own RTL holds out of reset.
 * trTeControl comes last: its write sets trTeActive and trTeEnable to 1, so the session starts,
 * and samples the options, only once every other register holds its value. They are 1 whatever
 * iEnable is: iEnable is trTeInstTracing (instruction tracing within an enabled encoder, which
 * trace-on triggers may set); an encoder with iEnable 0 still sends its support packets, as the
 * model does. (A component's own RTL resets trTeActive and trTeEnable to iEnable, so one with
 * iEnable 0 comes out of reset disabled until software enables it: docs/etrace-registers.md.)
 */
import type { EtraceConfig } from './config.ts';
import { etraceMemoryMap, registerResetValue } from './registers.ts';

/** One 32-bit APB write: a byte address and the word written (every byte lane). */
export interface RegisterWrite {
  readonly address: number;
  readonly value: number;
}

/** The name of the register whose write starts the session (written last). */
const CONTROL_REGISTER = 'trTeControl';
/** Its fields that switch the encoder on (whatever iEnable, which is trTeInstTracing). */
const ENCODER_ON: readonly string[] = ['trTeActive', 'trTeEnable'];

/**
 * One write per register with a read-write field, in address order, trTeControl last. Registers
 * that are read-only in this configuration (trTeImpl, the discovery registers) are not written.
 */
export function optionWrites(c: EtraceConfig): RegisterWrite[] {
  const writes: RegisterWrite[] = [];
  let control: RegisterWrite | undefined;
  for (const block of etraceMemoryMap(c).addressBlocks) {
    for (const reg of block.registers) {
      if (!reg.fields.some((f) => f.access === 'read-write')) continue;
      // Every writable register is a 32-bit one (the 64-bit discovery registers are read-only).
      const writable = { ...reg, fields: reg.fields.filter((f) => f.access === 'read-write').map((f) => (ENCODER_ON.includes(f.name) ? { ...f, reset: 1n } : f)) };
      const write = { address: block.baseAddress + reg.offset, value: Number(registerResetValue(writable) & 0xffff_ffffn) };
      if (reg.name === CONTROL_REGISTER) control = write;
      else writes.push(write);
    }
  }
  writes.sort((a, b) => a.address - b.address);
  if (control) writes.push(control);
  return writes;
}
