// Session modes: how much of the work runs without a question. Both modes
// keep the project's policy (deny rules, ask rules, built-in protections) and
// the sandbox; they differ only in edits of the session's own isolated copy,
// which the person reviews before anything lands in their tree.
//
// The protocol adapters expose them as they can: v1 as `modes` with
// `session/set_mode` and `current_mode_update` plus a `category: "mode"`
// config option, v2 as the config option only. Both go through this module.

export type ModeId = 'ask' | 'auto';

export interface ModeInfo {
  id: ModeId;
  name: string;
  description: string;
}

export const DEFAULT_MODE: ModeId = 'ask';

export const MODES: readonly ModeInfo[] = [
  { id: 'ask', name: 'Ask', description: 'Asks before every edit and command the project policy does not allow.' },
  {
    id: 'auto',
    name: 'Auto',
    description: "Edits in the session's own copy run without asking (you review every change before it lands); commands still ask. Deny rules always apply.",
  },
];

/** The config option id (and v2's only surface) for the mode. */
export const MODE_CONFIG_ID = 'mode';

export function isModeId(value: unknown): value is ModeId {
  return MODES.some((m) => m.id === value);
}

/** A session's mode; settings written before modes existed are in the default. */
export function modeOf(settings: { mode?: ModeId }): ModeId {
  return settings.mode ?? DEFAULT_MODE;
}

/**
 * Whether a file change inside the session's isolated copy may run without a
 * question (a policy rule that says ask or deny still wins). Never in place:
 * there the person's own files are the workspace.
 */
export function copyEditsRunUnasked(mode: ModeId, inPlace: boolean): boolean {
  return mode === 'auto' && !inPlace;
}

export class ModeError extends Error {}

/** The mode named by `value`, or a ModeError a person can act on. */
export function parseMode(value: unknown): ModeId {
  if (isModeId(value)) return value;
  throw new ModeError(`${JSON.stringify(value)} is not a mode of this agent. Choose one of: ${MODES.map((m) => m.id).join(', ')}.`);
}
