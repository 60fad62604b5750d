// A loaded session's isolated workspace: the copy its log recorded, attached
// again, or made now when the log shows it was never finished. The log's
// record is parsed (workspaceFromRecord) before anything is attached.
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import { removeUnfinished, WorkspaceError, workspaceFromRecord } from '../session/isolated';
import type { SessionWorkspaces } from '../session/workspaces';
import type { SessionLog, SessionStore } from '../log';
import { flagsFromConfig } from './recordedConfig';

/** session_created's workspace was a PreparingWorkspace: a later `workspace` record names the copy, if it was finished. */
function isPreparing(recorded: Record<string, unknown>): boolean {
  return recorded.preparing === true;
}

/** The recorded workspace, attached again (never re-created); the session's root, or undefined to work in cwd. */
export async function reattachWorkspace(logs: SessionStore, log: SessionLog, cwd: string, isolation: SessionWorkspaces | undefined): Promise<string | undefined> {
  const created = log.created.workspace;
  // A session recorded without isolation, or an agent running without it, works in cwd.
  if (!created || !isolation) return undefined;
  const recorded = isPreparing(created) ? (await logs.replay(log.id)).workspace : created;
  if (!recorded) return remake(log, cwd, created.inPlace === true, isolation);
  const workspace = workspaceFromRecord(recorded);
  if (!workspace || workspace.sessionId !== log.id) {
    throw RequestError.internalError({ sessionId: log.id }, `The log of session ${log.id} records its workspace in a form this agent cannot read; start a new session.`);
  }
  try {
    return (await isolation.reattach(workspace, cwd, flagsFromConfig(log.created.config).alwaysApprove)).workspace.root;
  } catch (error) {
    if (error instanceof WorkspaceError) throw RequestError.invalidRequest({ sessionId: log.id, workspace: workspace.root }, error.message);
    throw RequestError.internalError({ sessionId: log.id }, `Could not attach the session's workspace: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The log started but the copy was never finished (the agent stopped while
 * making it). No tool can have run, so a new copy of the project loses no
 * work: it is made now and recorded, as session/new would have.
 */
async function remake(log: SessionLog, cwd: string, inPlace: boolean, isolation: SessionWorkspaces): Promise<string> {
  try {
    await removeUnfinished(log.id, isolation.settings.dataDir);
    const made = await isolation.prepare(log.id, cwd, inPlace, flagsFromConfig(log.created.config).alwaysApprove, async (isolated) => {
      await log.append({ type: 'workspace', workspace: { ...isolated.workspace } }, { durable: true }).committed;
    });
    return made.workspace.root;
  } catch (error) {
    throw RequestError.internalError({ sessionId: log.id }, `Could not set up the session's workspace: ${error instanceof Error ? error.message : String(error)}`);
  }
}
