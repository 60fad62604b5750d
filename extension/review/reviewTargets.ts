// Which review a command is about: its argument (a review id, a review
// URI, a Changes view node) or, from the keyboard, the active editor and its
// cursor; and moving the cursor between the hunks of a review editor.
import * as vscode from 'vscode';
import type { FileReview } from './fileReview';
import type { ReviewStore } from './reviewStore';
import { reviewOf } from './reviewDocuments';
import { pendingHunks } from './reviewSides';
import type { ChangesNode } from './changesTree';

/** The review a command is about: an id, a review URI (string or Uri), a tree node, or the active editor. */
export function fileFrom(store: ReviewStore, arg: unknown): FileReview | undefined {
  if (typeof arg === 'string') return store.get(arg) ?? reviewOf(store, vscode.Uri.parse(arg))?.file;
  if (arg instanceof vscode.Uri) return reviewOf(store, arg)?.file;
  if (isNode(arg) && arg.type === 'file') return store.get(arg.fileId);
  const active = vscode.window.activeTextEditor?.document.uri;
  return active && reviewOf(store, active)?.file;
}

export function filesFrom(store: ReviewStore, arg: unknown): FileReview[] {
  const file = fileFrom(store, arg);
  return file ? [file] : [];
}

/** The reviews under a Changes view node: a session's, a turn's, or one file's. */
export function groupFiles(store: ReviewStore, node: unknown): FileReview[] {
  if (!isNode(node)) return [];
  if (node.type === 'session') return store.inSession(node.sessionId);
  if (node.type === 'turn') return store.inTurn(node.sessionId, node.turnId);
  return filesFrom(store, node);
}

export function isNode(value: unknown): value is ChangesNode {
  return typeof value === 'object' && value !== null && 'type' in value;
}

/** The pending hunk the keyboard acts on in the active review editor. */
export function hunkAtCursor(store: ReviewStore): { file: FileReview; index: number } | undefined {
  const editor = vscode.window.activeTextEditor;
  const review = editor && reviewOf(store, editor.document.uri);
  if (!editor || !review) return undefined;
  const line = editor.selection.active.line;
  const hunks = pendingHunks(review.file, review.side).filter((h) => h.state === 'pending');
  // Under the cursor, else the next one below it; never one the person scrolled past.
  const hit = hunks.find((h) => line >= h.start && line < h.start + Math.max(1, h.lines)) ?? hunks.find((h) => h.start >= line);
  return hit && { file: review.file, index: hit.index };
}

/** Moves the cursor to the next (or previous) hunk of the active review editor, wrapping around. */
export function moveToHunk(store: ReviewStore, direction: 1 | -1): void {
  const editor = vscode.window.activeTextEditor;
  const review = editor && reviewOf(store, editor.document.uri);
  if (!editor || !review) return;
  const starts = pendingHunks(review.file, review.side).map((h) => h.start);
  if (starts.length === 0) return;
  const line = editor.selection.active.line;
  const next =
    direction === 1
      ? (starts.find((s) => s > line) ?? starts[0]!)
      : ([...starts].reverse().find((s) => s < line) ?? starts[starts.length - 1]!);
  const position = new vscode.Position(Math.min(next, editor.document.lineCount - 1), 0);
  editor.selection = new vscode.Selection(position, position);
  editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
