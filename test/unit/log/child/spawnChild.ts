// Starts logChild.ts in a real second Node process and reads its stdout lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface Child {
  process: ChildProcess;
  /** Resolves with the first stdout line (from now on) that `match` accepts. */
  waitFor(match: (line: string) => boolean): Promise<string>;
  lines: string[];
  kill9(): Promise<void>;
}

export function startChild(mode: 'hold' | 'append' | 'open', dataDir: string, id: string): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'logChild.ts'), mode, dataDir, id], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiters: Array<{ match: (line: string) => boolean; resolve: (line: string) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.match(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = once(child, 'exit');
  return {
    process: child,
    lines,
    waitFor: (match) =>
      new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        void exited.then(() => reject(new Error(`child exited before printing the expected line; it printed: ${lines.join(' | ')}`)));
      }),
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
