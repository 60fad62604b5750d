// Whether a test's process is still running.
import { readFileSync } from 'node:fs';

/** Alive and not a zombie (a killed process whose parent is gone may stay unreaped in a container). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform === 'linux' ? false : true;
  }
}
