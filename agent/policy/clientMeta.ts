// An editor may not widen what the project allows. A client that asks for a
// "yolo"/auto-approve/bypass mode through `_meta` (or a session mode) is
// refused with a message saying who can grant standing permissions.

const wideningKeys = /^(yolo(mode)?|auto[-_]?approve|always[-_]?approve|bypass[-_]?permissions|dangerously[-_a-z]*|skip[-_]?permissions|trust[-_]?all|allow[-_]?all)$/i;

/**
 * The refusal message when `meta` (an ACP `_meta` object, or any nested
 * object in it) asks to turn approvals off, else undefined. A key that is
 * present with `false` is harmless and ignored.
 */
export function refuseClientWidening(meta: unknown, depth = 0): string | undefined {
  if (meta === null || typeof meta !== 'object' || depth > 3) return undefined;
  for (const [key, value] of Object.entries(meta as Record<string, unknown>)) {
    if (wideningKeys.test(key) && value !== false && value !== null && value !== undefined) {
      return (
        `The editor asked for "${key}", which would skip approvals. Accord refuses it: an editor cannot widen what a project allows. ` +
        'Standing permissions are written by a person in .accord/policy.json; for unattended runs, the person launching the agent can pass --always-approve.'
      );
    }
    const nested = refuseClientWidening(value, depth + 1);
    if (nested) return nested;
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
