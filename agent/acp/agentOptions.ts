// What the ACP agent is built from (createAccordAgent's options) and the
// environment settings it reads.
import { RequestError, type AgentCapabilities } from '@agentclientprotocol/sdk/unstable';
import type { PermissionGate } from '../core/gate';
import type { Session } from '../core/session';
import type { SessionStore } from '../core/sessionStore';
import type { AvailableCommand } from '../core/updates';
import type { Env } from '../models/credentials';
import type { SessionWorkspaces } from '../session/workspaces';
import type { CommandRunner, Tool } from '../tools/tool';
import type { ClientFeatureBook } from './clientView';
import type { DurableRequests } from './durablePermissions';
import type { SessionPersistence } from './sessionPersistence';
import type { SessionSharing } from './sharing';

export interface AccordAgentOptions {
  env: Env;
  tools: readonly Tool<any>[];
  commands: CommandRunner;
  gate?: PermissionGate;
  store?: SessionStore;
  /** Cap on model requests per turn; default ACCORD_MAX_TURN_REQUESTS or 50. */
  maxTurnRequests?: number;
  /** Retries per model request (models/retry.ts honours retry-after); default 2. */
  maxRetries?: number;
  /** Drop a model stream silent this long; default ACCORD_STREAM_IDLE_TIMEOUT_MS or 5 minutes. */
  streamIdleTimeoutMs?: number;
  /**
   * Capabilities added by handlers registered on the returned app (e.g. the
   * session log's `loadSession`, `sessionCapabilities.list`). Advertise only
   * what those handlers really serve.
   */
  extraCapabilities?: Pick<AgentCapabilities, 'loadSession' | 'sessionCapabilities'>;
  /** Records sessions (the session log); without it sessions live in memory only. */
  persistence?: SessionPersistence;
  /**
   * Per-session isolated workspaces (sandboxed runner, policy gate, `_accord/...`
   * review methods). Without it sessions work directly in their cwd with
   * `commands` and `gate`.
   */
  isolation?: SessionWorkspaces;
  /** Receives the function listing a session's commands (built-ins and declared runs), for the session log's load. */
  commandsFor?(list: (session: Session) => AvailableCommand[]): void;
  /** `--durable-requests`: approvals do not block the turn (see durablePermissions.ts); absent: they do. */
  durable?: DurableRequests;
  /** Child sessions one session runs at once; default ACCORD_MAX_CHILDREN or 3. */
  maxChildren?: number;
  /** Auto-compaction threshold as a share of the context window; default ACCORD_COMPACT_AT (percent) or 80%. */
  compactAt?: number;
  /** Filled at `initialize`: what this connection's client can read (shared with the session log's load). */
  clientFeatures?: ClientFeatureBook;
  /**
   * Sessions shared with other connections (the daemon): updates, approvals
   * and session lifetime go through this connection's view. Without it the
   * connection owns its sessions.
   */
  sharing?: SessionSharing;
}

/** `session/new` `_meta` key choosing where a session works: "isolated" (default) or "in-place". */
export const WORKSPACE_META_KEY = 'accord/workspace';

export function wantsInPlace(meta: unknown): boolean {
  const value = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>)[WORKSPACE_META_KEY] : undefined;
  if (value === undefined || value === 'isolated') return false;
  if (value === 'in-place') return true;
  throw RequestError.invalidParams({ [WORKSPACE_META_KEY]: value }, `_meta["${WORKSPACE_META_KEY}"] must be "isolated" or "in-place"; got ${JSON.stringify(value)}.`);
}


export const NO_MODEL_MESSAGE = [
  'No model is configured, so Accord cannot answer yet. Configure one of these, then send your message again:',
  '- set ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY in the environment Accord starts from (optionally ACCORD_MODEL=provider:model, e.g. anthropic:claude-sonnet-4-5);',
  '- in VS Code, use a model VS Code offers (GitHub Copilot): pick it in the model picker;',
  '- run `accord login anthropic` (or `accord login openai`) in a terminal to store a key;',
  '- in VS Code, run the command "Accord: Set API Key";',
  '- or start a local OpenAI-compatible server (Ollama on 127.0.0.1:11434, LM Studio on :1234, llama.cpp on :8080), or set ACCORD_MODEL=openai-compatible:http://host:port/v1#model.',
].join('\n');

/** ACCORD_COMPACT_AT: a percentage in (0, 100]. */
export function compactShare(text: string | undefined): number | undefined {
  const n = Number(text);
  return text && Number.isFinite(n) && n > 0 && n <= 100 ? n / 100 : undefined;
}

export function positiveInt(text: string | undefined): number | undefined {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
