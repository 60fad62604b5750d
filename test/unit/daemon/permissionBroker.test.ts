// The permission broker against a small reference model, with fast-check:
// random attaches, detaches, answers (allow, reject, cancelled, error) and a
// turn cancel. The first real answer wins; a client is asked only while
// attached and at most once at a time; everyone else asked is withdrawn and
// told it is settled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import { PermissionBroker, SETTLED_METHOD, type Asked } from '../../../agent/daemon/permissionBroker';

type Answer = 'allow' | 'reject' | 'cancelled' | 'error';
type Step = { kind: 'attach'; client: number } | { kind: 'detach'; client: number } | { kind: 'answer'; client: number; answer: Answer } | { kind: 'abort' };

class FakeClient implements Asked {
  open = true;
  asks = 0;
  settledNotices = 0;
  pending: { resolve(v: unknown): void; reject(e: unknown): void; signal: AbortSignal } | undefined;
  readonly client = {
    request: (_method: string, _params: unknown, options: { cancellationSignal: AbortSignal }) =>
      new Promise((resolve, reject) => {
        this.asks++;
        this.pending = { resolve, reject, signal: options.cancellationSignal };
        options.cancellationSignal.addEventListener('abort', () => reject(new Error('cancelled by the agent')), { once: true });
      }),
    notify: async (method: string) => {
      if (method === SETTLED_METHOD) this.settledNotices++;
    },
  } as unknown as AgentContext;
  isOpen = () => this.open;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('attach' as const), client: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('detach' as const), client: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('answer' as const), client: fc.integer({ min: 0, max: 2 }), answer: fc.constantFrom<Answer>('allow', 'reject', 'cancelled', 'error') }),
  fc.record({ kind: fc.constant('abort' as const) }),
);

test('permission broker: first answer wins, only attached clients are asked, the rest are withdrawn and told', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 3 }), fc.array(step, { maxLength: 25 }), async (initial, steps) => {
      const clients = [0, 1, 2].map(() => new FakeClient());
      const attached = new Set<number>(initial);
      const broker = new PermissionBroker('s1', () => [...attached].map((i) => clients[i]!), () => null);
      const turn = new AbortController();
      let result: string | undefined;
      void broker.ask({ toolCallId: 't1', title: 'Edit a file' } as never, turn.signal).then((r) => (result = typeof r === 'string' ? r : 'deferred')); // the broker never defers
      await flush();
      // Reference model.
      let expected: string | undefined;
      const asked = new Set<number>(attached);
      for (const s of steps) {
        if (expected !== undefined) break;
        if (s.kind === 'attach') {
          if (attached.has(s.client)) continue;
          attached.add(s.client);
          broker.attachedClient(clients[s.client]!);
          asked.add(s.client);
        } else if (s.kind === 'detach') {
          if (!attached.has(s.client)) continue;
          attached.delete(s.client);
          broker.detachedClient(clients[s.client]!);
          asked.delete(s.client);
        } else if (s.kind === 'answer') {
          const pending = clients[s.client]!.pending;
          if (!asked.has(s.client) || !pending || pending.signal.aborted) continue;
          clients[s.client]!.pending = undefined;
          if (s.answer === 'error') {
            pending.reject(new Error('client error'));
            asked.delete(s.client);
            // An error from the only client still holding the question is a refusal (as with one editor).
            if (asked.size === 0) expected = 'reject';
          } else if (s.answer === 'cancelled') {
            pending.resolve({ outcome: { outcome: 'cancelled' } });
            asked.delete(s.client);
          } else {
            pending.resolve({ outcome: { outcome: 'selected', optionId: s.answer === 'allow' ? 'allow_once' : 'reject_once' } });
            expected = s.answer;
          }
        } else {
          turn.abort();
          expected = 'cancelled';
        }
        await flush();
      }
      await flush();
      assert.equal(result, expected);
      for (const [i, client] of clients.entries()) {
        if (!attached.has(i) && client.pending) assert.ok(client.pending.signal.aborted, `client ${i} is no longer attached: its question is withdrawn`);
        if (expected !== undefined && client.pending) assert.ok(client.pending.signal.aborted, `client ${i}: settled questions are withdrawn`);
      }
      if (expected === undefined) {
        assert.equal(broker.waiting, 1);
        for (const i of attached) assert.ok(clients[i]!.pending || !asked.has(i), `attached client ${i} holds the question`);
      } else {
        assert.equal(broker.waiting, 0);
      }
    }),
    { numRuns: 300 },
  );
});

test('with nobody attached, a question expires after the wait (declined); with --durable-requests it does not', async () => {
  // The broker's timer does not hold a process open (the daemon's server does); here the test does.
  const keepAlive = setInterval(() => {}, 1000);
  try {
    const none = new PermissionBroker('s1', () => [], () => 20);
    const answer = await none.ask({ toolCallId: 't1' } as never, new AbortController().signal);
    assert.equal(answer, 'reject');
    const durable = new PermissionBroker('s2', () => [], () => null);
    const turn = new AbortController();
    const pending = durable.ask({ toolCallId: 't2' } as never, turn.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(durable.waiting, 1, 'still waiting');
    turn.abort();
    assert.equal(await pending, 'cancelled');
  } finally {
    clearInterval(keepAlive);
  }
});
