// Property: however the client interleaves the `_accord/lm/parts` of several
// concurrent requests (and however early each answer arrives), every request
// gets exactly its own parts, in order, and stray or malformed notifications
// reach nobody. Checked against a reference model (a map of stream → parts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AgentApp, AgentContext } from '@agentclientprotocol/sdk/unstable';
import { ClientModelChannel } from '../../../agent/acp/clientModels';
import { LM_METHODS, type LmChatResult, type LmStreamPart } from '../../../protocol/accordMethods';

type Handler = (context: { params: unknown }) => void;

interface Pending {
  streamId: string;
  resolve(result: LmChatResult): void;
}

/** A connection double: captures the parts handler and each chat request, answered when the schedule says. */
function fakeConnection() {
  let handler: Handler | undefined;
  const pending: Pending[] = [];
  const app = { onNotification: (_method: string, _parser: unknown, h: Handler) => ((handler = h), app) } as unknown as AgentApp;
  const client = {
    request: (method: string, params: { streamId: string }) => {
      assert.equal(method, LM_METHODS.chat);
      return new Promise<LmChatResult>((resolve) => pending.push({ streamId: params.streamId, resolve }));
    },
  } as unknown as AgentContext;
  return { app, client, pending, deliver: (params: unknown) => handler!({ params }) };
}

const step = fc.oneof(
  fc.record({ kind: fc.constant('part' as const), stream: fc.nat(3), text: fc.string({ minLength: 1, maxLength: 5 }) }),
  fc.record({ kind: fc.constant('answer' as const), stream: fc.nat(3) }),
  fc.record({ kind: fc.constant('stray' as const), text: fc.string({ maxLength: 5 }) }),
  fc.record({ kind: fc.constant('malformed' as const), stream: fc.nat(3) }),
);

test('concurrent lent-model requests each get exactly their own parts, in order', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(step, { maxLength: 40 }), async (streams, schedule) => {
      const connection = fakeConnection();
      const channel = new ClientModelChannel();
      channel.register(connection.app);
      const host = channel.host(connection.client, true)!;
      const received: LmStreamPart[][] = Array.from({ length: streams }, () => []);
      const done = Array.from({ length: streams }, (_, i) =>
        host.chat({ vendor: 'v', model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], toolMode: 'auto' }, (parts) => received[i]!.push(...parts)));
      await new Promise((r) => setImmediate(r));
      assert.equal(connection.pending.length, streams);
      // The reference model: what each stream was sent, and whether its answer went out.
      const sent: LmStreamPart[][] = Array.from({ length: streams }, () => []);
      const answered = new Set<number>();
      const answer = (i: number) => {
        answered.add(i);
        connection.pending[i]!.resolve({ parts: sent[i]!.length, usage: { inputTokens: 1, outputTokens: 1 }, estimated: true });
      };
      for (const s of schedule) {
        if (s.kind === 'stray') connection.deliver({ streamId: `stray-${s.text}`, parts: [{ type: 'text', text: 'STRAY' }] });
        if (s.kind === 'malformed' && s.stream < streams) connection.deliver({ streamId: connection.pending[s.stream]!.streamId, parts: [{ type: 'bogus' }] });
        // A part after the answer went out would be a client bug the count already settled: the schedule never sends one.
        if (s.kind === 'part' && s.stream < streams && !answered.has(s.stream)) {
          const part: LmStreamPart = { type: 'text', text: s.text };
          sent[s.stream]!.push(part);
          connection.deliver({ streamId: connection.pending[s.stream]!.streamId, parts: [part] });
        }
        // Answers interleave with other streams' parts in any order (an answer ahead of its own parts: the next test).
        if (s.kind === 'answer' && s.stream < streams && !answered.has(s.stream)) answer(s.stream);
      }
      for (let i = 0; i < streams; i++) if (!answered.has(i)) answer(i);
      const results = await Promise.all(done);
      for (let i = 0; i < streams; i++) {
        assert.deepEqual(received[i], sent[i], `stream ${i} got exactly its parts`);
        assert.equal(results[i]!.parts, sent[i]!.length);
      }
    }),
    { numRuns: 150 },
  );
});

test('an answer that counts parts still on their way waits for them', async () => {
  const connection = fakeConnection();
  const channel = new ClientModelChannel();
  channel.register(connection.app);
  const received: string[] = [];
  const chat = channel.host(connection.client, true)!.chat(
    { vendor: 'v', model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], toolMode: 'auto' },
    (parts) => received.push(...parts.map((p) => (p.type === 'text' ? p.text : p.name))),
  );
  await new Promise((r) => setImmediate(r));
  const [request] = connection.pending;
  request!.resolve({ parts: 2, usage: { inputTokens: 1, outputTokens: 1 }, estimated: true });
  let settled = false;
  void chat.then(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'not finished before the counted parts arrived');
  connection.deliver({ streamId: request!.streamId, parts: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] });
  await chat;
  assert.deepEqual(received, ['a', 'b']);
});
