/**
 * SBI call scripts: the stimulus of the firmware model and, with results appended, its output
 * (a recorded run parses back, its results being the expected values of `--compare`).
 *
 * One step per line (docs/pmu-sbi.md, "Scripts"):
 *   C<seq> <ext>.<function> a0=0x.. ... a5=0x..   an ecall (missing aN = 0); output appends
 *                                                 ` -> err=<signed>(<NAME>) val=0x<hex>`
 *   A<seq> fw-event <NAME>                        a firmware event (SET_TIMER, ILLEGAL_INSN, ...)
 *   R<seq> retire <N>                             N cycles of S/U-mode retirement
 *   O<seq> read <csr-name>                        an S-mode read; output appends `=0x<hex>`,
 *                                                 `=illegal` or `=virtual`
 *   M<seq> map 0x<base> <size>                    supervisor memory (zero-filled)
 *   W<seq> w32|w64 0x<addr> 0x<value>             a supervisor store
 *   D<seq> r32|r64 0x<addr>                       a supervisor load; output appends `=0x<hex>`
 *   # ...                                         a comment
 * Anything after ` ; ` is a note, kept in the output.
 */
import { RvError } from '../../common/errors.ts';
import type { PmuConfig } from '../config.ts';
import { pmuCsrByName } from '../csr-map.ts';
import { Eid, FUNCTIONS, fwEventCode, SbiError, sbiErrorName } from './constants.ts';
import { SbiPmuFirmware, type SbiRet } from './firmware.ts';
import type { SbiHart } from './hart.ts';
import { SbiMemory } from './memory.ts';

export type ReadResult = bigint | 'illegal' | 'virtual';

interface StepBase {
  /** 1-based line number. */
  line: number;
  seq?: number;
  note?: string;
}

export type ScriptStep =
  | (StepBase & { kind: 'comment'; text: string })
  | (StepBase & { kind: 'ecall'; name: string; eid: bigint; fid: number; args: bigint[]; result?: SbiRet })
  | (StepBase & { kind: 'fw-event'; event: string })
  | (StepBase & { kind: 'retire'; count: number })
  | (StepBase & { kind: 'read'; csr: string; result?: ReadResult })
  | (StepBase & { kind: 'map'; base: bigint; size: number })
  | (StepBase & { kind: 'store'; bytes: 4 | 8; addr: bigint; value: bigint })
  | (StepBase & { kind: 'load'; bytes: 4 | 8; addr: bigint; result?: bigint });

const HEX = /^0x[0-9a-f]+$/i;
const EXT_NAMES = Object.keys(Eid) as (keyof typeof Eid)[];

/** `<ext>.<function>` or `eid0x<hex>.fid<n>` -> ids. */
function callIds(name: string): { eid: bigint; fid: number } | undefined {
  const raw = /^eid(0x[0-9a-f]+)\.fid(\d+)$/i.exec(name);
  if (raw) return { eid: BigInt(raw[1]!), fid: Number(raw[2]) };
  const m = /^([a-z]+)\.([a-z0-9_]+)$/.exec(name);
  if (!m) return undefined;
  const ext = EXT_NAMES.find((e) => e === m[1]);
  if (ext === undefined) return undefined;
  const fidN = /^fid(\d+)$/.exec(m[2]!);
  const fid = fidN ? Number(fidN[1]) : FUNCTIONS[ext].indexOf(m[2]!);
  return fid < 0 ? undefined : { eid: Eid[ext], fid };
}

/** The canonical name of an (eid, fid) pair. */
export function callName(eid: bigint, fid: number): string {
  const ext = EXT_NAMES.find((e) => Eid[e] === eid);
  if (ext === undefined) return `eid0x${eid.toString(16)}.fid${fid}`;
  return `${ext}.${FUNCTIONS[ext][fid] ?? `fid${fid}`}`;
}

/** Parses a script (or a recorded run); bad lines raise an RvError naming file:line. */
export function parseScript(text: string | readonly string[], file = '<script>'): ScriptStep[] {
  const lines = typeof text === 'string' ? text.split(/\r?\n/) : text;
  const steps: ScriptStep[] = [];
  lines.forEach((raw, i) => {
    const line = i + 1;
    const bad = (what: string): RvError => new RvError('bad-file', `${what}; got '${raw.trim()}'`, { file, line });
    const trimmed = raw.trim();
    if (trimmed === '') return;
    if (trimmed.startsWith('#')) {
      steps.push({ kind: 'comment', text: trimmed, line });
      return;
    }
    const semi = raw.indexOf(' ; ');
    const note = semi >= 0 ? raw.slice(semi + 3).trim() : undefined;
    let body = (semi >= 0 ? raw.slice(0, semi) : raw).trim();
    const head = /^([CAROMWD])(\d+)\s+(.*)$/.exec(body);
    if (!head) throw bad('expected a step: C<seq>, A<seq>, R<seq>, O<seq>, M<seq>, W<seq> or D<seq> followed by its operation, or a # comment');
    const [, letter, seqText, rest0] = head;
    const seq = Number(seqText);
    body = rest0!.trim();
    const base = { line, seq, ...(note !== undefined ? { note } : {}) };
    switch (letter) {
      case 'C': {
        let result: SbiRet | undefined;
        const arrow = body.indexOf(' -> ');
        if (arrow >= 0) {
          const r = /^err=(-?\d+)(?:\(([A-Z_]+)\))? val=(0x[0-9a-f]+)$/i.exec(body.slice(arrow + 4).trim());
          if (!r) throw bad('expected a result ` -> err=<signed decimal>(<NAME>) val=0x<hex>`');
          result = { error: BigInt(r[1]!), value: BigInt(r[3]!) };
          if (r[2] !== undefined && sbiErrorName(result.error) !== r[2]) throw bad(`error ${r[1]} is not ${r[2]}`);
          body = body.slice(0, arrow).trim();
        }
        const words = body.split(/\s+/);
        const ids = callIds(words[0]!);
        if (ids === undefined) throw bad(`expected <ext>.<function> (ext: ${EXT_NAMES.join(', ')}) or eid0x<hex>.fid<n>`);
        const args = [0n, 0n, 0n, 0n, 0n, 0n];
        for (const w of words.slice(1)) {
          const a = /^a([0-5])=(0x[0-9a-f]+|\d+)$/i.exec(w);
          if (!a) throw bad(`expected an argument a0..a5=0x<hex>, not '${w}'`);
          args[Number(a[1])] = BigInt(a[2]!);
        }
        steps.push({ kind: 'ecall', ...base, name: words[0]!, eid: ids.eid, fid: ids.fid, args, ...(result ? { result } : {}) });
        return;
      }
      case 'A': {
        const m = /^fw-event\s+([A-Z_]+)$/i.exec(body);
        if (!m || fwEventCode(m[1]!) === undefined) throw bad('expected `fw-event <NAME>` with a firmware event name of the SBI table (MISALIGNED_LOAD ... HFENCE_VVMA_ASID_RECEIVED)');
        steps.push({ kind: 'fw-event', ...base, event: m[1]!.toUpperCase() });
        return;
      }
      case 'R': {
        const m = /^retire\s+(\d+)$/.exec(body);
        if (!m) throw bad('expected `retire <N>`');
        steps.push({ kind: 'retire', ...base, count: Number(m[1]) });
        return;
      }
      case 'O': {
        const m = /^read\s+([a-z0-9]+)(?:=(0x[0-9a-f]+|illegal|virtual))?$/i.exec(body);
        if (!m) throw bad('expected `read <csr-name>` (cycle, instret, hpmcounter3, scountovf, ...)');
        const r = m[2];
        const result: ReadResult | undefined = r === undefined ? undefined : r === 'illegal' || r === 'virtual' ? r : BigInt(r);
        steps.push({ kind: 'read', ...base, csr: m[1]!, ...(result !== undefined ? { result } : {}) });
        return;
      }
      case 'M': {
        const m = /^map\s+(0x[0-9a-f]+)\s+(\d+|0x[0-9a-f]+)$/i.exec(body);
        if (!m) throw bad('expected `map 0x<base> <size>`');
        steps.push({ kind: 'map', ...base, base: BigInt(m[1]!), size: Number(BigInt(m[2]!)) });
        return;
      }
      case 'W': {
        const m = /^w(32|64)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)$/i.exec(body);
        if (!m) throw bad('expected `w32|w64 0x<addr> 0x<value>`');
        steps.push({ kind: 'store', ...base, bytes: m[1] === '32' ? 4 : 8, addr: BigInt(m[2]!), value: BigInt(m[3]!) });
        return;
      }
      default: {
        const m = /^r(32|64)\s+(0x[0-9a-f]+)(?:=(0x[0-9a-f]+))?$/i.exec(body);
        if (!m) throw bad('expected `r32|r64 0x<addr>`');
        steps.push({ kind: 'load', ...base, bytes: m[1] === '32' ? 4 : 8, addr: BigInt(m[2]!), ...(m[3] !== undefined ? { result: BigInt(m[3]) } : {}) });
      }
    }
  });
  return steps;
}

const hex = (v: bigint): string => `0x${v.toString(16)}`;

/** One step as a line (with its result when it has one). */
export function formatStep(s: ScriptStep): string {
  const p = (letter: string): string => `${letter}${s.seq ?? 0} `;
  let text: string;
  switch (s.kind) {
    case 'comment':
      return s.text;
    case 'ecall':
      text = `${p('C')}${callName(s.eid, s.fid)} ${s.args.map((a, i) => `a${i}=${hex(a)}`).join(' ')}`;
      if (s.result) text += ` -> err=${s.result.error}(${sbiErrorName(s.result.error) ?? 'UNKNOWN'}) val=${hex(s.result.value)}`;
      break;
    case 'fw-event':
      text = `${p('A')}fw-event ${s.event}`;
      break;
    case 'retire':
      text = `${p('R')}retire ${s.count}`;
      break;
    case 'read':
      text = `${p('O')}read ${s.csr}${s.result === undefined ? '' : `=${typeof s.result === 'bigint' ? hex(s.result) : s.result}`}`;
      break;
    case 'map':
      text = `${p('M')}map ${hex(s.base)} ${s.size}`;
      break;
    case 'store':
      text = `${p('W')}w${s.bytes * 8} ${hex(s.addr)} ${hex(s.value)}`;
      break;
    case 'load':
      text = `${p('D')}r${s.bytes * 8} ${hex(s.addr)}${s.result === undefined ? '' : `=${hex(s.result)}`}`;
      break;
  }
  return s.note !== undefined ? `${text} ; ${s.note}` : text;
}

export function formatScript(steps: readonly ScriptStep[]): string {
  return steps.map((s) => `${formatStep(s)}\n`).join('');
}

export interface ScriptRun {
  steps: ScriptStep[];
  firmware: SbiPmuFirmware;
}

/**
 * Boots the firmware on `hart` and runs the script; the steps come back with their results.
 * Bad CSR names and unmapped loads/stores raise an RvError naming the line.
 */
export function runScript(config: PmuConfig, lines: string | readonly string[] | readonly ScriptStep[], hart: SbiHart, file = '<script>'): ScriptRun {
  const input = typeof lines === 'string' || (lines.length > 0 && typeof lines[0] === 'string') ? parseScript(lines as string | string[], file) : (lines as ScriptStep[]);
  const memory = new SbiMemory();
  const firmware = new SbiPmuFirmware(config, hart, { memory });
  firmware.boot();
  const out: ScriptStep[] = [];
  for (const step of input) {
    const fail = (what: string): RvError => new RvError('bad-value', what, { file, line: step.line });
    switch (step.kind) {
      case 'ecall': {
        const result = firmware.ecall(step.eid, step.fid, step.args);
        out.push({ ...step, result });
        break;
      }
      case 'fw-event':
        firmware.fwEvent(step.event);
        out.push(step);
        break;
      case 'retire':
        hart.retire(step.count);
        out.push(step);
        break;
      case 'read': {
        const address = pmuCsrByName(config, step.csr);
        if (address === undefined) throw fail(`${step.csr} is not a CSR of this PMU configuration`);
        const r = hart.read(address);
        out.push({ ...step, result: r.illegalInstruction ? 'illegal' : r.virtualInstruction ? 'virtual' : r.rdata });
        break;
      }
      case 'map':
        memory.map(step.base, step.size);
        out.push(step);
        break;
      case 'store':
        if (!memory.contains(step.addr, BigInt(step.bytes))) throw fail(`0x${step.addr.toString(16)} is not in a mapped region`);
        memory.write(step.addr, step.bytes, step.value);
        out.push(step);
        break;
      case 'load':
        if (!memory.contains(step.addr, BigInt(step.bytes))) throw fail(`0x${step.addr.toString(16)} is not in a mapped region`);
        out.push({ ...step, result: memory.read(step.addr, step.bytes) });
        break;
      default:
        out.push(step);
    }
  }
  return { steps: out, firmware };
}

export interface RunDifference {
  line: number;
  step: string;
  expected: string;
  actual: string;
}

function resultText(s: ScriptStep): string | undefined {
  if (s.kind === 'ecall' && s.result) return `err=${s.result.error}(${sbiErrorName(s.result.error) ?? 'UNKNOWN'}) val=${hex(s.result.value)}`;
  if ((s.kind === 'read' || s.kind === 'load') && s.result !== undefined) return typeof s.result === 'bigint' ? hex(s.result) : s.result;
  return undefined;
}

/** The first step whose result differs (only steps with an expected result are compared). */
export function compareRuns(expected: readonly ScriptStep[], actual: readonly ScriptStep[]): RunDifference | undefined {
  const exp = expected.filter((s) => s.kind !== 'comment');
  const act = actual.filter((s) => s.kind !== 'comment');
  for (let i = 0; i < exp.length; i++) {
    const e = exp[i]!;
    const a = act[i];
    const want = resultText(e);
    if (a === undefined) return { line: e.line, step: formatStep(e), expected: want ?? 'a step', actual: 'end of run' };
    if (want === undefined) continue;
    const got = resultText(a) ?? 'no result';
    if (got !== want) return { line: e.line, step: formatStep({ ...e, ...(e.kind === 'ecall' ? { result: undefined } : {}) } as ScriptStep), expected: want, actual: got };
  }
  return undefined;
}

export { SbiError };
