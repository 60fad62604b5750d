// Third-party agents that write through `fs/write_text_file`: the write is
// held as a proposal (nothing reaches the file until the person accepts) and
// the agent is answered as soon as it is staged, so it keeps working. Reads
// through `fs/read_text_file` should see the agent's own staged text while it
// waits for review, which `readStaged` serves.
//
// The baseline is kept for the whole session: a later write to the same file
// continues the earlier review (see ReviewStore), with the same base. The
// earliest "before" wins: a snapshot the direct-to-disk review took before the
// call could run is older than the disk now. Some agents (opencode) write the
// file themselves and send `fs/write_text_file` without waiting; the disk then
// already holds the text, so the change is reviewed as one already made
// (rejecting it restores the baseline) rather than as one held back.
import type { ChangeSink, ChangeSource } from './changeSource';
import { fileId, isPending, type Content } from './fileReview';
import { sameContent } from './contentMerge';
import type { RealTree } from './landing';
import { mapFor } from './innerMap';
import { linkOnTheWay } from './treeSnapshot';
import * as nodePath from 'node:path';
import { protectedPart } from '../../agent/workspace/containment';

/** The direct-to-disk review's snapshots, which a staged write of the same file shares. */
export interface EarlierSnapshots {
  /** A "before" of `path` taken earlier in the session's running turn (before the call could run), if any. */
  snapshotOf?(sessionId: string, path: string): { content: Content } | undefined;
  /** Keeps `content` as `path`'s "before" in the running turn unless it has one. */
  keep?(sessionId: string, path: string, content: Content): void;
  /** The project folder that holds `path`: links below it are refused. */
  projectFolder?(path: string): string | undefined;
}

export class StagedWriteSource implements ChangeSource {
  readonly origin = 'staged' as const;
  /** sessionId → path → the agent's latest staged text and its turn. */
  private readonly staged = new Map<string, Map<string, { turnId: string; text: string }>>();
  /** sessionId → path → the file before the agent's first staged write (null: absent). */
  private readonly baselines = new Map<string, Map<string, Uint8Array | null>>();

  constructor(
    private readonly sink: ChangeSink,
    private readonly tree: RealTree,
    private readonly snapshots: EarlierSnapshots = {},
  ) {}

  /** Stages one `fs/write_text_file`. Resolves once the proposal is under review. */
  async stage(sessionId: string, turnId: string, path: string, content: string): Promise<void> {
    // Git's folder, the editor's settings and tasks, Accord's policy and shell startup files run or
    // trust what is in them: never held for review ("Accept all" would land them), as for Accord's own agent.
    const folder = this.snapshots.projectFolder?.(path);
    const guarded = protectedPart(folder ? nodePath.relative(folder, path) : path);
    if (guarded) throw new Error(protectedWhy(path, guarded));
    // Accepting would write through it, wherever it points: refused before anything is held.
    const link = await linkOnTheWay(path, this.snapshots.projectFolder?.(path));
    if (link) throw new Error(link);
    const baselines = mapFor(this.baselines, sessionId);
    const now = await this.tree.read(path);
    if (!baselines.has(path)) baselines.set(path, this.snapshots.snapshotOf?.(sessionId, path)?.content ?? now);
    const base = baselines.get(path) ?? null;
    // The same "before" for a later write the agent makes to the file itself.
    this.snapshots.keep?.(sessionId, path, base);
    const proposed = new TextEncoder().encode(content);
    mapFor(this.staged, sessionId).set(path, { turnId, text: content });
    const existing = this.sink.get(fileId({ sessionId, turnId, path }));
    // Nothing to review: the file already is what the agent asks for, and always was.
    if (!existing && sameContent(base, proposed)) return;
    const alreadyOnDisk = sameContent(now, proposed) && !sameContent(base, proposed);
    this.sink.propose({ origin: alreadyOnDisk ? 'direct' : 'staged', sessionId, turnId, path, base, proposed });
  }

  /**
   * The agent's own staged text for `path` while it still waits for review;
   * `undefined` once decided (the file itself is then the truth).
   */
  readStaged(sessionId: string, path: string): string | undefined {
    const staged = this.staged.get(sessionId)?.get(path);
    if (!staged) return undefined;
    const review = this.sink.get(fileId({ sessionId, turnId: staged.turnId, path }));
    return review && isPending(review) ? staged.text : undefined;
  }

  forgetSession(sessionId: string): void {
    this.staged.delete(sessionId);
    this.baselines.delete(sessionId);
  }

  dispose(): void {
    this.staged.clear();
    this.baselines.clear();
  }
}

function protectedWhy(path: string, part: NonNullable<ReturnType<typeof protectedPart>>): string {
  const what = part.kind === 'dir' ? `${part.name} (${part.holds})` : `${part.name}, a file a shell or git runs or trusts`;
  return `Accord does not let agents write ${path}: it is in a protected place, ${what}. Change it yourself if you want to.`;
}
