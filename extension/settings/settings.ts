// Accord's settings, read and validated in one place. An invalid value never
// breaks anything: it is reported once and the default is used.
import * as vscode from 'vscode';

export interface AgentDefinition {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Start from the extension host's whole environment instead of the minimal one (agents/agentEnv.ts). */
  inheritEnv: boolean;
}

export const BUNDLED_AGENT_NAME = 'Accord';
export type NotificationMode = 'whenUnfocused' | 'always' | 'never';
export const REASONING_EFFORTS = ['default', 'off', 'low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

const section = () => vscode.workspace.getConfiguration('accord');

export function configuredAgents(report: (problem: string) => void = () => {}): AgentDefinition[] {
  const raw = section().get<unknown>('agents', []);
  if (!Array.isArray(raw)) {
    report('"accord.agents" must be a list of agents; it was ignored.');
    return [];
  }
  const agents: AgentDefinition[] = [];
  raw.forEach((entry: unknown, index) => {
    const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const name = typeof e.name === 'string' ? e.name.trim() : '';
    const command = typeof e.command === 'string' ? e.command.trim() : '';
    if (!name || !command) return report(`"accord.agents" entry ${index + 1} needs a "name" and a "command"; it was ignored.`);
    if (name === BUNDLED_AGENT_NAME || agents.some((a) => a.name === name)) {
      return report(`"accord.agents" has more than one agent named "${name}"; only the first is used.`);
    }
    const args = Array.isArray(e.args) ? e.args.filter((a): a is string => typeof a === 'string') : [];
    const env = typeof e.env === 'object' && e.env !== null && !Array.isArray(e.env)
      ? Object.fromEntries(Object.entries(e.env).filter((kv): kv is [string, string] => typeof kv[1] === 'string'))
      : {};
    agents.push({ name, command, args, env, inheritEnv: e.inheritEnv === true });
  });
  return agents;
}

export function defaultAgentName(): string {
  return section().get<string>('defaultAgent', BUNDLED_AGENT_NAME) || BUNDLED_AGENT_NAME;
}

export function modelSetting(): string {
  return (section().get<string>('model', '') ?? '').trim();
}

export function reasoningEffort(): ReasoningEffort {
  const v = section().get<string>('reasoningEffort', 'default');
  return (REASONING_EFFORTS as readonly string[]).includes(v ?? '') ? (v as ReasoningEffort) : 'default';
}

/** The bundled agent's modes (agent/core/modes.ts). */
export const BUNDLED_MODES = ['auto', 'ask'] as const;
export type BundledMode = (typeof BUNDLED_MODES)[number];

/**
 * The mode new sessions of the bundled agent start in. `auto` by default:
 * the agent's own default is `ask` (for clients that review nothing), but
 * this extension reviews every change before it lands, so a question before
 * each edit of the agent's copy would ask twice.
 */
export function bundledAgentMode(): BundledMode {
  const v = section().get<string>('mode', 'auto');
  return (BUNDLED_MODES as readonly string[]).includes(v ?? '') ? (v as BundledMode) : 'auto';
}

export function hideThoughts(): boolean {
  return section().get<boolean>('hideThoughts', false) === true;
}

export function approvalTimeoutMinutes(): number {
  const v = section().get<number>('approvalTimeoutMinutes', 10);
  return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.min(v, 1440) : 10;
}

export function notificationMode(): NotificationMode {
  const v = section().get<string>('notifications', 'whenUnfocused');
  return v === 'always' || v === 'never' ? v : 'whenUnfocused';
}
