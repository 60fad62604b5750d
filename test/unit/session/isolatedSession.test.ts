// One-call session setup: policy from the person's tree, workspace, runner, gate.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { reattachIsolatedSession, setUpIsolatedSession } from '../../../agent/session/isolatedSession';
import { listChanges } from '../../../agent/session/isolatedDiff';

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

test("the copy's layout: git dir outside the work tree, the agent's own .git beside the files, a 0700 private folder made exclusively", { timeout: 120_000 }, async () => {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-layout-')));
  try {
    const repo = path.join(base, 'repo');
    await mkdir(repo);
    await writeFile(path.join(repo, 'a.txt'), 'a\n');
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    execFileSync('sh', ['-c', 'git init -q && git add -A && git commit -q -m init'], { cwd: repo, env });
    const dataDir = path.join(base, 'data');
    // Someone made the next session's private folder first (or a link in its place): never reused.
    await mkdir(path.join(dataDir, 'private'), { recursive: true, mode: 0o700 });
    await symlink(base, path.join(dataDir, 'private', 'taken'));
    await assert.rejects(setUpIsolatedSession({ sessionId: 'taken', projectRoot: repo, dataDir, alwaysApprove: false, withoutSandbox: 'test' }), /private folder/);
    assert.equal(existsSync(path.join(dataDir, 'sessions', 'taken')), false, 'nothing is left behind');

    const session = await setUpIsolatedSession({ sessionId: 'layout1', projectRoot: repo, dataDir, alwaysApprove: false, withoutSandbox: 'test' });
    try {
      const ws = session.workspace;
      assert.equal(ws.gitDir, path.join(dataDir, 'sessions', 'layout1', 'git'));
      assert.equal(ws.privateDir, path.join(dataDir, 'private', 'layout1'));
      assert.equal(statSync(ws.privateDir).mode & 0o777, 0o700);
      assert.ok(statSync(path.join(ws.workTree, '.git')).isDirectory(), "the agent's own repository");
      const agentGit = (...args: string[]) => execFileSync('git', args, { cwd: ws.workTree, env, encoding: 'utf8' });
      assert.equal(agentGit('status', '--porcelain'), '', 'a clean checkout for the agent');
      assert.match(agentGit('log', '--oneline', '-1'), /base/);
      // Whatever the agent does to its own repository, the review still sees the files.
      await writeFile(path.join(ws.workTree, '.git', 'HEAD'), 'ref: refs/heads/nowhere\n');
      await writeFile(path.join(ws.workTree, 'b.txt'), 'b\n');
      assert.deepEqual((await listChanges(ws)).map((c) => `${c.status} ${c.path}`), ['added b.txt']);
    } finally {
      await session.dispose();
    }

    // A session recorded with its git dir inside the work tree (the old layout) is not re-attached.
    const old = { ...session.workspace, gitDir: path.join(session.workspace.workTree, '.git') };
    await assert.rejects(reattachIsolatedSession(old, { projectRoot: repo, dataDir, alwaysApprove: false, withoutSandbox: 'test' }), /no longer runs git on it/);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});
