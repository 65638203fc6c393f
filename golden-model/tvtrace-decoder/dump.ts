/**
 * Tandem-verification trace dump: one line per group, every field named.
 *
 * Line format (docs/tvtrace-decoder.md has the full description):
 *
 *   <offset> <kind>[ (ungrouped)][ (end implied)] <fields>
 *
 * <offset> is the group's first byte as 0x and at least 4 hex digits; <kind> one of instruction,
 * trap, interrupt, xret, debug-write, reset, state, empty. Fields, always in this order whatever
 * the order in the stream:
 *   pc=0x...                 the new pc (additional state 10), or after an increment pc
 *   pc=0x...(+=4)            with the pc known, `pc+=4` when it is not
 *   instr=0x006281b3 (32-bit)
 *   <reg>=0x...              each register write in stream order, by name (a0, ft7, mstatus,
 *                            csr0x7c0, reg0xc000); incremental writes as `a0=0x2(+=-3)` /
 *                            `fcsr=0x21(|=0x1)`, or `a0+=-3` / `fcsr|=0x1` when the previous
 *                            value is unknown
 *   priv=M                   (U, S, reserved, M)
 *   mem.<op> addr=0x... size=<bytes>[ data=0x...][ rsp=ok|fail rsp.size=<bytes>[ rsp.data=0x...]]
 *   paddr= eaddr= store.data=0x..(<n> bytes) mtime= pc.paddr=   additional state in stream order
 *   hart-reset  state-init
 * Values are hex without padding except instructions (4 or 8 digits). A decoding error ends the
 * dump with `<offset> error: <found>: expected <what>`.
 */
import { decodeTv, type TvGroupChanges, type TvInitialState, type TvParams, type TvRegChange } from './decoder.ts';
import { privName } from './names.ts';

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;
export const offsetText = (n: number): string => `0x${n.toString(16).padStart(4, '0')}`;

function regText(r: TvRegChange): string {
  if (r.how === 'full') return `${r.name}=${hex(r.value!)}`;
  const op = r.how === 'add' ? `+=${r.operand}` : `|=${hex(r.operand)}`;
  return r.value === undefined ? `${r.name}${op}` : `${r.name}=${hex(r.value)}(${op})`;
}

/** The fields of a group's line, in the documented order. */
export function groupFields(c: TvGroupChanges): string[] {
  const f: string[] = [];
  if (c.pc) {
    if (c.pc.how === 'set') f.push(`pc=${hex(c.pc.value!)}`);
    else f.push(c.pc.value === undefined ? `pc+=${c.pc.by}` : `pc=${hex(c.pc.value)}(+=${c.pc.by})`);
  }
  if (c.instr) f.push(`instr=0x${c.instr.value.toString(16).padStart(c.instr.bits / 4, '0')} (${c.instr.bits}-bit)`);
  for (const r of c.regs) f.push(regText(r));
  if (c.priv !== undefined) f.push(`priv=${privName(c.priv)}`);
  for (const m of c.mem) {
    const parts = [`mem.${m.opName}`, `addr=${hex(m.addr)}`, `size=${m.size}`];
    if (m.data !== undefined) parts.push(`data=${hex(m.data)}`);
    if (m.response) {
      parts.push(`rsp=${m.response.ok ? 'ok' : 'fail'}`, `rsp.size=${m.response.size}`);
      if (m.response.data !== undefined) parts.push(`rsp.data=${hex(m.response.data)}`);
    }
    f.push(parts.join(' '));
  }
  for (const a of c.addl) f.push(a.name === 'store.data' ? `store.data=${hex(a.value)}(${a.bytes} byte${a.bytes === 1 ? '' : 's'})` : `${a.name}=${hex(a.value)}`);
  if (c.hartReset) f.push('hart-reset');
  if (c.stateInit) f.push('state-init');
  return f;
}

/** One dump line for a group's changes. */
export function groupLine(c: TvGroupChanges): string {
  const head = [offsetText(c.offset), c.kind];
  if (!c.grouped) head.push('(ungrouped)');
  if (c.endImplied) head.push('(end implied)');
  return [...head, ...groupFields(c)].join(' ');
}

/**
 * The dump of a whole stream: a line per group, then a line for the first error if there is one.
 * `initial` seeds the state (pc, registers) so increments print their results.
 */
export function dumpTv(bytes: Uint8Array, params: TvParams, initial?: TvInitialState): string[] {
  const r = decodeTv(bytes, params, initial);
  const lines = r.groups.map(groupLine);
  if (r.error) lines.push(`${offsetText(r.error.offset)} error: ${r.error.message}`);
  return lines;
}
