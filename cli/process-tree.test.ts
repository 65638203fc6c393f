// The process tree of a shell that starts sleeps, one of them a grandchild: found, and all ended.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { descendants, killDescendants } from './process-tree.ts';

const commOf = async (pid: number): Promise<string> => (await import('node:fs')).readFileSync(`/proc/${pid}/comm`, 'utf8').trim();

async function until(ms: number, probe: () => boolean): Promise<boolean> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe('process tree', () => {
  it('finds children and grandchildren and kills them all, the top one left running', async () => {
    // sh -> sleep, and sh -> sh -> sleep (the grandchild)
    const top = spawn('sh', ['-c', 'sleep 60 & sh -c "sleep 61 & wait" & wait'], { stdio: 'ignore' });
    // Listened for from the start: the shell may end while the test still polls its children.
    const exited = new Promise<number | null>((r) => top.on('exit', (c) => r(c)));
    try {
      expect(await until(5000, () => descendants(top.pid!).length === 3)).toBe(true);
      const names = (await Promise.all(descendants(top.pid!).map(commOf))).sort();
      expect(names).toEqual(['sh', 'sleep', 'sleep']);
      expect(killDescendants(top.pid!)).toBe(3);
      expect(await until(5000, () => descendants(top.pid!).length === 0)).toBe(true);
      // Its children gone, the top shell's `wait` returns and it exits by itself.
      expect(await exited).toBe(0);
    } finally {
      top.kill('SIGKILL');
    }
  }, 30_000); // a loaded machine starts the shells slowly; the waits above give up after 5 s each

  it('finds nothing below a process without children', () => {
    const lone = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      expect(descendants(lone.pid!)).toEqual([]);
      expect(killDescendants(lone.pid!)).toBe(0);
    } finally {
      lone.kill('SIGKILL');
    }
  });
});
