// A tool call the extension first saw already finished: nothing here saw the
// file before it ran, and the agent's diff block only claims what was there
// (`oldText: null` is sent for "unknown" as often as for "absent", and a
// snippet's oldText is not the file). A Reject must never destroy content
// whose earlier state nobody knows, so such a review says so plainly, Reject
// leaves the file as it is, and putting an earlier version back is the
// person's explicit choice: git's version, or the text the agent claims was
// there. Pure; no vscode import.
import type { Content } from './fileReview';
import type { GitVersion } from './gitVersion';
import { sameContent } from './contentMerge';

/** What a review knows of a file whose "before" it never saw. */
export interface UnverifiedBase {
  /** What the diff's left side shows: the agent's claimed earlier text, git's version, or nothing. */
  shown: 'claimed' | 'git' | 'nothing';
  /** The file as the person's git index holds it, when it is a regular file there (`from`: whether HEAD holds the same). */
  git?: { content: Uint8Array; from: 'HEAD' | 'index' };
  /**
   * The whole file as the agent claims it was: the file now with the agent's
   * newText put back to its oldText. Only when each is one exact place in the
   * file, the path is in the project, and the claim is within bounds; a claim
   * that the file was absent is never one (putting it back would delete).
   */
  claimed?: Uint8Array;
  /** What the person chose to put back after rejecting, if anything. */
  restored?: 'git' | 'claimed';
}

/** Longer claims (oldText + newText, in characters) are not kept: shown as unknown, never restored. */
export const CLAIM_LIMIT = 8 * 1024 * 1024;

/** What a diff block claims: the text it replaced (`null`: absent or unknown) and the text it wrote. */
export interface Claim {
  oldText: string | null;
  newText: string;
}

/** Either a "before" the extension can stand behind, or an unverified one with what the diff shows. */
export type BaseJudgement = { known: Content } | { unverified: UnverifiedBase; shown: Content };

/**
 * Judges a claim against what the extension knows: the file now and git's
 * version. A claim is taken only when its whole earlier file equals git's
 * version (what we know); everything else is unverified.
 */
export function judgeBase(claims: readonly Claim[], now: Content, git: GitVersion | undefined, inProject: boolean): BaseJudgement {
  const tracked = git?.tracked === true ? { content: git.content, from: git.from } : undefined;
  const claimed = inProject ? claimedBefore(now, claims) : undefined;
  if (claimed && tracked && sameContent(claimed, tracked.content)) return { known: tracked.content };
  const unverified: UnverifiedBase = {
    shown: claimed ? 'claimed' : tracked ? 'git' : 'nothing',
    ...(tracked ? { git: tracked } : {}),
    ...(claimed ? { claimed } : {}),
  };
  return { unverified, shown: claimed ?? tracked?.content ?? null };
}

/**
 * The file as the agent claims it was before the call: `now` with each
 * block's newText put back to its oldText, last block first (several edits of
 * one file in one call), byte for byte: nothing outside those places changes.
 * Undefined when any block cannot be placed: no file, a claim of absence,
 * newText not in the file or in it more than once, or claims over `CLAIM_LIMIT`.
 */
export function claimedBefore(now: Content, claims: readonly Claim[]): Uint8Array | undefined {
  if (now === null || claims.length === 0) return undefined;
  if (claims.reduce((n, c) => n + (c.oldText?.length ?? 0) + c.newText.length, 0) > CLAIM_LIMIT) return undefined;
  let file: Buffer | undefined = Buffer.from(now.buffer, now.byteOffset, now.byteLength);
  for (const claim of [...claims].reverse()) {
    file = file && putBack(file, claim);
  }
  return file && new Uint8Array(file);
}

function putBack(file: Buffer, { oldText, newText }: Claim): Buffer | undefined {
  if (oldText === null) return undefined;
  const written = Buffer.from(newText, 'utf8');
  const old = Buffer.from(oldText, 'utf8');
  if (file.equals(written)) return old;
  if (written.length === 0) return undefined; // an empty text is everywhere
  const at = file.indexOf(written);
  if (at < 0 || file.indexOf(written, at + 1) >= 0) return undefined;
  return Buffer.concat([file.subarray(0, at), old, file.subarray(at + written.length)]);
}

/** Whether the review leaves the file as the agent wrote it on Reject: its base was never seen and nothing was put back. */
export function leftInPlace(file: { unverified?: UnverifiedBase | undefined }): boolean {
  return file.unverified !== undefined && file.unverified.restored === undefined;
}

/** What a restore choice writes, if the review has it. */
export function restoreTarget(unverified: UnverifiedBase, from: 'git' | 'claimed'): Uint8Array | undefined {
  return from === 'git' ? unverified.git?.content : unverified.claimed;
}
