// Third-party agents that write through `fs/write_text_file`: the write is
// held as a proposal (nothing reaches the file until the person accepts) and
// the agent is answered as soon as it is staged, so it keeps working. Reads
// through `fs/read_text_file` should see the agent's own staged text, which
// `readStaged` serves.
import type { ChangeSink, ChangeSource } from './changeSource';
import type { RealTree } from './reviewStore';

export class StagedWriteSource implements ChangeSource {
  readonly origin = 'staged' as const;
  /** sessionId → path → the agent's latest staged text. */
  private readonly staged = new Map<string, Map<string, string>>();
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
    mapFor(this.staged, sessionId).set(path, content);
    this.sink.propose({
      origin: 'staged',
      sessionId,
      turnId,
      path,
      base: baselines.get(path) ?? null,
      proposed: new TextEncoder().encode(content),
    });
  }

  /** The agent's own staged text for `path`, if it wrote one this session. */
  readStaged(sessionId: string, path: string): string | undefined {
    return this.staged.get(sessionId)?.get(path);
  }

  /**
   * Once every change to a file is decided, the next write starts from the
   * tree as it is then; call this when a file's review settles.
   */
  settle(sessionId: string, path: string): void {
    this.baselines.get(sessionId)?.delete(path);
    this.staged.get(sessionId)?.delete(path);
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

function mapFor<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = outer.get(key);
  if (!inner) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}
