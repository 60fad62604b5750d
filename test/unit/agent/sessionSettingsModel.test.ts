// Property test: random sequences of session/set_mode and
// session/set_config_option calls (valid, wrapped, boolean, unknown) against
// a small reference model of the session's settings. After every call the
// agent's answer and its config options agree with the model, refused calls
// change nothing, and current_mode_update is sent exactly when the mode moved.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { methods } from '@agentclientprotocol/sdk/unstable';
import { updatesOf } from './harness';
import { initializedAgent } from './agentSessions';

type Op =
  | { kind: 'setMode'; modeId: string }
  | { kind: 'config'; configId: 'mode' | 'reasoning_effort' | 'nope'; value: unknown };

const modeValues = ['ask', 'auto', 'yolo', 'ASK', ''];
const effortValues = ['off', 'low', 'medium', 'high', 'extreme'];
const anyValue = (values: string[]) =>
  fc.oneof(
    fc.constantFrom(...values),
    fc.constantFrom(...values).map((value) => ({ value })),
    fc.boolean(),
    fc.constantFrom<unknown>(null, 3, ['ask'], { other: 'ask' }),
  );
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constantFrom(...modeValues).map((modeId): Op => ({ kind: 'setMode', modeId })),
  anyValue(modeValues).map((value): Op => ({ kind: 'config', configId: 'mode', value })),
  anyValue(effortValues).map((value): Op => ({ kind: 'config', configId: 'reasoning_effort', value })),
  fc.constant<Op>({ kind: 'config', configId: 'nope', value: 'ask' }),
);

/** The reference: what a call does to { mode, effort }, or undefined when it must be refused. */
function model(state: { mode: string; effort: string }, o: Op): { mode: string; effort: string } | undefined {
  if (o.kind === 'setMode') return ['ask', 'auto'].includes(o.modeId) ? { ...state, mode: o.modeId } : undefined;
  const value = typeof o.value === 'object' && o.value !== null && 'value' in o.value ? (o.value as { value: unknown }).value : o.value;
  if (typeof value !== 'string') return undefined;
  if (o.configId === 'mode') return ['ask', 'auto'].includes(value) ? { ...state, mode: value } : undefined;
  if (o.configId === 'reasoning_effort') return ['off', 'low', 'medium', 'high'].includes(value) ? { ...state, effort: value } : undefined;
  return undefined;
}

describe('session settings against a reference model', () => {
  const shared = initializedAgent('accord-settings-model-');

  test('random set_mode / set_config_option sequences', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
        const { sessionId, modes } = await shared.agent.connection.agent.request(methods.agent.session.new, { cwd: shared.model.configDir, mcpServers: [] });
        let state = { mode: modes!.currentModeId, effort: 'medium' };
        const announced: string[] = [];
        for (const o of ops) {
          const next = model(state, o);
          const call =
            o.kind === 'setMode'
              ? shared.agent.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: o.modeId })
              : shared.agent.connection.agent.request('session/set_config_option' as never, { sessionId, configId: o.configId, value: o.value } as never);
          const outcome = await (call as Promise<unknown>).then(
            (result) => ({ ok: true as const, result: result as { configOptions?: Array<{ id: string; currentValue: unknown }> } }),
            (error: { code?: number }) => ({ ok: false as const, code: error.code }),
          );
          assert.equal(outcome.ok, next !== undefined, `${JSON.stringify(o)} ${next ? 'accepted' : 'refused'} by the model`);
          if (!outcome.ok) {
            assert.equal(outcome.code, -32602, JSON.stringify(o));
            continue;
          }
          if (next!.mode !== state.mode) announced.push(next!.mode);
          state = next!;
          if (outcome.result.configOptions) {
            const current = Object.fromEntries(outcome.result.configOptions.map((c) => [c.id, c.currentValue]));
            assert.deepEqual([current.mode, current.reasoning_effort], [state.mode, state.effort]);
          }
        }
        // The mode the agent now reports, through a no-op change that answers the full set.
        const { configOptions } = (await shared.agent.connection.agent.request('session/set_config_option' as never, { sessionId, configId: 'mode', value: state.mode } as never)) as { configOptions: Array<{ id: string; currentValue: unknown }> };
        assert.equal(configOptions.find((c) => c.id === 'mode')?.currentValue, state.mode);
        // Announcements are sent in order, after the answers: wait for the last one the model expects.
        if (announced.length > 0) await shared.agent.waitForUpdate((n) => n.sessionId === sessionId && updatesOf(shared.agent, sessionId, 'current_mode_update').length >= announced.length);
        assert.deepEqual(updatesOf(shared.agent, sessionId, 'current_mode_update').map((u) => u.currentModeId), announced);
      }),
      { numRuns: 60 },
    );
  });
});
