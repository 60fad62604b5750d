// The bundled agent, started by extension.ts before the rest of the extension
// (the ACP SDK, zod and every schema: ~100 ms of evaluation) has been loaded,
// so the agent's own start (a Node process, the daemon's if none runs) runs
// meanwhile instead of after it (issue 17: opening the view to "connected").
// The AgentHost adopts this process when it starts the bundled agent with the
// same command; otherwise it is stopped and a new one started. Whatever the
// process does before it is adopted (an error, an exit, output) is kept.
import type { ChildProcess } from 'node:child_process';
import { spawnAgent, type AgentCommand } from '../agents/agentCommand';

export interface EarlyAgent {
  readonly command: AgentCommand;
  readonly child: ChildProcess;
  /** The spawn failed (e.g. ENOENT) before the process was adopted. */
  readonly error: () => Error | undefined;
  /** The process ended before it was adopted. */
  readonly exit: () => { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

export function startEarly(command: AgentCommand): EarlyAgent {
  const child = spawnAgent(command);
  let error: Error | undefined;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.once('error', (e) => (error = e));
  child.once('exit', (code, signal) => (exit = { code, signal }));
  return { command, child, error: () => error, exit: () => exit };
}
