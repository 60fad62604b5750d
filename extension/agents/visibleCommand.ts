// Runs a command a person agreed to (an npm install) in a VS Code terminal they
// can watch, and tells the caller how it ended. The output is the command's
// own (npm's), not an agent's, but it still goes to the terminal as plain text
// with line endings fixed for the terminal.
import { spawn } from 'node:child_process';
import * as vscode from 'vscode';

export interface VisibleRun {
  terminal: vscode.Terminal;
  /** The exit code (null when killed, or when the person closed the terminal first). */
  done: Promise<number | null>;
}

export function runVisibly(title: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): VisibleRun {
  const write = new vscode.EventEmitter<string>();
  const close = new vscode.EventEmitter<number | void>();
  let resolveDone!: (code: number | null) => void;
  const done = new Promise<number | null>((resolve) => (resolveDone = resolve));
  let child: ReturnType<typeof spawn> | undefined;
  const pty: vscode.Pseudoterminal = {
    onDidWrite: write.event,
    onDidClose: close.event,
    open: () => {
      write.fire(`\x1b[2m$ ${[command, ...args].join(' ')}\x1b[0m\r\n`);
      // No shell: the argv is ours and goes to the program as it is.
      child = spawn(command, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
      const out = (chunk: Buffer) => write.fire(chunk.toString('utf8').replace(/\r?\n/g, '\r\n'));
      child.stdout?.on('data', out);
      child.stderr?.on('data', out);
      child.once('error', (error) => {
        write.fire(`\r\n${error.message}\r\n`);
        resolveDone(null);
      });
      child.once('close', (code) => {
        write.fire(`\r\n\x1b[2m[${code === 0 ? 'done' : `exited with code ${code}`}]\x1b[0m\r\n`);
        resolveDone(code);
      });
    },
    close: () => {
      if (child && child.exitCode === null) child.kill();
      resolveDone(null);
    },
  };
  const terminal = vscode.window.createTerminal({ name: title, pty });
  terminal.show(true);
  void done.finally(() => {
    write.dispose();
    close.dispose();
  });
  return { terminal, done };
}
