// Resident memory of process trees, from /proc (Linux; 0 elsewhere).
import { readdirSync, readFileSync } from 'node:fs';

/** Sum of VmRSS over `roots` and all their descendants, in bytes. */
export function treeRssBytes(roots: number[]): number {
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
    const kb = /VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`) ?? '')?.[1];
    total += Number(kb ?? 0) * 1024;
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
