// SessionWorkspaces' bookkeeping (preparing → ready | failed, release at any
// point) against a small reference model, with fast-check choosing the order
// of prepare / finish / release. The copy itself is a stand-in here that the
// test finishes or fails on command; the real copy is covered by
// test/unit/agent/workspaceReady.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SessionWorkspaces } from '../../../agent/session/workspaces';
import type { IsolatedSession } from '../../../agent/session/isolatedSession';

type State = 'none' | 'preparing' | 'ready' | 'failed';
const ids = ['s1', 's2', 's3'];
const op = fc.oneof(
  fc.record({ kind: fc.constant('prepare' as const), id: fc.constantFrom(...ids) }),
  fc.record({ kind: fc.constant('finish' as const), id: fc.constantFrom(...ids), fail: fc.boolean() }),
  fc.record({ kind: fc.constant('release' as const), id: fc.constantFrom(...ids) }),
);

test('ready() always matches the model: a failed copy stays failed, a released one is gone, and every copy made is either handed out or removed', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
      const pending = new Map<string, { finish(fail: boolean): void }>();
      const made: Array<{ id: string; removed: boolean; disposed: boolean }> = [];
      const setUp = (options: { sessionId: string }) =>
        new Promise<IsolatedSession>((resolve, reject) => {
          pending.set(options.sessionId, {
            finish(fail) {
              pending.delete(options.sessionId);
              if (fail) return reject(new Error(`copy of ${options.sessionId} failed`));
              const copy = { id: options.sessionId, removed: false, disposed: false };
              made.push(copy);
              resolve({ workspace: { root: `/copy/${options.sessionId}` }, dispose: async (remove?: boolean) => { copy.disposed = true; copy.removed = !!remove; } } as unknown as IsolatedSession);
            },
          });
        });
      const workspaces = new SessionWorkspaces({ dataDir: '/unused', alwaysApprove: false }, setUp as never);
      const model = new Map<string, State>(ids.map((id) => [id, 'none']));
      const settle = () => new Promise((resolve) => setImmediate(resolve));
      const releases: Promise<void>[] = [];
      for (const step of ops) {
        const state = model.get(step.id)!;
        if (step.kind === 'prepare' && state === 'none' && !pending.has(step.id)) {
          void workspaces.prepare(step.id, '/p', false).catch(() => undefined);
          model.set(step.id, 'preparing');
        } else if (step.kind === 'finish' && pending.has(step.id)) {
          pending.get(step.id)!.finish(step.fail);
          if (state === 'preparing') model.set(step.id, step.fail ? 'failed' : 'ready');
          else if (!step.fail) {
            // Made for a session released meanwhile: removed at once, never handed out.
            await settle();
            assert.deepEqual({ ...made.at(-1)! }, { id: step.id, removed: true, disposed: true });
          }
        } else if (step.kind === 'release') {
          // A release waits for a copy being made; the test finishes it as "ok" later (or now).
          releases.push(workspaces.release(step.id));
          model.set(step.id, 'none');
        }
        await settle();
        for (const id of ids) {
          const expected = model.get(id)!;
          // Still being made (or a released one not yet stopped): ready() would wait for it.
          if (expected === 'preparing' || pending.has(id)) continue;
          const outcome = await workspaces.ready(id).then((s) => (s ? 'ready' : 'none'), () => 'failed');
          assert.equal(outcome, expected, `${id} after ${JSON.stringify(step)}`);
        }
      }
      for (const id of [...pending.keys()]) pending.get(id)!.finish(false);
      await Promise.all(releases);
      await workspaces.releaseAll();
      for (const copy of made) assert.ok(copy.disposed, `every copy made is released at the end (${copy.id})`);
      // A copy whose session was released before it was ready was removed, never handed out.
      for (const id of ids) assert.equal(await workspaces.ready(id), undefined);
    }),
    { numRuns: 200 },
  );
});

test('plan() matches the model: the root once reported (or the ready copy\'s), the failure once failed, nothing for an unknown session; isReady only when handed out', async () => {
  type PlanState = 'none' | 'preparing' | 'planned' | 'ready' | 'failed';
  const planOp = fc.oneof(
    fc.record({ kind: fc.constant('prepare' as const), id: fc.constantFrom(...ids) }),
    fc.record({ kind: fc.constant('plan' as const), id: fc.constantFrom(...ids) }),
    fc.record({ kind: fc.constant('finish' as const), id: fc.constantFrom(...ids), fail: fc.boolean() }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(planOp, { maxLength: 20 }), async (ops) => {
      const pending = new Map<string, { plan(): void; finish(fail: boolean): void }>();
      const setUp = (options: { sessionId: string }, onPlan?: (plan: { root: string; policy: unknown }) => void | Promise<void>) =>
        new Promise<IsolatedSession>((resolve, reject) => {
          pending.set(options.sessionId, {
            plan: () => void onPlan?.({ root: `/copy/${options.sessionId}`, policy: { status: 'absent' } }),
            finish(fail) {
              pending.delete(options.sessionId);
              if (fail) return reject(new Error(`copy of ${options.sessionId} failed`));
              resolve({ workspace: { root: `/copy/${options.sessionId}` }, policy: { status: 'absent' }, dispose: async () => undefined } as unknown as IsolatedSession);
            },
          });
        });
      const workspaces = new SessionWorkspaces({ dataDir: '/unused', alwaysApprove: false }, setUp as never);
      const model = new Map<string, PlanState>(ids.map((id) => [id, 'none']));
      const settle = () => new Promise((resolve) => setImmediate(resolve));
      for (const step of ops) {
        const state = model.get(step.id)!;
        if (step.kind === 'prepare' && state === 'none') {
          void workspaces.prepare(step.id, '/p', false).catch(() => undefined);
          model.set(step.id, 'preparing');
        } else if (step.kind === 'plan' && state === 'preparing' && pending.has(step.id)) {
          pending.get(step.id)!.plan();
          model.set(step.id, 'planned');
        } else if (step.kind === 'finish' && pending.has(step.id)) {
          pending.get(step.id)!.finish(step.fail);
          model.set(step.id, step.fail ? 'failed' : 'ready');
        }
        await settle();
        for (const id of ids) {
          const expected = model.get(id)!;
          assert.equal(workspaces.isReady(id), expected === 'ready', `isReady(${id}) after ${JSON.stringify(step)}`);
          if (expected === 'preparing') continue; // plan() waits for the root
          const outcome = await workspaces.plan(id).then((plan) => (plan ? plan.root : 'none'), () => 'failed');
          const want = expected === 'planned' || expected === 'ready' ? `/copy/${id}` : expected;
          assert.equal(outcome, want, `plan(${id}) after ${JSON.stringify(step)}`);
        }
      }
      for (const id of [...pending.keys()]) pending.get(id)!.finish(false);
      await workspaces.releaseAll();
    }),
    { numRuns: 200 },
  );
});
