// The v2 facade's connection to the v1 app, in memory. A plain JSON-RPC
// endpoint rather than the SDK's ClientApp: the ClientApp validates every
// session/update against the v1 schema, which for updates the agent itself
// just made tripled the cost of a v2 replay. Requests the app sends
// (permission questions) are answered by `handlers.request`; a
// `$/cancel_request` aborts the matching one's signal.
import { RequestError, type AgentApp, type AnyMessage } from '@agentclientprotocol/sdk/unstable';

export interface InnerHandlers {
  /** Called in the order the app sent them; the next waits for this one. */
  notification(method: string, params: unknown): Promise<void>;
  request(method: string, params: unknown, signal: AbortSignal): Promise<unknown>;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** How a request ended, as `requestSettled` reports it. */
export type Settled<T> = { answer: T } | { error: RequestError | Error };

type Message = { jsonrpc: '2.0'; id?: string | number | null; method?: string; params?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

export class InnerLink {
  private readonly writer: WritableStreamDefaultWriter<AnyMessage>;
  private readonly pending = new Map<number, Pending>();
  private readonly answering = new Map<string | number, AbortController>();
  private nextId = 0;
  private closed = false;

  constructor(app: AgentApp, private readonly handlers: InnerHandlers) {
    const toAgent = new TransformStream<AnyMessage, AnyMessage>();
    this.writer = toAgent.writable.getWriter();
    // The app's messages are taken straight from its writes (no readable side to read back
    // from): half the stream hops per message, which a v2 replay of every update pays.
    // The app's next write waits for `receive` of this one, so the order holds.
    const toClient = new WritableStream<AnyMessage>({
      write: (message) => this.receive(message as unknown as Message),
      close: () => this.close(),
      abort: () => this.close(),
    });
    app.connect({ readable: toAgent.readable, writable: toClient });
  }

  request<T>(method: string, params: unknown): Promise<T> {
    if (this.closed) return Promise.reject(new Error('ACP connection closed'));
    const id = ++this.nextId;
    const answer = new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }));
    void this.write({ jsonrpc: '2.0', id, method, params });
    return answer;
  }

  /**
   * Like `request`, but `settled` runs synchronously when the answer is read, before the app's
   * next message is handled: what it queues (a state_update) keeps its place among the
   * notifications that follow (the next prompt's insertion).
   */
  requestSettled<T>(method: string, params: unknown, settled: (outcome: Settled<T>) => void): void {
    if (this.closed) {
      settled({ error: new Error('ACP connection closed') });
      return;
    }
    const id = ++this.nextId;
    this.pending.set(id, { resolve: (answer) => settled({ answer: answer as T }), reject: (error) => settled({ error: error as Error }) });
    void this.write({ jsonrpc: '2.0', id, method, params });
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.write({ jsonrpc: '2.0', method, params });
  }

  /** Ends the app's connection: pending requests fail, questions being answered are aborted. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const error = new Error('ACP connection closed');
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    for (const controller of this.answering.values()) controller.abort(error);
    this.answering.clear();
    void this.writer.close().catch(() => undefined);
  }

  private async write(message: Message): Promise<void> {
    if (this.closed) return;
    await this.writer.write(message as AnyMessage).catch(() => this.close());
  }

  private async receive(message: Message): Promise<void> {
    if (this.closed) return;
    try {
      if (message.method === undefined) this.settle(message);
      else if (message.id === undefined || message.id === null) await this.notified(message.method, message.params);
      else void this.answer(message.id, message.method, message.params);
    } catch (error) {
      // Not expected (the handlers catch their own): the connection ends rather than go on half-served.
      this.close();
      throw error;
    }
  }

  private settle(message: Message): void {
    const pending = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
    if (!pending) return;
    this.pending.delete(message.id as number);
    if (message.error) pending.reject(new RequestError(message.error.code, message.error.message, message.error.data));
    else pending.resolve(message.result);
  }

  private async notified(method: string, params: unknown): Promise<void> {
    if (method === '$/cancel_request') {
      const id = (params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) this.answering.get(id)?.abort(new Error('withdrawn by the agent'));
      return;
    }
    await this.handlers.notification(method, params).catch((error: unknown) => {
      console.error(`accord: v2: passing on ${method}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  private async answer(id: string | number, method: string, params: unknown): Promise<void> {
    const controller = new AbortController();
    this.answering.set(id, controller);
    try {
      const result = await this.handlers.request(method, params, controller.signal);
      await this.write({ jsonrpc: '2.0', id, result: result ?? null });
    } catch (error) {
      const { code, message, data } = error instanceof RequestError ? error : { code: -32603, message: error instanceof Error ? error.message : String(error), data: undefined };
      await this.write({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } });
    } finally {
      this.answering.delete(id);
    }
  }
}
