// How an agent process is started: its command line and environment, and the
// spawn itself. No ACP here (and nothing heavy): extension.ts starts the
// bundled agent with it before the rest of the extension has been evaluated
// (extension/startup/earlyAgent.ts).
import { spawn, type IOType } from 'node:child_process';
import * as vscode from 'vscode';
import { modelSetting, reasoningEffort } from '../settings/settings';
import { policyPassList } from './policyPass';
import { agentEnvironment } from './agentEnv';
import { DaemonLink, type AgentChild } from './daemonLink';
import { spawnInGroup } from './agentGroup';

export type { AgentChild } from './daemonLink';

export interface AgentCommand {
  command: string;
  args: string[];
  /** The agent's whole environment (agents/agentEnv.ts builds it); nothing of the extension host's is added. */
  env: Record<string, string>;
  cwd?: string;
  /**
   * The bundled agent with the daemon on: instead of a bridge process
   * (`<cli> acp`, which would only relay stdio to the daemon's socket), the
   * extension connects to the daemon itself (agents/daemonLink.ts).
   */
  direct?: boolean;
  /** Started in a process group of its own, stopped as a group (a third-party agent and whatever it launched: agents/agentGroup.ts). */
  group?: boolean;
}

/**
 * The bundled agent: `dist/agent.js acp` on VS Code's own Node runtime. With
 * --durable-requests its approvals outlive the turn, a window reload and a
 * VS Code restart: the turn ends `waiting` and the answer goes back on the
 * next prompt (extension/approvals/durableAnswers.ts).
 */
export function bundledAgentCommand(extensionUri: vscode.Uri): AgentCommand {
  return {
    command: process.execPath,
    args: [vscode.Uri.joinPath(extensionUri, 'dist', 'agent.js').fsPath, 'acp', '--durable-requests'],
    env: { ELECTRON_RUN_AS_NODE: '1' },
    // ACCORD_AGENT_BRIDGE=process (the extension host's environment) keeps the bridge process: to compare, or if the direct link misbehaves.
    direct: process.env.ACCORD_AGENT_BRIDGE !== 'process',
  };
}

/** The bundled agent's full command: the settings it reads, the stored provider keys, the policy's passed variables. */
export async function bundledAgentSpawnCommand(extensionUri: vscode.Uri, apiKeyEnv: () => Promise<Record<string, string>>, cwd: string | undefined): Promise<AgentCommand> {
  const base = bundledAgentCommand(extensionUri);
  const own: Record<string, string> = { ...base.env };
  const model = modelSetting();
  if (model) own.ACCORD_MODEL = model;
  const effort = reasoningEffort();
  if (effort !== 'default') own.ACCORD_REASONING_EFFORT = effort;
  const [secrets, policyPass] = await Promise.all([apiKeyEnv(), policyPassList(cwd)]);
  const env = agentEnvironment({ host: process.env, kind: 'bundled', own, secrets, policyPass });
  return { ...base, env, cwd };
}

type StdioPipes = [IOType, IOType, IOType];

/** Starts the agent's process with its stdio piped (the ACP connection is made on it afterwards), or the direct link to the daemon. */
export function spawnAgent(agent: AgentCommand): AgentChild {
  if (agent.direct && !agent.args.includes('--no-daemon')) return new DaemonLink(agent);
  const options = { cwd: agent.cwd, env: agent.env, stdio: ['pipe', 'pipe', 'pipe'] satisfies StdioPipes };
  return agent.group ? spawnInGroup(agent.command, agent.args, options) : spawn(agent.command, agent.args, options);
}

/** The same process would be started: command line, working directory and every variable. */
export function sameCommand(a: AgentCommand, b: AgentCommand): boolean {
  const envA = Object.entries(a.env).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  const envB = Object.entries(b.env).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return a.command === b.command && a.cwd === b.cwd && Boolean(a.direct) === Boolean(b.direct) && JSON.stringify(a.args) === JSON.stringify(b.args) && JSON.stringify(envA) === JSON.stringify(envB);
}
