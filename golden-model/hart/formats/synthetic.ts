/**
 * Files of the import formats made from a stream of ours, for `rvtrace bench` (import rates) and
 * for tests that need large inputs: a spike-csv, an etrace-csv (the reference flow's decimal
 * columns) and a QEMU execution log of the same execution. They are as a producer writes them,
 * not a model of one: the readers must accept them, their contents only need to be plausible.
 *
 * The stream should be single retirement; the QEMU log also needs one without traps or privilege
 * changes (QEMU logs traps on lines of their own that the import checks against the privilege
 * state), e.g. `trapFreeKnobs()` of the stimulus.
 */
import { Itype, type RetirementRecord } from '../records.ts';
import type { RetirementStream } from '../stream.ts';
import { SPIKE_CSV_HEADER } from './spike-csv.ts';

/** Lines per string chunk: a file of tens of millions of lines does not fit one JavaScript string. */
const CHUNK_LINES = 100_000;

function hex(v: bigint | number): string {
  return v.toString(16);
}

/** Calls `line` for every instruction a record retired: its address and the encoding from the image. */
function eachInstruction(stream: RetirementStream, r: RetirementRecord, line: (addr: bigint, encoding: number, last: boolean) => void): void {
  let addr = r.iaddr;
  let left = r.iretire;
  while (left > 0) {
    const f = stream.image.fetch(addr);
    if (f === undefined) throw new Error(`synthetic input: the image does not hold ${hex(addr)}`);
    left -= f.length / 2;
    line(addr, f.encoding, left <= 0);
    addr += BigInt(f.length);
  }
}

/** Joins lines into chunks of at most CHUNK_LINES lines, each ending with a newline. */
class Chunks {
  readonly chunks: string[] = [];
  private lines: string[] = [];
  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length >= CHUNK_LINES) this.flush();
  }
  done(): string[] {
    this.flush();
    return this.chunks;
  }
  private flush(): void {
    if (this.lines.length > 0) this.chunks.push(this.lines.join('\n') + '\n');
    this.lines = [];
  }
}

/** A spike-csv of the stream: a row per retired instruction, per trap that retired nothing and per interrupt. */
export function spikeCsvChunks(stream: RetirementStream): string[] {
  const out = new Chunks();
  out.push(SPIKE_CSV_HEADER);
  for (const r of stream.records) {
    if (r.halted || r.reset) continue;
    if (r.itype === Itype.interrupt && r.iretire === 0) {
      out.push(`1,${hex(r.iaddr)},0,${r.priv},0,${hex(r.cause)},${hex(r.tval)},1`);
      continue;
    }
    if (r.itype === Itype.exception && r.iretire === 0) {
      const f = stream.image.fetch(r.iaddr);
      out.push(`1,${hex(r.iaddr)},${hex(f?.encoding ?? 0)},${r.priv},1,${hex(r.cause)},${hex(r.tval)},0`);
      continue;
    }
    eachInstruction(stream, r, (addr, encoding, last) => {
      const trap = last && r.itype === Itype.exception;
      out.push(`1,${hex(addr)},${hex(encoding)},${r.priv},${trap ? 1 : 0},${trap ? hex(r.cause) : 0},${trap ? hex(r.tval) : 0},0`);
    });
  }
  return out.done();
}

/** An etrace-csv of the stream as the reference flow prints it (single retirement, decimal columns). */
export function etraceCsvChunks(stream: RetirementStream): string[] {
  const out = new Chunks();
  out.push('itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0');
  for (const r of stream.records) {
    out.push(`${r.itype},${r.cause},${hex(r.tval)},${r.priv},${hex(r.iaddr)},${r.context},${r.ctype},${r.iretire},${r.ilastsize}`);
  }
  return out.done();
}

/**
 * A QEMU 7.2 log (`-singlestep -d exec,int,nochain`) of the stream's instructions: one Trace line
 * per instruction, TB flags with the XLEN and the privilege, one instruction per block. Every
 * 64th instruction is entered and cancelled once first (a "Stopped execution" line), as QEMU does
 * at an exit request. The stream must not trap (see the file comment).
 */
export function qemuLogChunks(stream: RetirementStream): string[] {
  const out = new Chunks();
  const xl = stream.xlen === 32 ? 1 : 2;
  let n = 0;
  for (const r of stream.records) {
    if (r.itype === Itype.exception || r.itype === Itype.interrupt) throw new Error('synthetic QEMU log: the stream must not trap');
    eachInstruction(stream, r, (addr) => {
      const pc = hex(addr).padStart(16, '0');
      const flags = hex((xl << 20) | r.priv).padStart(8, '0');
      const trace = `Trace 0: 0x7f3a1c000${hex(n & 0xfff).padStart(3, '0')} [0000000000000000/${pc}/${flags}/ff020201] `;
      if (n % 64 === 63) {
        out.push(trace);
        out.push(`Stopped execution of TB chain before 0x7f3a1c000${hex(n & 0xfff).padStart(3, '0')} [${pc}]`);
      }
      out.push(trace);
      n++;
    });
  }
  return out.done();
}
