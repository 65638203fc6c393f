/**
 * trace-elf --data on a fixture program whose accesses are known from its source
 * (test-fixtures/data64.S): a store of a known constant to a known symbol, loads of it back, an AMO,
 * a load into x0, a byte load of a negative doubleword, CSR writes and reads. Runs QEMU.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Dtype } from '../golden-model/hart/data-records.ts';
import { parseElf, type ElfProgram } from '../golden-model/hart/elf.ts';
import type { RetirementStream } from '../golden-model/hart/stream.ts';
import { FIXTURE_DIR, GCC } from '../golden-model/hart/test-fixtures/qemu/build.ts';
import { attachTracedAccesses, traceDataAccesses, traceProgram, type TracedAccess } from './trace.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-data-'));

describe('trace-elf --data on data64.S', () => {
  let elf: ElfProgram;
  let accesses: TracedAccess[];
  let stream: RetirementStream;

  beforeAll(async () => {
    const path = join(dir, 'data64.elf');
    const r = spawnSync(GCC, ['-nostdlib', '-march=rv64gc_zicsr', '-mabi=lp64d', '-T', join(FIXTURE_DIR, 'link.ld'), join(import.meta.dirname, 'test-fixtures', 'data64.S'), '-o', path], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    elf = parseElf(new Uint8Array(readFileSync(path)), path);
    accesses = await traceDataAccesses(path, elf);
    stream = attachTracedAccesses((await traceProgram(path, { elf })).stream, accesses);
  }, 60_000);

  it('reports every access with the address and value the source gives', () => {
    const target = elf.symbols.find((s) => s.name === 'target')!.value;
    const M64 = (1n << 64n) - 1n;
    expect(accesses.map(({ pc: _, ...a }) => a)).toEqual([
      { dtype: Dtype.store, daddr: target, dsize: 2, data: 0x1234_5678n },
      { dtype: Dtype.load, daddr: target, dsize: 2, data: 0x1234_5678n },
      // operand (a1) low, old memory value high
      { dtype: Dtype.atomicAdd, daddr: target, dsize: 2, data: (0x1234_5678n << 32n) | 0x1111n },
      { dtype: Dtype.load, daddr: target, dsize: 2, data: 0x1234_6789n },
      { dtype: Dtype.load, daddr: target, dsize: 2, data: 0x1234_6789n },
      { dtype: Dtype.store, daddr: target + 8n, dsize: 3, data: M64 - 1n },
      { dtype: Dtype.load, daddr: target + 8n, dsize: 0, data: 0xfen },
      // csrw: operand t1; mscratch before it is not read (rd = x0): the trace knows no value, 0.
      { dtype: Dtype.csrReadWrite, daddr: 0x340n, dsize: 3, data: M64 - 1n },
      { dtype: Dtype.csrReadSet, daddr: 0x340n, dsize: 3, data: (M64 - 1n) << 64n },
      { dtype: Dtype.csrReadClear, daddr: 0x340n, dsize: 3, data: ((M64 - 1n) << 64n) | 6n },
      { dtype: Dtype.store, daddr: 0x10_0000n, dsize: 2, data: 0x5555n },
    ]);
  });

  it('puts each access on the record of its instruction in the execution-log stream', () => {
    const data = stream.data!;
    expect(data.accesses).toHaveLength(accesses.length);
    data.accesses.forEach((a, k) => expect(stream.records[a.at]!.iaddr, `access ${k}`).toBe(accesses[k]!.pc));
  });

  it('refuses accesses that do not line up with the stream', () => {
    expect(() => attachTracedAccesses(stream, accesses.slice(1))).toThrow(/the execution log and the CPU-state log disagree: data access instruction 0 is at 0x[0-9a-f]+ in one and at 0x[0-9a-f]+ in the other/);
  });
});
