/**
 * The RTL key (tb/rtl-key.ts): equal for equal inputs, different when a setting changes, and the
 * memo spares the rendering only while the files it names are there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveComponent } from '../blocks/index.ts';
import { installedRtl, rtlKey } from './rtl-key.ts';

describe('RTL key and memo', () => {
  let cache: string;
  const saved = process.env['RVTRACE_CACHE'];
  beforeAll(() => {
    cache = mkdtempSync(join(tmpdir(), 'rvtrace-rtlkey-'));
    process.env['RVTRACE_CACHE'] = join(cache, 'verilator');
  });
  afterAll(() => {
    if (saved === undefined) delete process.env['RVTRACE_CACHE'];
    else process.env['RVTRACE_CACHE'] = saved;
    rmSync(cache, { recursive: true, force: true });
  });

  it('is the same for the same component and settings, and changes with a setting', () => {
    const a = rtlKey(resolveComponent('etrace', [], { command: 'cosim' }));
    expect(rtlKey(resolveComponent('etrace', [], { command: 'cosim' }))).toBe(a);
    expect(rtlKey(resolveComponent('etrace', ['fifo_depth_p=64'], { command: 'cosim' }))).not.toBe(a);
    expect(rtlKey(resolveComponent('etrace-rv32-mcu', [], { command: 'cosim' }))).not.toBe(a);
  });

  it('renders on the first call only, and again when the installed files are gone', () => {
    const r = resolveComponent('etrace', ['fifo_depth_p=32'], { command: 'cosim' });
    let renders = 0;
    const render = () => {
      renders++;
      return r.block.rtl(r);
    };
    const first = installedRtl(r, render);
    expect(renders).toBe(1);
    expect(first.paths.length).toBeGreaterThan(3);
    const second = installedRtl(r, render);
    expect(renders).toBe(1);
    expect(second).toEqual(first);
    rmSync(first.rtlDir, { recursive: true });
    const third = installedRtl(r, render);
    expect(renders).toBe(2);
    expect(third).toEqual(first);
  });
});
