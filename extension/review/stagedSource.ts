// Third-party agents that write through `fs/write_text_file`: the write is
// held as a proposal (nothing reaches the file until the person accepts) and
// the agent is answered as soon as it is staged, so it keeps working. Reads
// through `fs/read_text_file` should see the agent's own staged text while it
// waits for review, which `readStaged` serves.
//
// The baseline is kept for the whole session: a later write to the same file
// continues the earlier review (see ReviewStore), with the same base.
import type { ChangeSink, ChangeSource } from './changeSource';
import { fileId, isPending } from './fileReview';
import type { RealTree } from './reviewStore';
import { mapFor } from './innerMap';

export class StagedWriteSource implements ChangeSource {
  readonly origin = 'staged' as const;
  /** sessionId → path → the agent's latest staged text and its turn. */
  private readonly staged = new Map<string, Map<string, { turnId: string; text: string }>>();
  /** sessionId → path → the file before the agent's first staged write (null: absent). */
  private readonly baselines = new Map<string, Map<string, Uint8Array | null>>();

  constructor(
    private readonly sink: ChangeSink,
    private readonly tree: RealTree,
  ) {}

  /** Stages one `fs/write_text_file`. Resolves once the proposal is under review. */
  async stage(sessionId: string, turnId: string, path: string, content: string): Promise<void> {
    const baselines = mapFor(this.baselines, sessionId);
    if (!baselines.has(path)) baselines.set(path, await this.tree.read(path));
    mapFor(this.staged, sessionId).set(path, { turnId, text: content });
    this.sink.propose({
      origin: 'staged',
      sessionId,
      turnId,
      path,
      base: baselines.get(path) ?? null,
      proposed: new TextEncoder().encode(content),
    });
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
