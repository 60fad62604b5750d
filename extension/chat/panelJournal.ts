// What the chat panel has been told since its session started, so a panel that
// is created again (the view was closed and reopened, "Reload Webviews", a
// window reload of the webview only) shows the same transcript, header and
// gauge instead of an empty "Accord 0.1.0". The extension relays ACP updates
// verbatim and keeps no transcript of its own: this journal is that memory.
// Pure: no vscode import.
import type { HostMessage } from '../../webview/protocol';

/** Only the latest of these matters. */
const LATEST_ONLY = new Set<HostMessage['type']>(['agentStatus', 'settings', 'sessionList', 'modelSetup', 'reviewChanges']);
/** Answers to one request of the panel that is gone. */
const TRANSIENT = new Set<HostMessage['type']>(['hello', 'fileCompletions']);

export class PanelJournal {
  private messages: HostMessage[] = [];
  private readonly latest = new Map<HostMessage['type'], HostMessage>();
  /** A terminal's output is a snapshot of all of it so far: only the last one per terminal matters. */
  private readonly terminals = new Map<string, HostMessage>();
  /** Messages dropped from the start of a very long session (the panel then shows its recent part). */
  dropped = 0;

  /** `max`: how many messages one session keeps (a streamed reply is one message per chunk). */
  constructor(private readonly max = 200_000) {}

  record(message: HostMessage): void {
    if (TRANSIENT.has(message.type)) return;
    if (message.type === 'terminalOutput') {
      this.terminals.delete(message.terminalId); // re-inserted last: replay keeps the order terminals last changed
      this.terminals.set(message.terminalId, message);
      return;
    }
    if (LATEST_ONLY.has(message.type)) {
      this.latest.set(message.type, message);
      return;
    }
    if (message.type === 'sessionStarted') {
      // A new transcript: nothing before it is shown any more.
      this.messages = [];
      this.dropped = 0;
      this.latest.delete('reviewChanges');
      this.terminals.clear();
    }
    this.messages.push(message);
    if (this.messages.length > this.max) {
      // Keep the session's opening (sessionStarted and its options) and drop the oldest tenth of the rest.
      const head = this.messages.findIndex((m) => m.type === 'sessionUpdate');
      const from = head < 0 ? 1 : head;
      const count = Math.ceil(this.max / 10);
      this.messages.splice(from, count);
      this.dropped += count;
    }
  }

  /** Everything to send a new panel, in an order that rebuilds the same state. */
  replay(): HostMessage[] {
    const first = ['agentStatus', 'settings', 'sessionList', 'modelSetup'].flatMap((t) => this.latest.get(t as HostMessage['type']) ?? []);
    const review = this.latest.get('reviewChanges');
    return [...first, ...this.messages, ...this.terminals.values(), ...(review ? [review] : [])];
  }

  get size(): number {
    return this.messages.length;
  }
}
