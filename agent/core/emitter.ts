// The one path every update of a session takes. The protocol adapter forwards
// it to the client; a session log can subscribe to record and replay it.
import type { SessionUpdate } from './updates';

export type UpdateListener = (update: SessionUpdate) => void | Promise<void>;

export class UpdateEmitter {
  private readonly listeners = new Set<UpdateListener>();

  /** Returns the unsubscribe function. */
  subscribe(listener: UpdateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Hands the update to every listener at once (so each listener sees updates
   * in emit order) and resolves when all have taken it.
   */
  async emit(update: SessionUpdate): Promise<void> {
    await Promise.all([...this.listeners].map((listener) => listener(update)));
  }
}
