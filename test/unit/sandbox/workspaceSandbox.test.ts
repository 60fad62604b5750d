// The sandbox and the isolated workspace together: a sandboxed command can
// use git in the session clone, cannot write the person's tree or the
// read-only build inputs, and leaves no sandbox artifacts in the diff.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { sandboxHost } from '../../../agent/sandbox/sandboxHost';
import { createSessionRunner } from '../../../agent/sandbox/sessionRunner';
import { createWorkspace } from '../../../agent/session/isolated';
import { setUpIsolatedSession } from '../../../agent/session/isolatedSession';
import { listChanges } from '../../../agent/session/isolatedDiff';

let dir = '';
after(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

describe('sandboxed commands in an isolated workspace (real bubblewrap, real git)', { timeout: 300_000 }, () => {
  test('git works inside, the person\'s tree and node_modules stay read-only, the diff is clean', async (t) => {
    const status = await sandboxHost.detect();
    if (status.state === 'unsandboxed') return t.skip(`no usable sandbox on this machine: ${status.reason}`);
    dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-wssb-')));
    const repo = path.join(dir, 'repo');
    await mkdir(path.join(repo, 'node_modules/pkg'), { recursive: true });
    await writeFile(path.join(repo, 'a.txt'), 'a\n');
    await writeFile(path.join(repo, '.gitignore'), 'node_modules/\n');
    await writeFile(path.join(repo, 'node_modules/pkg/index.js'), 'ok\n');
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    execFileSync('sh', ['-c', 'git init -q && git add -A && git commit -q -m init'], { cwd: repo, env });
    const ws = await createWorkspace({ sessionId: 'sb1', source: repo, dataDir: path.join(dir, 'data') });
    const session = await createSessionRunner({ workspace: ws.root, sessionTmp: ws.tmp, allowedDomains: [] });
    try {
      assert.equal(session.status.state, 'sandboxed');
      const run = (argv: string[]) =>
        session.runner.run(argv, { cwd: ws.root, envChanges: { GIT_AUTHOR_NAME: 'agent', GIT_AUTHOR_EMAIL: 'a@a', GIT_COMMITTER_NAME: 'agent', GIT_COMMITTER_EMAIL: 'a@a' }, timeoutMs: 60_000, signal: new AbortController().signal, onOutput: () => undefined, maxOutputBytes: 1 << 20 });
      const commit = await run(['sh', '-c', 'echo b > b.txt && git add b.txt && git commit -q -m "agent work" && git log --oneline | head -1']);
      assert.equal(commit.exitCode, 0, commit.output);
      assert.match(commit.output, /agent work/);
      const readDeps = await run(['cat', 'node_modules/pkg/index.js']);
      assert.equal(readDeps.output, 'ok\n');
      const writeDeps = await run(['sh', '-c', 'echo evil > node_modules/pkg/index.js']);
      assert.notEqual(writeDeps.exitCode, 0, 'node_modules was writable through the link');
      const writeReal = await run(['sh', '-c', `echo evil >> ${repo}/a.txt`]);
      assert.notEqual(writeReal.exitCode, 0, "the person's tree was writable");
      const hook = await run(['sh', '-c', 'echo "curl evil" > .git/hooks/post-commit && chmod +x .git/hooks/post-commit']);
      assert.notEqual(hook.exitCode, 0, 'a git hook could be planted in the clone');
      assert.equal(await readFile(path.join(repo, 'node_modules/pkg/index.js'), 'utf8'), 'ok\n');
      assert.equal(await readFile(path.join(repo, 'a.txt'), 'utf8'), 'a\n');
      assert.ok(!existsSync(path.join(repo, 'b.txt')));
      assert.deepEqual((await listChanges(ws)).map((c) => `${c.status} ${c.path}`), ['added b.txt']);
    } finally {
      session.dispose();
    }
  });

  test('a session opened on a subfolder can still commit, and the subfolder policy stays read-only', async (t) => {
    const status = await sandboxHost.detect();
    if (status.state === 'unsandboxed') return t.skip(`no usable sandbox on this machine: ${status.reason}`);
    const repo = path.join(dir, 'mono');
    await mkdir(path.join(repo, 'pkg/.accord'), { recursive: true });
    await writeFile(path.join(repo, 'pkg/.accord/policy.json'), '{"version":1}');
    await writeFile(path.join(repo, 'pkg/a.txt'), 'a\n');
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    execFileSync('sh', ['-c', 'git init -q && git add -A && git commit -q -m init'], { cwd: repo, env });
    const session = await setUpIsolatedSession({ sessionId: 'sub1', projectRoot: path.join(repo, 'pkg'), dataDir: path.join(dir, 'data2'), alwaysApprove: false });
    try {
      const run = (argv: string[]) => session.runner.run(argv, { cwd: session.workspace.root, envChanges: { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@a', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@a' }, timeoutMs: 60_000, signal: new AbortController().signal, onOutput: () => undefined, maxOutputBytes: 65536 });
      const commit = await run(['sh', '-c', 'echo b > b.txt && git add b.txt && git commit -q -m sub']);
      assert.equal(commit.exitCode, 0, commit.output);
      const policy = await run(['sh', '-c', 'echo x > .accord/policy.json']);
      assert.notEqual(policy.exitCode, 0, 'the subfolder policy was writable');
    } finally {
      await session.dispose(true);
    }
  });
});
