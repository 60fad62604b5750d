// What every view function gets: the store, the panel-only UI state, and the
// two ways to act (post to the extension, re-render).
import type { WebviewMessage } from '../protocol';
import type { ChatStore } from '../state/store';

export interface UiState {
  expandedTools: Set<string>;
  collapsedTools: Set<string>;
  openThoughts: Set<string>;
  closedThoughts: Set<string>;
  openChildren: Set<string>;
  showAll: Set<string>;
  historyOpen: boolean;
  planOpen: boolean;
  changesOpen: boolean;
}

export interface ViewContext {
  store: ChatStore;
  ui: UiState;
  post(message: WebviewMessage): void;
  /** Re-render after a UI change (expand, collapse, show all): every visible item re-renders. */
  update(): void;
  /** Bumped by update(); part of each item's render guard. */
  uiRev(): number;
  /** Keep the transcript pinned to its end (after the person sends a prompt). */
  followBottom(): void;
}

export function newUiState(): UiState {
  return {
    expandedTools: new Set(),
    collapsedTools: new Set(),
    openThoughts: new Set(),
    closedThoughts: new Set(),
    openChildren: new Set(),
    showAll: new Set(),
    historyOpen: false,
    planOpen: true,
    changesOpen: false,
  };
}

/** Add or remove `key`, for the expand/collapse toggles. */
export function toggle(set: Set<string>, key: string, on: boolean): void {
  if (on) set.add(key);
  else set.delete(key);
}
