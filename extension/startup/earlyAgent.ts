// The bundled agent, started by extension.ts before the rest of the extension
// (the ACP SDK, zod and every schema: ~100 ms of evaluation) has been loaded,
// so the agent's own start (a Node process, the daemon's if none runs) runs
// meanwhile instead of after it (issue 17: opening the view to "connected").
// The AgentHost adopts this process when it starts the bundled agent with the
// same command; otherwise it is stopped and a new one started. Whatever the
// process does before it is adopted (an error, an exit, output) is kept.
import { spawnAgent, type AgentChild, type AgentCommand } from '../agents/agentCommand';

export interface EarlyAgent {
  readonly command: AgentCommand;
  readonly child: AgentChild;
  /** The spawn failed (e.g. ENOENT) before the process was adopted. */
  readonly error: () => Error | undefined;
  /** The process ended before it was adopted. */
  readonly exit: () => { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** What it printed on stderr so far (its first 64 kB); from now on the caller reads stderr itself. */
  readonly takeStderr: () => string;
}

/** Enough for the reason an agent refuses to start; the rest waits in the pipe (nothing is read past it). */
const MAX_KEPT_STDERR = 64 * 1024;

export function startEarly(command: AgentCommand): EarlyAgent {
  const child = spawnAgent(command);
  let error: Error | undefined;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.once('error', (e) => (error = e));
  child.once('exit', (code, signal) => (exit = { code, signal }));
  // Read from the start: Node drains a child's unread stderr when it exits, and why it exited is in there.
  const kept: Buffer[] = [];
  let size = 0;
  const keep = (chunk: Buffer) => {
    kept.push(chunk);
    size += chunk.length;
    if (size >= MAX_KEPT_STDERR) child.stderr?.pause();
  };
  child.stderr?.on('data', keep);
  const takeStderr = () => {
    child.stderr?.off('data', keep);
    return Buffer.concat(kept).toString('utf8');
  };
  return { command, child, error: () => error, exit: () => exit, takeStderr };
}
