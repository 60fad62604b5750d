// A stand-in agent for runCommand.test.ts: starts a command that never ends,
// prints the command's pid once it runs, then exits without cancelling it.
import { ProcessRunner } from '../../../agent/exec/processRunner';

const root = process.argv[2]!;
void new ProcessRunner().run([process.execPath, '-e', 'console.log(process.pid); setInterval(() => {}, 1000)'], {
  cwd: root,
  envChanges: {},
  timeoutMs: 600_000,
  signal: new AbortController().signal,
  onOutput(chunk) {
    process.stdout.write(chunk);
    process.exit(0);
  },
  maxOutputBytes: 1000,
});
