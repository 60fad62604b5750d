// The plain CommandRunner: one argv, no shell, its own process group so a
// cancel or timeout reaches every process it started, and an environment
// without the agent's credentials. The sandbox supplies a confining runner
// with the same interface.
import type { CommandOptions, CommandOutcome, CommandRunner } from '../tools/tool';
import { commandEnv } from './commandEnv';
import { spawnCollect } from './spawnCollect';

export class ProcessRunner implements CommandRunner {
  /** @param killGraceMs how long a process has to exit after SIGTERM before SIGKILL. */
  constructor(private readonly killGraceMs = 2000) {}

  run(argv: string[], options: CommandOptions): Promise<CommandOutcome> {
    return spawnCollect({ ...options, argv, env: commandEnv(process.env, options.envChanges), killGraceMs: this.killGraceMs });
  }
}
