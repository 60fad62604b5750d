// The sessions directory as one object: create, open, replay, list, remove.
// The ACP adapter and the CLI use this; nothing else needs the file layout.
import { randomUUID } from 'node:crypto';
import { readdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LogError } from './errors';
import { listSessions, type ListOptions, type SessionPage } from './listing';
import { acquireLock } from './lock';
import { accordDataDir, sessionLogPath } from './paths';
import { readLog, type LogEntry, type ReadOptions } from './reader';
import { replaySession, type ReplayOptions, type SessionReplay } from './replay';
import { SessionLog, type NewSession } from './sessionLog';

export class SessionStore {
  /** @param dataDir the agent's data directory (default: platform state dir, or ACCORD_HOME). */
  constructor(readonly dataDir: string = accordDataDir()) {}

  /** Starts a new session log (a fresh UUID unless `id` is given) and writes session_created durably. */
  create(session: NewSession & { id?: string }): Promise<SessionLog> {
    const { id = randomUUID(), ...rest } = session;
    return SessionLog.create(this.dataDir, id, rest);
  }

  /** Opens an existing session for appending, recovering a crashed writer's tail. */
  open(id: string): Promise<SessionLog> {
    return SessionLog.open(this.dataDir, id);
  }

  /** Rebuilds the session from its log (read-only; works while another process appends). */
  async replay(id: string, options?: ReplayOptions): Promise<SessionReplay> {
    return replaySession(await this.existingPath(id), options);
  }

  /** The raw records with their offsets. */
  async *read(id: string, options?: ReadOptions): AsyncGenerator<LogEntry> {
    yield* readLog(await this.existingPath(id), options);
  }

  list(options?: ListOptions): Promise<SessionPage> {
    return listSessions(this.dataDir, options);
  }

  async exists(id: string): Promise<boolean> {
    return stat(sessionLogPath(this.dataDir, id)).then(
      () => true,
      () => false,
    );
  }

  /**
   * Deletes a session's log (and torn tails saved beside it). Refused with
   * LogLockedError while a live process has the session open.
   */
  async remove(id: string): Promise<void> {
    const path = await this.existingPath(id);
    const lock = acquireLock(`${path}.lock`);
    try {
      const prefix = `${basename(path)}.torn-`;
      const saved = (await readdir(dirname(path))).filter((name) => name.startsWith(prefix));
      for (const name of saved) await unlink(join(dirname(path), name));
      await unlink(path);
    } finally {
      lock.release();
    }
  }

  pathOf(id: string): string {
    return sessionLogPath(this.dataDir, id);
  }

  private async existingPath(id: string): Promise<string> {
    const path = sessionLogPath(this.dataDir, id);
    if (!(await this.exists(id))) throw new LogError('not_found', `No session ${id} (looked for ${path}).`);
    return path;
  }
}
