/**
 * `rvtrace stimulus --data` end to end: the option adds a data trace to the same instructions; with
 * blocks a cycle holds at most one access (table 4.9's interface), so the blocks may be cut
 * differently.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDataTrace, Lresp } from '../../golden-model/hart/data-records.ts';
import { parseStream } from '../../golden-model/hart/formats/detect.ts';
import { expandBlocks } from '../../golden-model/hart/blocks.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvtrace.js');
const dir = mkdtempSync(join(tmpdir(), 'rvtrace-stimulus-'));

function stimulus(out: string, ...extra: string[]): void {
  const r = spawnSync(process.execPath, [BIN, 'stimulus', '--seed', '9', '--count', '4000', '--out', out, ...extra], { cwd: ROOT, encoding: 'utf8' });
  expect(r.stderr).toMatch(/^wrote /);
  expect(r.status).toBe(0);
}

describe('rvtrace stimulus --data', () => {
  it('adds split accesses with responses to the same instruction stream', () => {
    const plain = join(dir, 'plain.bin');
    const data = join(dir, 'data.bin');
    stimulus(plain, '--set', 'retires_p=2');
    stimulus(data, '--set', 'retires_p=2', '--data', '--set', 'data_signalling=split', '--set', 'data_error_rate=0.2');
    const a = parseStream(readFileSync(plain), plain);
    const b = parseStream(readFileSync(data), data);
    expect(a.data).toBeUndefined();
    // The same instructions (expandBlocks gives them back up to the cycle marks and time stamps).
    const instructions = (x: typeof a) => expandBlocks(x.records, x.image).map((r) => `${r.iaddr} ${r.iretire} ${r.itype} ${r.priv} ${r.cause} ${r.tval}`);
    expect(instructions(b)).toEqual(instructions(a));
    expect(b.data!.accesses.length).toBeGreaterThan(100);
    // One access a cycle: a cycle is a record and the sameCycle records after it.
    const cycleOf: number[] = [];
    b.records.forEach((r, i) => cycleOf.push(r.sameCycle ? cycleOf[i - 1]! : i));
    const cycles = b.data!.accesses.map((x) => cycleOf[x.at]);
    expect(new Set(cycles).size).toBe(cycles.length);
    expect(b.records.length).toBeGreaterThan(a.records.length);
    expect(b.data!.responses.some((r) => r.lresp === Lresp.error)).toBe(true);
    expect(() => checkDataTrace(b)).not.toThrow();
  });
});
