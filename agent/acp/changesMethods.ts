// The `_accord/workspace/status` and `_accord/changes/*` extension methods
// (spec: agent/session/README.md): the client reviews what a session
// changed in its workspace and applies or discards it. Paths are relative to
// the top of the session's work tree (`applyTo` in the person's project).
import { RequestError, type AgentApp } from '@agentclientprotocol/sdk/unstable';
import { z } from 'zod';
import { applyToProject } from '../session/isolatedApply';
import { fileSides } from '../session/changes';
import { discard, listChanges, patch, type ChangedFile } from '../session/isolatedDiff';
import type { IsolatedSession } from '../session/isolatedSession';
import type { SessionWorkspaces } from '../session/workspaces';
import { setupFailure } from './workspaceReady';

/** Advertised in `initialize` (`agentCapabilities._meta`); clients call the methods only when it is present. */
export const CHANGES_CAPABILITY = { accord: { changes: 1 } } as const;

const sessionId = z.string().min(1);
const relativePath = z.string().min(1).refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'must be relative to the work tree, without ".."');

const schemas = {
  status: z.object({ sessionId }),
  list: z.object({ sessionId }),
  file: z.object({ sessionId, path: relativePath }),
  patch: z.object({ sessionId, paths: z.array(relativePath).optional() }),
  apply: z.object({ sessionId, files: z.array(z.object({ path: relativePath, hunks: z.array(z.number().int().nonnegative()).optional() })).optional() }),
  discard: z.object({ sessionId, paths: z.array(relativePath).optional() }),
};

/** A zod schema as the SDK's params parser: bad params are -32602 with the field named. */
function parser<T>(schema: z.ZodType<T>) {
  return (params: unknown): T => {
    const parsed = schema.safeParse(params);
    if (parsed.success) return parsed.data;
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
  /** Failures other than bad params are messages for the person, never stack traces. */
  const clearly = <P, R>(work: (params: P) => Promise<R>) => async ({ params }: { params: P }): Promise<R> => {
    try {
      return await work(params);
    } catch (error) {
      if (error instanceof RequestError) throw error;
      throw RequestError.internalError({}, error instanceof Error ? error.message : String(error));
    }
  };

  return app
    .onRequest('_accord/workspace/status', parser(schemas.status), clearly(async ({ sessionId: id }) => {
      const { workspace, sandbox } = await sessionOf(id);
      return { mode: workspace.mode, root: workspace.root, applyTo: workspace.applyTo, base: workspace.base, sandbox, linkedReadOnly: workspace.linkedReadOnly };
    }))
    .onRequest('_accord/changes/list', parser(schemas.list), clearly(async ({ sessionId: id }) => ({ changes: await listChanges((await sessionOf(id)).workspace) })))
    .onRequest('_accord/changes/file', parser(schemas.file), clearly(async ({ sessionId: id, path }) => {
      const session = await sessionOf(id);
      const change = (await changesFor(session, [path])).find((c) => c.path === path)!;
      return fileSides(session.workspace, change);
    }))
    .onRequest('_accord/changes/patch', parser(schemas.patch), clearly(async ({ sessionId: id, paths }) => {
      const session = await sessionOf(id);
      await changesFor(session, paths);
      return { patch: await patch(session.workspace, paths) };
    }))
    .onRequest('_accord/changes/apply', parser(schemas.apply), clearly(async ({ sessionId: id, files }) => {
      const session = await sessionOf(id);
      await changesFor(session, files?.map((f) => f.path));
      return applyToProject(session.workspace, files?.map((f) => ({ path: f.path, ...(f.hunks ? { hunks: f.hunks } : {}) })));
    }))
    .onRequest('_accord/changes/discard', parser(schemas.discard), clearly(async ({ sessionId: id, paths }) => {
      const session = await sessionOf(id);
      await changesFor(session, paths);
      return { discarded: await discard(session.workspace, paths) };
    }));
}
