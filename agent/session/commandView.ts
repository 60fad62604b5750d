// What of Accord's data directory a session's sandboxed commands may read.
// The data directory holds every session's transcript, every session's copy,
// the daemon's log and the compile cache: commands see none of it, only their
// own session's copy (its work tree with the agent's `.git`, the objects that
// `.git` borrows, its tmp) and, when the project itself lives inside the data
// directory, the project.
//
// The layouts (isolated.ts):
//   git clone:  ws/.git -> alternates <session>/git/objects -> alternates <repo>/objects
//   shadow:     ws/.git -> alternates <session>/git/objects
//   in place:   the project itself; <session>/snapshots.git is host-side only
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { sessionsDir } from '../log/paths';
import { isWithin } from '../workspace/containment';
import { defaultDaemonAddress } from '../daemon/address';
import { privateRoot, WorkspaceError, type IsolatedWorkspace } from './isolated';
import { readNoFollow } from './safeFs';

export interface CommandReadView {
  /** Unreadable for commands (srt denyRead). */
  hidden: string[];
  /** Readable again inside `hidden` (srt allowRead). */
  readable: string[];
}

/** An alternates file is one or a few absolute paths: anything past this is not ours. */
const MAX_ALTERNATES_BYTES = 16 * 1024;

/**
 * The objects folders `<session>/git` borrows: written host-side when the
 * copy was made, in a folder commands can read but never write.
 */
async function borrowedObjects(gitDir: string): Promise<string[]> {
  // Read as everything under the session's folder is: no link followed, bounded; anything odd borrows nothing.
  const read = await readNoFollow(gitDir, 'objects/info/alternates', MAX_ALTERNATES_BYTES).catch(() => undefined);
  const text = read?.kind === 'file' ? read.data.toString('utf8') : '';
  return text.split('\n').filter((line) => path.isAbsolute(line));
}

const real = (p: string) => realpath(p).catch(() => path.resolve(p));

/**
 * The folder of the daemon's socket when it is outside the data directory
 * ($XDG_RUNTIME_DIR/accord, or a per-user temp folder). Seccomp keeps
 * commands from making unix sockets, but where srt has no seccomp filter for
 * the machine a command could connect to the daemon as the person, load its
 * own session and answer its own approvals: the socket is not even there for it.
 */
async function daemonSocketDir(): Promise<string[]> {
  const { path: socket, dir } = defaultDaemonAddress();
  if (socket.startsWith('\\\\')) return [];
  const exists = await lstat(dir).then((s) => s.isDirectory(), () => false);
  return exists ? [await real(dir)] : [];
}

export async function commandReadView(workspace: IsolatedWorkspace, dataDir: string): Promise<CommandReadView> {
  const data = await real(dataDir);
  const sessions = sessionsDir(data);
  const privates = privateRoot(data);
  const hidden = [data, sessions, privates, path.dirname(workspace.privateDir), ...(await daemonSocketDir())];
  const own = [workspace.workTree, workspace.tmp];
  const project = [workspace.source, workspace.applyTo];
  if (workspace.mode !== 'in-place') {
    own.push(path.join(workspace.gitDir, 'objects'));
    project.push(...(await borrowedObjects(workspace.gitDir)));
  }
  // The project is given back only where it is inside the data directory
  // (ACCORD_HOME above the project) and holds nothing of Accord's: a project
  // that is the data directory, or holds `sessions/` or `private/`, stays
  // hidden, and the session works on its copy alone. A data directory inside
  // the project (ACCORD_HOME in the project) is simply hidden within it.
  const holdsAccordState = (p: string) => isWithin(p, sessions) || isWithin(p, privates) || isWithin(sessions, p) || isWithin(privates, p);
  // The work tree is always writable, and srt binds a writable path back over
  // a hidden folder it is in: an in-place session on Accord's own state would
  // give it back whole.
  const workTree = await real(workspace.workTree);
  if (workspace.mode === 'in-place' && isWithin(data, workTree) && (workTree === data || holdsAccordState(workTree))) {
    throw new WorkspaceError(
      `${workspace.workTree} holds Accord's own session data (${dataDir}), which commands may not read. Open a project folder instead, or point ACCORD_HOME elsewhere.`,
    );
  }
  const readableProject = (await Promise.all(project.map(real))).filter((p) => p !== data && isWithin(data, p) && !holdsAccordState(p));
  return { hidden: [...new Set(hidden)], readable: [...new Set([...own, ...readableProject])] };
}
