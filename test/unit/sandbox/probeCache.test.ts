// A long-lived agent (the daemon) notices bubblewrap and socat installed after
// it started: the sandbox detection keeps a positive answer for good and asks
// again, for a new session, once a negative one is DETECT_RECHECK_MS old.
// The machine's answer and the clock are injected: no test waits on time.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DETECT_RECHECK_MS, SandboxHost, type SandboxStatus } from '../../../agent/sandbox/sandboxHost';
import { ProbeCache } from '../../../agent/sandbox/probeCache';

const missing: SandboxStatus = { state: 'unsandboxed', reason: 'bubblewrap (bwrap) not installed; socat not installed' };
const present: SandboxStatus = { state: 'sandboxed', platform: 'linux', warnings: [] };

/** A machine whose tools can be installed, and a clock that moves only when told. */
function machine() {
  const state = { installed: false, probes: 0, time: 0 };
  const host = new SandboxHost(async () => {
    state.probes++;
    return state.installed ? present : missing;
  }, { now: () => state.time });
  return { state, host };
}

describe('sandbox detection in a long-lived process', () => {
  test('bubblewrap and socat installed while the daemon runs: a later session is sandboxed, without a restart', async () => {
    const saved = process.env.ACCORD_SANDBOX;
    delete process.env.ACCORD_SANDBOX;
    try {
      const { state, host } = machine();
      assert.deepEqual(await host.detect(), missing);
      state.installed = true;
      // A burst of sessions right after: the negative answer is reused, the machine is not probed again.
      assert.deepEqual(await host.detect(), missing);
      assert.equal(state.probes, 1);
      state.time += DETECT_RECHECK_MS;
      assert.deepEqual(await host.detect(), present, 'the next session after the interval probes again and finds them');
      assert.equal(state.probes, 2);
      // Kept for good: later sessions never probe again, whatever the clock says.
      state.installed = false;
      state.time += 100 * DETECT_RECHECK_MS;
      assert.deepEqual(await host.detect(), present);
      assert.equal(state.probes, 2);
    } finally {
      if (saved === undefined) delete process.env.ACCORD_SANDBOX;
      else process.env.ACCORD_SANDBOX = saved;
    }
  });

  test('ACCORD_SANDBOX=off is unsandboxed without probing the machine', async () => {
    const saved = process.env.ACCORD_SANDBOX;
    process.env.ACCORD_SANDBOX = 'off';
    try {
      const { state, host } = machine();
      state.installed = true;
      assert.equal((await host.detect()).state, 'unsandboxed');
      assert.equal(state.probes, 0);
    } finally {
      if (saved === undefined) delete process.env.ACCORD_SANDBOX;
      else process.env.ACCORD_SANDBOX = saved;
    }
  });

  test('sessions starting while a probe runs share it; a probe that fails is a negative answer, asked again later', async () => {
    let calls = 0;
    let time = 0;
    let finish!: (value: string) => void;
    const cache = new ProbeCache<string>({ lasting: (r) => r === 'ok', recheckMs: 10, now: () => time });
    const slow = () => {
      calls++;
      return new Promise<string>((resolve) => (finish = resolve));
    };
    const first = cache.get(slow);
    time += 1000; // however long it takes, callers meanwhile wait for the same answer
    const second = cache.get(slow);
    finish('broken');
    assert.deepEqual(await Promise.all([first, second]), ['broken', 'broken']);
    assert.equal(calls, 1);

    time += 10;
    const failing = cache.get(async () => {
      calls++;
      throw new Error('which: spawn failed');
    });
    await assert.rejects(failing, /spawn failed/);
    assert.equal(calls, 2);
    await assert.rejects(cache.get(async () => 'ok'), /spawn failed/, 'within the interval the failure stands');
    time += 10;
    assert.equal(await cache.get(async () => 'ok'), 'ok');
    assert.equal(await cache.get(async () => 'never asked'), 'ok');
  });

  test('property: probes exactly when the reference model says (negative answers at most once per interval, positive ones never again)', async () => {
    const recheckMs = 5;
    const step = fc.oneof(
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant('set' as const), installed: fc.boolean() }),
      fc.record({ kind: fc.constant('detect' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        let time = 0;
        let installed = false;
        let probes = 0;
        const cache = new ProbeCache<boolean>({ lasting: (ok) => ok, recheckMs, now: () => time });
        // The reference: the last answer and when it came.
        let model: { ok: boolean; at: number } | undefined;
        let modelProbes = 0;
        for (const s of steps) {
          if (s.kind === 'advance') time += s.ms;
          else if (s.kind === 'set') installed = s.installed;
          else {
            const got = await cache.get(async () => {
              probes++;
              return installed;
            });
            if (!model || (!model.ok && time - model.at >= recheckMs)) {
              model = { ok: installed, at: time };
              modelProbes++;
            }
            assert.equal(got, model.ok);
            assert.equal(probes, modelProbes);
          }
        }
      }),
    );
  });
});
