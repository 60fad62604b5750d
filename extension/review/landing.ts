// Writes a review's decisions into the person's files. Hunks land one at a
// time, each through a three-way merge, so the person's own edits are never
// overwritten: a hunk that clashes becomes a conflict (saying why) and the
// others land. Whole-file decisions land entirely or not at all.
import { desiredTree, landsPerHunk, wantsLanded, type Content, type FileReview } from './fileReview';
import { merge3 } from './merge3';
import { composeText, decodeText, hunkKey } from './hunks';
import { mergeContent, sameContent } from './contentMerge';
import { landedIndices } from './reviewStates';
import { count, resolvingText } from './reviewNotes';

/** The person's files as the review reads and writes them. */
export interface RealTree {
  /** Current content, unsaved editor text included; `null` when absent. */
  read(path: string): Promise<Content>;
  /** Replaces the content (`null` deletes). Open documents change through the editor so it joins undo. */
  write(path: string, content: Content): Promise<void>;
}

/** Lands every decision of `file`; false when something is left in conflict. */
export function landFile(file: FileReview, tree: RealTree): Promise<boolean> {
  return landsPerHunk(file) ? landHunks(file, tree) : landWhole(file, tree);
}

/**
 * The texts a three-way merge needs to move one hunk: `ancestor` is the
 * review's base with the hunks it has landed, `target` that with this hunk
 * added or taken out.
 */
export function hunkMove(file: FileReview, index: number): { ancestor: string; target: string } {
  const landed = landedIndices(file);
  const ancestor = composeText(file.baseText, file.hunks, landed);
  if (landed.has(index)) landed.delete(index);
  else landed.add(index);
  return { ancestor, target: composeText(file.baseText, file.hunks, landed) };
}

/** The current text of a file to merge hunks into, or why there is none. */
export async function readText(tree: RealTree, path: string): Promise<{ text: string } | { why: string }> {
  const current = await tree.read(path);
  const text = current === null ? undefined : decodeText(current);
  if (text !== undefined) return { text };
  return { why: current === null ? 'the file no longer exists in your folder' : 'the file is binary now' };
}

/** Records what the review now has in the tree, for the next merge. */
export function noteLanded(file: FileReview): void {
  file.landed.set(file.path, new TextEncoder().encode(composeText(file.baseText, file.hunks, landedIndices(file))));
}

/**
 * Moves the tree toward the decisions one hunk at a time, each through a
 * three-way merge: ancestor = the review's base with the hunks it has landed,
 * ours = the file now (unsaved edits included), theirs = that with this one
 * hunk added or taken out. A hunk that clashes with the person's edits stays
 * a conflict; the others land. Nothing outside the hunks is touched.
 */
async function landHunks(file: FileReview, tree: RealTree): Promise<boolean> {
  // A conflict being finished between markers in the file waits for the person, whatever else is decided.
  const moving = file.hunks
    .map((h, i) => ({ key: hunkKey(h), index: i }))
    .filter(({ key, index }) => file.landedHunks.has(key) !== wantsLanded(file, index) && !file.resolving.has(key));
  for (const key of [...file.hunkConflicts.keys()]) if (!file.resolving.has(key)) file.hunkConflicts.delete(key);
  file.conflict = file.resolving.size > 0 ? resolvingText(file) : undefined;
  if (moving.length === 0) return file.resolving.size === 0;
  const current = await readText(tree, file.path);
  if ('why' in current) {
    for (const { key } of moving) file.hunkConflicts.set(key, `${current.why}; nothing was written`);
    file.conflict = `${file.path}: ${current.why}; nothing was written`;
    return false;
  }
  let text = current.text;
  const near: number[] = [];
  for (const { key, index } of moving) {
    const { ancestor, target } = hunkMove(file, index);
    const merged = merge3(ancestor, text, target);
    if (merged.clean) {
      text = merged.text;
      if (file.landedHunks.has(key)) file.landedHunks.delete(key);
      else file.landedHunks.add(key);
      continue;
    }
    const line = (merged.conflicts[0]?.ancestorStart ?? 0) + 1;
    near.push(line);
    const also = file.builtOn !== undefined ? ', or it builds on a change from an earlier turn that is not in your file' : '';
    file.hunkConflicts.set(key, `your own edits touch the same lines (near line ${line})${also}; this change was not ${wantsLanded(file, index) ? 'applied' : 'taken out'}`);
  }
  if (text !== current.text) await tree.write(file.path, new TextEncoder().encode(text));
  noteLanded(file);
  if (file.resolving.size > 0) return false;
  if (near.length > 0) {
    const done = moving.length - near.length;
    const first = [...file.hunkConflicts.values()][0]!;
    const more = near.length > 1 ? ` (${near.length - 1} more near line ${near.slice(1).join(', ')})` : '';
    file.conflict = `${first}${more}${done > 0 ? `; ${count(done, 'other change')} landed` : ''}`;
    return false;
  }
  return true;
}

/** Lands a whole-file decision (binary, move, addition, deletion): every path merges cleanly, or nothing is written. */
async function landWhole(file: FileReview, tree: RealTree): Promise<boolean> {
  const desired = desiredTree(file);
  const writes: [string, Content][] = [];
  for (const [path, wanted] of desired) {
    const landed = file.landed.has(path) ? file.landed.get(path)! : wanted;
    const current = await tree.read(path);
    const merged = mergeContent(landed, current, wanted);
    if (merged.conflict) {
      file.conflict = `${path}: ${merged.conflict}`;
      return false;
    }
    if (!sameContent(merged.content, current)) writes.push([path, merged.content]);
  }
  for (const [path, content] of writes) await tree.write(path, content);
  for (const [path, wanted] of desired) file.landed.set(path, wanted);
  file.conflict = undefined;
  return true;
}
