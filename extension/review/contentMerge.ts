// Whole-content comparison and the three-way merge of whole contents, for the
// decisions that land a file at once (binary, move, addition, deletion) and
// for the sources that ask whether the agent's text changed.
import type { Content } from './fileReview';
import { merge3 } from './merge3';
import { decodeText } from './hunks';

export function sameContent(a: Content, b: Content): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Three-way on whole contents: `landed` is what the review last put there,
 * `current` what is there now, `wanted` what the decisions ask for.
 */
export function mergeContent(landed: Content, current: Content, wanted: Content): { content: Content; conflict?: string } {
  if (sameContent(current, landed) || sameContent(current, wanted)) return { content: wanted };
  if (sameContent(landed, wanted)) return { content: current };
  const texts = [landed, current, wanted].map((c) => (c === null ? undefined : decodeText(c)));
  const [landedText, currentText, wantedText] = texts;
  if (landed === null || current === null || wanted === null) {
    return { content: current, conflict: 'the file was created or deleted outside the review since the change was made; nothing was written' };
  }
  if (landedText === undefined || currentText === undefined || wantedText === undefined) {
    return { content: current, conflict: 'the binary file changed since the change was made; nothing was written' };
  }
  const merged = merge3(landedText, currentText, wantedText);
  if (!merged.clean) {
    const lines = merged.conflicts.map((c) => c.ancestorStart + 1).join(', ');
    return { content: current, conflict: `your own edits touch the same lines (near line ${lines}); nothing was written` };
  }
  return { content: new TextEncoder().encode(merged.text) };
}
