// What the bundled agent says about a new session that the person must know
// before relying on it: its policy file is broken (so everything asks), its
// MCP servers failed. The text comes from the agent, so it is hostile: shown
// only in a modal's plain-text detail, line by line in the neutral form
// (invisible and bidi characters as escapes), and capped.
import { agentLine } from '../text/agentText';

export interface SessionNotice {
  /** Fixed wording (never the agent's text): safe for a notification, which renders links. */
  headline: string;
  /** The agent's explanation, cleaned for a modal's plain-text detail. */
  detail: string;
}

const MAX_DETAIL_LINES = 20;
const MAX_LINE_CHARS = 300;

export function plainDetail(text: string): string {
  const lines = text.split(/\r?\n/);
  const shown = lines.slice(0, MAX_DETAIL_LINES).map((line) => agentLine(line, MAX_LINE_CHARS));
  return lines.length > MAX_DETAIL_LINES ? [...shown, `… ${lines.length - MAX_DETAIL_LINES} more lines`].join('\n') : shown.join('\n');
}

const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** The notices in a `session/new` response's `_meta`, most important first. */
export function sessionNotices(meta: unknown): SessionNotice[] {
  if (meta === null || typeof meta !== 'object') return [];
  const record = meta as Record<string, unknown>;
  const notices: SessionNotice[] = [];
  const policyError = textOf(record['accord/policyError']);
  if (policyError) {
    notices.push({ headline: 'Accord: the project policy (.accord/policy.json) is not valid, so the agent asks before every action until it is fixed.', detail: plainDetail(policyError) });
  }
  const mcpErrors = Array.isArray(record['accord/mcpErrors']) ? record['accord/mcpErrors'].flatMap((e) => (textOf(e) ? [e as string] : [])) : [];
  if (mcpErrors.length > 0) {
    notices.push({ headline: `Accord: ${mcpErrors.length === 1 ? 'an MCP server' : `${mcpErrors.length} MCP servers`} from the project policy could not be started.`, detail: plainDetail(mcpErrors.join('\n\n')) });
  }
  return notices;
}

/**
 * The bundled agent answers `session/new` before the session's private copy
 * exists; what it found while setting the session up (the same keys) comes
 * later, as the `_meta` of a `session_info_update` naming the workspace.
 */
export function setupMetaOf(update: unknown): Record<string, unknown> | undefined {
  if (update === null || typeof update !== 'object') return undefined;
  const { sessionUpdate, _meta: meta } = update as { sessionUpdate?: unknown; _meta?: unknown };
  if (sessionUpdate !== 'session_info_update' || meta === null || typeof meta !== 'object') return undefined;
  return 'accord/workspace' in meta ? (meta as Record<string, unknown>) : undefined;
}
