// "Accord: Show ACP Traffic": every JSON-RPC message between Accord and an
// agent, secrets redacted, in an output channel created on first use.
import * as vscode from 'vscode';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk/unstable';
import { redact } from './redact';
import { forLog } from '../text/agentText';

const MAX_LINE = 20_000;

export class TrafficLog implements vscode.Disposable {
  private channel: vscode.OutputChannel | undefined;
  private readonly recent: string[] = [];

  /** `secrets` returns the exact secret values to hide (e.g. stored API keys). */
  constructor(private readonly secrets: () => readonly string[] = () => []) {}

  /** Wraps an ACP stream so both directions are recorded under `agentName`. */
  tap(stream: Stream, agentName: string): Stream {
    const record = (arrow: string) =>
      new TransformStream<AnyMessage, AnyMessage>({
        transform: (message, controller) => {
          this.append(agentName, arrow, message);
          controller.enqueue(message);
        },
      });
    const outgoing = record('→');
    void outgoing.readable.pipeTo(stream.writable).catch(() => {});
    return { writable: outgoing.writable, readable: stream.readable.pipeThrough(record('←')) };
  }

  show(): void {
    this.ensureChannel().show(true);
  }

  /** The last lines recorded (tests read this). */
  get lines(): readonly string[] {
    return this.recent;
  }

  dispose(): void {
    this.channel?.dispose();
  }

  private append(agentName: string, arrow: string, message: AnyMessage): void {
    let text = JSON.stringify(redact(message, this.secrets()));
    if (text.length > MAX_LINE) text = `${text.slice(0, MAX_LINE)}… (${text.length} characters)`;
    // JSON escapes controls but not bidi or zero-width characters: the log line goes through the same helper.
    const line = forLog(`${new Date().toISOString()} ${agentName} ${arrow} ${text}`, MAX_LINE + 200);
    this.recent.push(line);
    if (this.recent.length > 500) this.recent.shift();
    this.channel?.appendLine(line);
  }

  private ensureChannel(): vscode.OutputChannel {
    if (!this.channel) {
      this.channel = vscode.window.createOutputChannel('Accord ACP Traffic');
      for (const line of this.recent) this.channel.appendLine(line);
    }
    return this.channel;
  }
}
