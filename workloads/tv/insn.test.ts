/**
 * insn.ts: the effects decoder. Its disassembly is compared with binutils' objdump (-M no-aliases)
 * on every instruction of the workload ELFs and the fixtures, so operands (compressed offsets above
 * all) are checked by an independent decoder; then the effects the derivation relies on, on words
 * typed from the ISA manual.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildWorkload, WORKLOAD_ARCHES, WORKLOADS } from '../build.ts';
import { decodeInsn } from './insn.ts';
import { buildTvFixture, toolsAvailable } from './test-fixtures/build.ts';

const OBJDUMP = 'riscv64-unknown-elf-objdump';
const haveObjdump = spawnSync(OBJDUMP, ['--version']).status === 0 && toolsAvailable();

/** Mnemonics whose text differs from objdump's by convention only. */
const CONVENTION: Record<string, string> = {
  'c.nop': 'objdump -M no-aliases prints c.addi zero,0',
  unknown: 'objdump prints .4byte',
  'c.unimp': 'objdump prints .short',
  'fcvt.d.w': 'objdump omits the rounding mode of exact conversions',
  'fcvt.d.wu': 'objdump omits the rounding mode of exact conversions',
  'fcvt.d.s': 'objdump omits the rounding mode of exact conversions',
};

describe.skipIf(!haveObjdump)('disassembly agrees with objdump -M no-aliases', () => {
  it('on every instruction of the workloads (RV64GC, RV32IMC) and the tv64 fixture', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rvtrace-insn-'));
    const files = [
      ...WORKLOAD_ARCHES.flatMap((a) => WORKLOADS.map((w) => ({ file: buildWorkload(w.name, a), xlen: a === 'rv32imc' ? 32 : 64 }) as const)),
      { file: buildTvFixture('tv64', dir), xlen: 64 } as const,
    ];
    let compared = 0;
    const wrong: string[] = [];
    for (const { file, xlen } of files) {
      expect(existsSync(file)).toBe(true);
      const out = spawnSync(OBJDUMP, ['-d', '-M', 'no-aliases', file], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
      for (const line of out.split('\n')) {
        const m = /^\s*([0-9a-f]+):\s+([0-9a-f]+)\s+\t([^\t]+)\t?(.*)$/.exec(line);
        if (!m) continue;
        const eff = decodeInsn(parseInt(m[2]!, 16), BigInt('0x' + m[1]), xlen);
        if (CONVENTION[eff.mnemonic] !== undefined) continue;
        const mine = eff.text.replace(/, /g, ',').replace(/0x/g, '');
        const theirs = `${m[3]} ${m[4]}`.replace(/\s*<[^>]*>/, '').replace(/\s*#.*$/, '').replace(/0x/g, '').trim();
        compared++;
        if (mine !== theirs && wrong.length < 10) wrong.push(`${file}:${m[1]}: ${mine} | objdump: ${theirs}`);
      }
    }
    rmSync(dir, { recursive: true, force: true });
    expect(wrong).toEqual([]);
    expect(compared).toBeGreaterThan(15000);
  });
});

describe('effects', () => {
  const at = 0x8000_0000n;
  it('compressed loads and stores: scaled offsets, base, width, data register', () => {
    // c.lwsp a5, 12(sp) = 0x47b2; c.sdsp ra, 8(sp) = 0xe406; c.ld a0, 8(a1) = 0x6588; c.fsd fa0, 16(a5) = 0xab88
    expect(decodeInsn(0x47b2, at, 32).mem).toEqual({ kind: 'load', base: 2, offset: 12, bytes: 4, signed: true });
    expect(decodeInsn(0x47b2, at, 32).rd).toBe(15);
    expect(decodeInsn(0xe406, at, 64).mem).toEqual({ kind: 'store', base: 2, offset: 8, bytes: 8, signed: false, data: { file: 'x', reg: 1 } });
    expect(decodeInsn(0x6588, at, 64).mem).toMatchObject({ kind: 'load', base: 11, offset: 8, bytes: 8 });
    expect(decodeInsn(0xab88, at, 64).mem).toMatchObject({ kind: 'store', base: 15, offset: 16, bytes: 8, data: { file: 'f', reg: 10 } });
  });

  it('loads: sign extension by mnemonic; FP loads write an FPR', () => {
    expect(decodeInsn(0x0002c503, at, 64).mem).toMatchObject({ bytes: 1, signed: false }); // lbu a0, 0(t0)
    expect(decodeInsn(0x00029503, at, 64).mem).toMatchObject({ bytes: 2, signed: true }); // lh a0, 0(t0)
    const fld = decodeInsn(0x0082b507, at, 64); // fld fa0, 8(t0)
    expect(fld.frd).toBe(10);
    expect(fld.rd).toBeUndefined();
  });

  it('AMOs, lr and sc', () => {
    const amo = decodeInsn(0x00b5202f, at, 64); // amoadd.w zero, a1, (a0)
    expect(amo.rd).toBe(0);
    expect(amo.mem).toEqual({ kind: 'amo', base: 10, offset: 0, bytes: 4, signed: true, data: { file: 'x', reg: 11 }, amo: 'add' });
    expect(decodeInsn(0x1005362f, at, 64).mem).toMatchObject({ kind: 'lr', bytes: 8 }); // lr.d a2, (a0)
    expect(decodeInsn(0x18c5b6af, at, 64).mem).toMatchObject({ kind: 'sc', bytes: 8, data: { reg: 12 } }); // sc.d a3, a2, (a1)
    expect(decodeInsn(0x00b5202f, at, 32).mem).toMatchObject({ kind: 'amo', bytes: 4 });
  });

  it('CSR instructions: which ones write', () => {
    expect(decodeInsn(0x30529073, at, 64).csr).toEqual({ csr: 0x305, op: 'rw', src: { reg: 5 }, writes: true }); // csrw mtvec, t0
    expect(decodeInsn(0x34202f73, at, 64).csr).toEqual({ csr: 0x342, op: 'rs', src: { reg: 0 }, writes: false }); // csrr t5, mcause
    expect(decodeInsn(0x30046073, at, 64).csr).toEqual({ csr: 0x300, op: 'rs', src: { imm: 8 }, writes: true }); // csrsi mstatus, 8
  });

  it('floating point: the register file of the destination, rounding mode, formats', () => {
    const feq = decodeInsn(0xa2b52553, at, 64); // feq.d a0, fa0, fa1
    expect(feq.rd).toBe(10);
    expect(feq.frd).toBeUndefined();
    expect(feq.fp).toMatchObject({ op: 'eq', fmt: 'd' });
    const cvt = decodeInsn(0xc20515d3, at, 64); // fcvt.w.d a1, fa0, rtz
    expect(cvt.fp).toMatchObject({ op: 'cvt.i.f', rm: 1, int: { signed: true, bits: 32 } });
    expect(decodeInsn(0x02b570d3, at, 64).fp).toMatchObject({ op: 'add', fmt: 'd', rm: 7 }); // fadd.d ft1, fa0, fa1
    expect(decodeInsn(0xc2251553, at, 32).unknown).toBe(true); // fcvt.l.d is RV64 only
  });

  it('control flow', () => {
    expect(decodeInsn(0x30200073, at, 64).control).toEqual({ kind: 'xret', which: 'mret' });
    expect(decodeInsn(0x000080e7, at, 64).control).toEqual({ kind: 'jalr', base: 1, offset: 0 }); // jalr ra
    expect(decodeInsn(0x8082, at, 64).control).toEqual({ kind: 'jalr', base: 1, offset: 0 }); // c.jr ra
    expect(decodeInsn(0x00000073, at, 64).control).toEqual({ kind: 'ecall' });
  });
});
