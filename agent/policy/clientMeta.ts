// An editor may not widen what the project allows. A client that asks for a
// "yolo"/auto-approve/bypass mode through `_meta` (or a session mode) is
// refused with a message saying who can grant standing permissions — unless
// the person launching the agent already granted exactly that
// (`--always-approve`): then the request asks for nothing more.

const wideningKeys = /^(yolo(mode)?|auto[-_]?approve|always[-_]?approve|bypass[-_]?permissions|dangerously[-_a-z]*|skip[-_]?permissions|trust[-_]?all|allow[-_]?all)$/i;

/**
 * The keys whose meaning is what `--always-approve` grants (every "ask"
 * becomes allow; deny rules and the sandbox stay). "bypass", "dangerously",
 * "skip" and "trust all" may mean more (no sandbox, no deny rules) and stay
 * refused even then.
 */
const alwaysApproveKeys = /^(yolo(mode)?|auto[-_]?approve|always[-_]?approve)$/i;

/** What the launch (the process's or this connection's flags) already grants the sessions it makes. */
export interface LaunchGrants {
  /** `accord acp --always-approve` (the process, or the daemon connection). */
  alwaysApprove?: boolean;
}

function refusal(key: string): string {
  return (
    `The editor asked for "${key}", which would skip approvals. Accord refuses it: an editor cannot widen what a project allows. ` +
    'Standing permissions are written by a person in .accord/policy.json. For automation, start the agent as `accord acp --always-approve` ' +
    '(every question is answered yes; deny rules and the sandbox still apply); a client may then send {"yoloMode": true}.'
  );
}

/**
 * The refusal message when `meta` (an ACP `_meta` object) asks to turn
 * approvals off at any depth, in objects or arrays, else undefined. A key
 * that is present with `false` is harmless and ignored; `true` for an
 * always-approve key is accepted when `granted.alwaysApprove`. Walked with an
 * explicit stack, so no nesting is too deep to look at.
 */
export function refuseClientWidening(meta: unknown, granted: LaunchGrants = {}): string | undefined {
  const stack: unknown[] = [meta];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    for (const [key, nested] of Object.entries(value as Record<string, unknown>)) {
      if (wideningKeys.test(key) && nested !== false && nested !== null && nested !== undefined) {
        // Asking for exactly what the launch granted widens nothing.
        if (!(granted.alwaysApprove === true && nested === true && alwaysApproveKeys.test(key))) return refusal(key);
        continue;
      }
      // A mode named by value (`"permissionMode": "bypassPermissions"`) is the same request.
      if (typeof nested === 'string' && wideningKeys.test(nested)) return refusal(`${key}: ${nested}`);
      stack.push(nested);
    }
  }
  return undefined;
}

/**
 * The refusal for MCP servers sent in `session/new`: servers run code, so
 * they are declared where a person reviews them, not by the editor. Undefined
 * when the list is empty.
 */
export function refuseSessionMcpServers(servers: readonly { name?: string }[] | undefined): string | undefined {
  if (!servers || servers.length === 0) return undefined;
  const names = servers.map((s) => s.name ?? '(unnamed)').join(', ');
  return (
    `Accord does not start MCP servers sent by the editor (${names}). ` +
    'Declare them in .accord/policy.json under "mcpServers" ({ "name": "...", "command": ["program", "arg"] }), where they are reviewed with the project.'
  );
}
