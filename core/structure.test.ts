/**
 * The structure of the tree (architecture.md): no import circle anywhere, the CLI on top with nothing
 * importing it, and the generic layers naming no block. Read from the sources' own import lines, so a
 * change that breaks a rule fails here with the files that break it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLOCKS } from '../blocks/index.ts';

const ROOT = join(import.meta.dirname, '..');
// counter-block: a block's files laid out as they would stand in the tree (blocks/new-block.test.ts).
const SKIP = new Set(['node_modules', 'rtl-out', 'out', 'build', '.cache', '.git', 'counter-block']);

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.(ts|mjs|js)$/.test(name)) out.push(relative(ROOT, path));
  }
  return out;
}

/** Each file's relative imports (static and dynamic), as repository paths. */
export function importGraph(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const text = read(f);
    const targets: string[] = [];
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+|export\s+(?:\*|\{[^}]*\})\s+from\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      targets.push(normalize(join(dirname(f), m[1]!)));
    }
    graph.set(f, targets);
  }
  return graph;
}

/** The strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const FILES = sources(ROOT);
const GRAPH = importGraph(FILES, (f) => readFileSync(join(ROOT, f), 'utf8'));
const blockNames = BLOCKS.map((b) => b.name);

describe('structure of the tree', () => {
  it('the circle finder finds a circle (it can fail)', () => {
    const g = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']]]);
    expect(circles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(circles(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toEqual([]);
  });

  it('reads the imports of the real tree', () => {
    expect(GRAPH.get('cli/main.ts')).toContain('blocks/index.ts');
    expect(FILES.length).toBeGreaterThan(150);
  });

  it('has no import circle anywhere', () => {
    expect(circles(GRAPH)).toEqual([]);
  });

  it('nothing but the CLI (and bin/) imports the CLI', () => {
    const offenders = [...GRAPH].filter(([f, to]) => !f.startsWith('cli/') && !f.startsWith('bin/') && to.some((t) => t.startsWith('cli/'))).map(([f]) => f);
    expect(offenders).toEqual([]);
  });

  it('the generic layers (core/, ipxact/, generator/ and tb/ outside block folders) import no block folder', () => {
    const isBlockPath = (p: string): boolean => blockNames.some((b) => p.split('/').includes(b));
    const generic = (f: string): boolean =>
      (f.startsWith('core/') || f.startsWith('ipxact/') || f.startsWith('generator/') || f.startsWith('tb/') || f.startsWith('golden-model/hart/') || f.startsWith('golden-model/common/')) &&
      !isBlockPath(f) &&
      !f.includes('test-fixtures/') &&
      !f.endsWith('.test.ts');
    const offenders = [...GRAPH].filter(([f, to]) => generic(f) && to.some(isBlockPath)).map(([f, to]) => `${f} -> ${to.filter(isBlockPath).join(', ')}`);
    expect(offenders).toEqual([]);
  });

  it('only the registry lists the blocks', () => {
    const registry = readFileSync(join(ROOT, 'blocks', 'registry.ts'), 'utf8');
    for (const b of blockNames) expect(registry).toMatch(new RegExp(`^export \\{ block as ${b} \\} from '\\.\\./tb/${b}/block\\.ts';$`, 'm'));
  });
});
