// The `_accord/workspace/status` and `_accord/changes/*` extension methods
// (names and shapes: protocol/accordMethods.ts; spec: agent/session/README.md):
// the client reviews what a session changed in its workspace and discards
// what the person rejected. Applying is the client's: the extension merges
// accepted changes into the person's tree with its own reviewed 3-way merge
// (extension/review/merge3.ts), reading the copy as hostile input.
import { RequestError, type AgentApp } from '@agentclientprotocol/sdk/unstable';
import { accordRequests, type AccordParams, type AccordRequestMethod, type AccordResult } from '../../protocol/accordMethods';
import { changesAnswer, fileSides } from '../session/changes';
import { discard, listChanges, type ChangedFile } from '../session/isolatedDiff';
import type { IsolatedSession } from '../session/isolatedSession';
import type { SessionWorkspaces } from '../session/workspaces';
import { setupFailure } from './workspaceReady';

export { CHANGES_CAPABILITY } from '../../protocol/accordMethods';

/** The method's params schema as the SDK's params parser: bad params are -32602 with the field named. */
export function parser<M extends AccordRequestMethod>(method: M) {
  return (params: unknown): AccordParams<M> => {
    const parsed = accordRequests[method].params.safeParse(params);
    if (parsed.success) return parsed.data as AccordParams<M>;
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ');
    throw RequestError.invalidParams({ issues }, `Invalid params: ${issues}`);
  };
}

export function registerChangesMethods(app: AgentApp, workspaces: SessionWorkspaces): AgentApp {
  /** Waits for a workspace still being made; a copy that failed fails the method with its reason. */
  const sessionOf = async (id: string): Promise<IsolatedSession> => {
    const session = await workspaces.ready(id).catch((error: unknown) => {
      throw setupFailure(id, error);
    });
    if (!session) throw RequestError.invalidParams({ sessionId: id }, `There is no session ${id} with a workspace in this connection; create or load it first.`);
    return session;
  };
  /** The changes, with -32602 for a path the session did not change. */
  const changesFor = async (session: IsolatedSession, paths: readonly string[] | undefined): Promise<ChangedFile[]> => {
    const changes = await listChanges(session.workspace);
    const unknown = (paths ?? []).filter((p) => !changes.some((c) => c.path === p));
    if (unknown.length > 0) throw RequestError.invalidParams({ paths: unknown }, `The session did not change ${unknown.join(', ')}.`);
    return changes;
  };
  /**
   * One method: params parsed by its shared schema, the answer typed by it.
   * Failures other than bad params are messages for the person, never stack traces.
   */
  const serve = <M extends AccordRequestMethod>(method: M, work: (params: AccordParams<M>) => Promise<AccordResult<M>>) =>
    app.onRequest(method, parser(method), async ({ params }: { params: AccordParams<M> }) => {
      try {
        return await work(params);
      } catch (error) {
        if (error instanceof RequestError) throw error;
        throw RequestError.internalError({}, error instanceof Error ? error.message : String(error));
      }
    });

  serve('_accord/workspace/status', async ({ sessionId: id }) => {
    const { workspace, sandbox } = await sessionOf(id);
    return { mode: workspace.mode, root: workspace.root, applyTo: workspace.applyTo, base: workspace.base, sandbox, linkedReadOnly: workspace.linkedReadOnly };
  });
  serve('_accord/changes/list', async ({ sessionId: id }) => changesAnswer((await sessionOf(id)).workspace));
  serve('_accord/changes/file', async ({ sessionId: id, path }) => {
    const session = await sessionOf(id);
    const change = (await changesFor(session, [path])).find((c) => c.path === path)!;
    return fileSides(session.workspace, change);
  });
  serve('_accord/changes/discard', async ({ sessionId: id, paths }) => {
    const session = await sessionOf(id);
    await changesFor(session, paths);
    return { discarded: await discard(session.workspace, paths) };
  });
  return app;
}
