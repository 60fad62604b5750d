// One-call session setup: policy from the person's tree, workspace, runner, gate.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { setUpIsolatedSession } from '../../../agent/session/isolatedSession';

let dir = '';
after(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

test('an invalid policy makes every call ask, is reported in meta, and the gate is bound to the session copy', { timeout: 120_000 }, async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-setup-')));
  const repo = path.join(dir, 'repo');
  await mkdir(path.join(repo, '.accord'), { recursive: true });
  await writeFile(path.join(repo, '.accord/policy.json'), '{"version":1,"rules":[{"decision":"allow","tool":"*","extra":1}]}');
  execFileSync('git', ['init', '-q'], { cwd: repo });
  const session = await setUpIsolatedSession({ sessionId: 'setup1', projectRoot: repo, dataDir: path.join(dir, 'data'), alwaysApprove: false, withoutSandbox: 'turned off for this test' });
  try {
    assert.equal(session.policy.status, 'invalid');
    assert.match(session.meta['accord/policyError'] ?? '', /rules\[0\]/);
    assert.deepEqual(session.meta['accord/sandbox'], { state: 'unsandboxed', reason: 'turned off for this test' });
    assert.equal(session.workspace.mode, 'git-clone');
    assert.deepEqual(session.commandContext, { sandbox: 'not sandboxed: turned off for this test', network: 'unrestricted (no sandbox)' });
    const root = session.workspace.root;
    const command = { type: 'command' as const, command: { argv: ['ls'], cwd: root, envChanges: {}, timeoutMs: 1000 } };
    assert.equal(session.gate.decide({ name: 'run_command', kind: 'execute' }, {}, command), 'ask');
    const outsideCopy = { type: 'files' as const, changes: [{ path: path.join(repo, 'x.txt'), oldText: null, newText: 'x' }] };
    assert.equal(session.gate.decide({ name: 'write_file', kind: 'edit' }, {}, outsideCopy), 'deny', "the person's real tree is outside the session workspace");
    const outcome = await session.runner.run(['pwd'], { cwd: root, envChanges: {}, timeoutMs: 30_000, signal: new AbortController().signal, onOutput: () => undefined, maxOutputBytes: 4096 });
    assert.equal(outcome.output.trim(), root);
  } finally {
    await session.dispose(true);
  }
});
