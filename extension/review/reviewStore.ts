// The review store the extension uses: every change under review with its
// decisions (reviewBook.ts, reviewDecisions.ts), plus reviewing in the file
// itself: pending hunks written into the file for Keep/Undo, and conflicts
// finished between conflict markers. Pure; the VS Code tree is an adapter.
import { hunkState, isPending, kindOf, landsPerHunk, setAllDecisions, setHunkDecision, wantsLanded, type FileReview } from './fileReview';
import { hasConflictMarkers, mergeWithMarkers } from './merge3';
import { hunkKey } from './hunks';
import { describeHunk, resolvingText } from './reviewNotes';
import { hunkMove, landFile, noteLanded, readText } from './landing';
import { restoreTarget } from './unverifiedBase';
import { ReviewDecisions, type LandResult } from './reviewDecisions';

export type { RealTree } from './landing';
export type { LandResult } from './reviewDecisions';

export class ReviewStore extends ReviewDecisions {
  /**
   * Starts reviewing a file in place: its pending hunks are written into the
   * file (each through the three-way merge; one that clashes with the
   * person's edits stays pending in the diff), then Keep accepts a hunk where
   * it is and Undo takes it out again.
   */
  async reviewInFile(file: FileReview): Promise<LandResult> {
    if (file.unverified) return { landed: [], conflicts: [], refused: [{ file, why: 'the agent did not show what it held before, so it is reviewed in the diff editor only' }] };
    if (!landsPerHunk(file)) {
      return { landed: [], conflicts: [], refused: [{ file, why: `a ${file.binary ? 'binary' : kindOf(file)} file is reviewed as a whole in the diff editor` }] };
    }
    if (!isPending(file)) return { landed: [], conflicts: [], refused: [{ file, why: 'every change in it is already decided' }] };
    file.inFile = true;
    return this.land([file]);
  }

  /**
   * The person's explicit choice for a change whose "before" the agent never
   * showed: reject it and put back git's version or the text the agent claims
   * was there. Lands through the whole-content merge, so their own edits since
   * are kept, or nothing is written and the conflict is said.
   */
  restoreBase(file: FileReview, from: 'git' | 'claimed'): Promise<{ written: boolean; why?: string }> {
    return this.serially(async () => {
      const unverified = file.unverified;
      if (!unverified) return { written: false, why: 'its earlier content is known, so Reject already puts it back' };
      if (!restoreTarget(unverified, from)) return { written: false, why: from === 'git' ? 'git holds no version of it' : 'the agent did not claim an earlier text that fits the file' };
      if (unverified.restored === from) return { written: false, why: 'that version is already put back' };
      const before = { restored: unverified.restored, hunks: new Map(file.hunkDecisions), whole: file.wholeDecision };
      setAllDecisions(file, 'rejected');
      unverified.restored = from;
      if (!(await landFile(file, this.tree))) {
        const why = file.conflict ?? 'the file changed';
        file.hunkDecisions = before.hunks;
        file.wholeDecision = before.whole;
        file.conflict = undefined;
        unverified.restored = before.restored;
        this.changed();
        return { written: false, why };
      }
      const version = from === 'git' ? (unverified.git?.from === 'index' ? 'the version staged in git' : 'the version in git HEAD') : 'the earlier text you claimed';
      this.note(file.sessionId, `rejected your change to ${file.path} and put back ${version}; your text is not in the person's file`);
      this.changed();
      return { written: true };
    });
  }

  /**
   * Keep on a hunk the person edited in the file: their version is what is
   * there, so nothing is written; the hunk is accepted and the agent's next
   * prompt says what the person made of its change.
   */
  keepEdited(file: FileReview, index: number, text: string): LandResult {
    const hunk = file.hunks[index];
    if (!hunk || hunkState(file, index) !== 'pending' || !file.landedHunks.has(hunkKey(hunk))) {
      return { landed: [], conflicts: [], refused: [{ file, why: 'that change is not pending in the file' }] };
    }
    setHunkDecision(file, index, 'accepted');
    const shown = text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
    this.note(file.sessionId, `accepted your change at ${describeHunk(file, index)} in ${file.path} after editing it; the person's version there reads:\n\`\`\`\n${shown}${shown.endsWith('\n') ? '' : '\n'}\`\`\``);
    this.changed();
    return { landed: [file], conflicts: [] };
  }

  /**
   * Finishes a conflict in the file itself: the hunk's region is written with
   * the person's lines and the change between conflict markers, for VS Code's
   * Accept Current / Incoming / Both. The hunk stays a conflict until no
   * markers are left (`settleResolutions`). A hunk that merges cleanly by now
   * simply lands.
   */
  resolveInFile(file: FileReview, index: number): Promise<{ written: boolean; why?: string }> {
    return this.serially(() => this.resolveNow(file, index));
  }

  private async resolveNow(file: FileReview, index: number): Promise<{ written: boolean; why?: string }> {
    const hunk = file.hunks[index];
    if (!hunk || hunkState(file, index) !== 'conflict') return { written: false, why: 'that change is not a conflict (any more)' };
    if (!landsPerHunk(file)) return { written: false, why: `a ${file.binary ? 'binary' : kindOf(file)} file is decided as a whole: make the file as you want it, then accept or reject it again` };
    const key = hunkKey(hunk);
    if (file.resolving.has(key)) return { written: false, why: 'its conflict markers are already in the file' };
    const current = await readText(this.tree, file.path);
    if ('why' in current) return { written: false, why: current.why };
    const { ancestor, target } = hunkMove(file, index);
    const merged = mergeWithMarkers(ancestor, current.text, target, { ours: 'Your version', theirs: `Agent's ${wantsLanded(file, index) ? 'change' : 'undo'} (turn ${file.turnId})` });
    if (merged.conflicts === 0) {
      await this.landNow([file]);
      return { written: true };
    }
    await this.tree.write(file.path, new TextEncoder().encode(merged.text));
    file.resolving.add(key);
    file.hunkConflicts.set(key, 'being finished in the file: pick Accept Current Change, Accept Incoming Change or Accept Both on the conflict markers');
    file.conflict = resolvingText(file);
    this.changed();
    return { written: true };
  }

  /**
   * The person edited `path`: conflicts finished between markers there are
   * decided once no markers are left — accepted (and in the file) when the
   * agent's lines are there, rejected when the person kept theirs.
   */
  settleResolutions(path: string, text: string): void {
    if (hasConflictMarkers(text)) return;
    let settled = false;
    for (const file of this.all()) {
      if (file.path !== path || file.resolving.size === 0) continue;
      file.hunks.forEach((hunk, index) => {
        const key = hunkKey(hunk);
        if (!file.resolving.has(key)) return;
        const kept = hunk.proposedLines.length > 0 ? text.includes(hunk.proposedLines.join('')) : !text.includes(hunk.baseLines.join(''));
        file.resolving.delete(key);
        file.hunkConflicts.delete(key);
        setHunkDecision(file, index, kept ? 'accepted' : 'rejected');
        if (kept) file.landedHunks.add(key);
        else file.landedHunks.delete(key);
        this.note(file.sessionId, `finished a conflict in ${file.path} by hand: your change at ${describeHunk(file, index)} was ${kept ? 'kept' : 'not kept (the person kept their own lines)'}`);
        settled = true;
      });
      file.conflict = file.resolving.size > 0 ? resolvingText(file) : file.hunkConflicts.size > 0 ? [...file.hunkConflicts.values()][0] : undefined;
      noteLanded(file);
    }
    if (settled) this.changed();
  }

  /** Paths with conflicts being finished between markers. */
  resolvingPaths(): Set<string> {
    return new Set(this.all().filter((f) => f.resolving.size > 0).map((f) => f.path));
  }
}
