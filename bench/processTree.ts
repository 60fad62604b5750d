// Resident memory of process trees, from /proc (Linux; 0 elsewhere).
import { readdirSync, readFileSync } from 'node:fs';

/** Sum of VmRSS over `roots` and all their descendants, in bytes. */
export function treeRssBytes(roots: number[]): number {
  return treeSum(roots, (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`) ?? '')?.[1] ?? 0) * 1024);
}

/**
 * Sum of the proportional set size (Pss in smaps_rollup) over the same tree,
 * in bytes: a page shared by n processes counts 1/n in each, so the node
 * binary's file pages, mapped by a bridge and its daemon alike, count once in
 * the pair's total (less when other node processes on the machine map them too).
 */
export function treePssBytes(roots: number[]): number {
  return treeSum(roots, (pid) => Number(/^Pss:\s+(\d+) kB/m.exec(read(`/proc/${pid}/smaps_rollup`) ?? '')?.[1] ?? 0) * 1024);
}

function treeSum(roots: number[], bytesOf: (pid: number) => number): number {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    // The command name may hold spaces and parentheses: the ppid is the 2nd field after the last ')'.
    const ppid = Number(stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isFinite(ppid)) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const seen = new Set<number>();
  const queue = roots.filter((pid) => pid > 0);
  let total = 0;
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    total += bytesOf(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process exited meanwhile
  }
}
