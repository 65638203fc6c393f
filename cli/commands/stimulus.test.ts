/** `rvtrace stimulus --data` end to end: the option adds a data trace and only the option does. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDataTrace, Lresp } from '../../golden-model/hart/data-records.ts';
import { parseStream } from '../../golden-model/hart/formats/detect.ts';

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
    expect(b.records).toEqual(a.records);
    expect(b.data!.accesses.length).toBeGreaterThan(100);
    expect(b.data!.responses.some((r) => r.lresp === Lresp.error)).toBe(true);
    expect(() => checkDataTrace(b)).not.toThrow();
  });
});
