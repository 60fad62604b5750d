// What the panel keeps across a webview reload through VS Code's
// getState/setState: the person's unsent prompt and what they opened or
// closed. The transcript itself comes back from the extension's journal.
import * as z from 'zod/mini';
import { PromptMention } from '../protocol';
import type { UiState } from '../view/context';

const MAX_KEYS = 500;
const keys = z.array(z.string().check(z.maxLength(512))).check(z.maxLength(MAX_KEYS));

const SavedState = z.object({
  v: z.literal(1),
  draft: z.string().check(z.maxLength(200_000)),
  mentions: z.array(PromptMention).check(z.maxLength(200)),
  ui: z.object({
    expandedTools: keys,
    collapsedTools: keys,
    openThoughts: keys,
    closedThoughts: keys,
    openChildren: keys,
    showAll: keys,
    historyOpen: z.boolean(),
    planOpen: z.boolean(),
    changesOpen: z.boolean(),
  }),
});
export type SavedState = z.infer<typeof SavedState>;

/** A saved state from an earlier load of this panel, or undefined when there is none or it is not ours. */
export function parseSaved(raw: unknown): SavedState | undefined {
  const parsed = SavedState.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

const SETS = ['expandedTools', 'collapsedTools', 'openThoughts', 'closedThoughts', 'openChildren', 'showAll'] as const;

export function saveState(draft: string, mentions: PromptMention[], ui: UiState): SavedState {
  const sets = Object.fromEntries(SETS.map((k) => [k, [...ui[k]].slice(-MAX_KEYS)])) as Record<(typeof SETS)[number], string[]>;
  return { v: 1, draft: draft.slice(0, 200_000), mentions: mentions.slice(0, 200), ui: { ...sets, historyOpen: ui.historyOpen, planOpen: ui.planOpen, changesOpen: ui.changesOpen } };
}

export function restoreUi(saved: SavedState, ui: UiState): void {
  for (const k of SETS) ui[k] = new Set(saved.ui[k]);
  ui.historyOpen = saved.ui.historyOpen;
  ui.planOpen = saved.ui.planOpen;
  ui.changesOpen = saved.ui.changesOpen;
}
