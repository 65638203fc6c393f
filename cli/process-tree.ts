/**
 * The processes a run started, found and ended from outside the thread that started them: an
 * interrupted run must leave no Verilator, make, g++, harness or QEMU behind, however deep they
 * were started (verilator -> make -> g++ -> cc1plus). Linux only: the tree is read from /proc.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Every living (not zombie) descendant of `root`, parents before their children. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // ended while we read
    }
    // The command name may hold spaces and parentheses; the fields after the last ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') continue;
    const ppid = Number(fields[1]);
    const list = children.get(ppid);
    if (list === undefined) children.set(ppid, [Number(name)]);
    else list.push(Number(name));
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * Kills every descendant of `root`. They are stopped first, round after round until no new one
 * appears, and only then killed: a parent killed before its children are known would leave them
 * to init, out of reach, and a running one could start another while the tree is read.
 * Returns how many were killed.
 */
export function killDescendants(root: number = process.pid): number {
  const seen = new Set<number>();
  for (let round = 0; round < 50; round++) {
    const fresh = descendants(root).filter((p) => !seen.has(p));
    if (fresh.length === 0) break;
    for (const p of fresh) {
      seen.add(p);
      signal(p, 'SIGSTOP');
    }
  }
  for (const p of seen) signal(p, 'SIGKILL');
  return seen.size;
}

/** The parent of `pid` and the command line of `pid`, or undefined once it has ended. */
function parentAndCommand(pid: number): { ppid: number; command: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    return { ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), command };
  } catch {
    return undefined;
  }
}

/**
 * The processes between this one and the npm (npx) that started it, that npm included: [parent,
 * ..., npm]; [parent] when no npm is found within `depth` levels.
 */
export function chainToNpm(depth = 4): number[] {
  const chain: number[] = [];
  for (let pid = process.ppid; pid > 1 && chain.length < depth; ) {
    chain.push(pid);
    const p = parentAndCommand(pid);
    if (p === undefined) break;
    if (/(^|[\s/])np[mx](-cli\.js)?(\s|$)/.test(p.command)) return chain;
    pid = p.ppid;
  }
  return chain.slice(0, 1);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
