// The bundled agent works in its own isolated workspace, so nothing it does
// reaches the person's tree until accepted. Its changes are read through the
// agent's `_accord/...` ACP extension methods whenever a tool call finishes —
// so a file can be reviewed while the turn still runs — and at turn end.
import * as path from 'node:path';
import { z } from 'zod';
import { fileId, type Content } from './fileReview';
import { isFinished, type ChangeSink, type ToolCallFacts, type TurnAwareSource } from './changeSource';
import { sameContent } from './reviewStore';

/** Calls one ACP extension method on the agent (`ClientSideConnection.extMethod`). */
export type AgentExtCall = (method: string, params: Record<string, unknown>) => Promise<unknown>;

/** The agent's workspace methods this source uses (documented in agent/workspace/README.md). */
export const WORKSPACE_METHODS = {
  listChanges: '_accord/workspace/changes',
  readFile: '_accord/workspace/file',
} as const;

const changeList = z.object({
  files: z.array(
    z.object({
      /** Relative to the project root, `/`-separated. */
      path: z.string(),
      status: z.enum(['added', 'modified', 'deleted', 'renamed']),
      /** For a rename, where the file was in the base. */
      oldPath: z.string().optional(),
    }),
  ),
});

const fileSide = z.object({
  exists: z.boolean(),
  text: z.string().optional(),
  /** Binary content, base64-encoded. */
  base64: z.string().optional(),
});

export class IsolatedWorkspaceSource implements TurnAwareSource {
  readonly origin = 'isolated' as const;

  constructor(
    private readonly sink: ChangeSink,
    private readonly callAgent: AgentExtCall,
    /** The person's project root; the agent's relative paths land under it. */
    private readonly projectRoot: string,
  ) {}

  /** The agent's workspace keeps its own base, so a turn's start needs no snapshot here. */
  async beginTurn(): Promise<void> {}

  async toolCall(sessionId: string, turnId: string, call: ToolCallFacts): Promise<void> {
    if (isFinished(call)) await this.refresh(sessionId, turnId);
  }

  async endTurn(sessionId: string, turnId: string): Promise<void> {
    await this.refresh(sessionId, turnId);
  }

  /**
   * Reads the agent's changed files and proposes those whose content differs
   * from what is already under review. Base is the session's base; a file
   * changed again in a later turn continues its earlier review (see ReviewStore).
   */
  async refresh(sessionId: string, turnId: string): Promise<void> {
    const list = parse(changeList, await this.callAgent(WORKSPACE_METHODS.listChanges, { sessionId }), WORKSPACE_METHODS.listChanges);
    for (const file of list.files) {
      const target = this.absolute(file.path);
      const proposed = file.status === 'deleted' ? null : await this.read(sessionId, file.path, 'current');
      const existing = this.sink.get(fileId({ sessionId, turnId, path: target }));
      if (existing && sameContent(existing.proposed, proposed)) continue;
      const renamedFrom = file.status === 'renamed' ? file.oldPath : undefined;
      const baseFrom = renamedFrom ?? file.path;
      const base = file.status === 'added' ? null : await this.read(sessionId, baseFrom, 'base');
      this.sink.propose({
        origin: 'isolated',
        sessionId,
        turnId,
        path: target,
        ...(renamedFrom !== undefined ? { movedFrom: this.absolute(renamedFrom) } : {}),
        base,
        proposed,
      });
    }
  }

  private async read(sessionId: string, relative: string, side: 'base' | 'current'): Promise<Content> {
    const answer = parse(fileSide, await this.callAgent(WORKSPACE_METHODS.readFile, { sessionId, path: relative, side }), WORKSPACE_METHODS.readFile);
    if (!answer.exists) return null;
    if (answer.base64 !== undefined) return new Uint8Array(Buffer.from(answer.base64, 'base64'));
    return new TextEncoder().encode(answer.text ?? '');
  }

  private absolute(relative: string): string {
    return path.join(this.projectRoot, ...relative.split('/'));
  }

  dispose(): void {}
}

function parse<T>(schema: z.ZodType<T>, value: unknown, method: string): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new Error(`The agent's answer to ${method} is not what Accord expects (${result.error.issues[0]?.message ?? 'invalid'}); update the agent and Accord together.`);
  }
  return result.data;
}
