// Live sessions by id. A persistent store (the session log) can wrap or
// replace this behind the same interface.
import { randomUUID } from 'node:crypto';
import { Session, type SessionSettings } from './session';

export interface SessionStore {
  /** `id` is given when a persisted session is loaded again; new sessions get a fresh UUID. `root`: the session workspace, when not `cwd`. */
  create(cwd: string, settings: SessionSettings, id?: string, root?: string): Session;
  get(sessionId: string): Session | undefined;
  /** Cancels any running turn and forgets the session. */
  remove(sessionId: string): void;
  list(): Session[];
}

export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, Session>();

  create(cwd: string, settings: SessionSettings, id: string = randomUUID(), root?: string): Session {
    const session = new Session(id, cwd, settings, root);
    this.sessions.set(session.id, session);
    return session;
  }

  get(sessionId: string): Session | undefined {
    return this.sessions.get(sessionId);
  }

  remove(sessionId: string): void {
    this.sessions.get(sessionId)?.cancel();
    this.sessions.delete(sessionId);
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }
}
