// `accord sessions remove` of a session whose copy was never recorded: the
// agent stopped while making it, after pinning its base in the person's
// repository (`refs/accord/sessions/<id>`) but before the log's `workspace`
// record. The log then says `workspace: { preparing: true }` and names only
// the session's folder; remove must drop that one ref too, and no other: not
// through a symbolic ref planted in its place, not for another session named
// in the log's content, not for a folder the log names relatively. Pinning a
// base never writes through a planted symbolic ref either.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { SessionStore } from '../../../agent/log';
import { runSessionsCli } from '../../../agent/log/cli';
import { createWorkspace } from '../../../agent/session/isolated';
import { gitProject } from '../agent/isolationFixtures';
import { newSession } from './fixtures';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' } }).trim();
/** Every ref with its value, and its target when symbolic. */
const refs = (project: string) =>
  git(project, 'for-each-ref', '--format=%(refname) %(objectname) %(symref)')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter(Boolean)
    .sort();

async function removeCli(id: string, dataDir: string): Promise<number> {
  return runSessionsCli(['remove', id, '--yes'], { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), interactive: false, dataDir });
}

/** The log an agent leaves when it stops mid-preparation: session_created says `preparing`, no `workspace` record follows. */
async function unfinishedLog(dataDir: string, id: string, fields: Record<string, unknown> = {}): Promise<void> {
  const store = new SessionStore(dataDir);
  await (await store.create({ ...newSession(), id, workspace: { preparing: true, inPlace: false }, ...fields })).close();
}

describe('accord sessions remove: a copy whose making was never recorded', () => {
  test('its base ref in the person\'s repository goes with its leftover folders; other refs stay', { timeout: 120_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    try {
      // What the stopped agent had done: the copy made and its base pinned (createWorkspace), nothing recorded.
      await unfinishedLog(data, 'halfway', { cwd: project });
      await createWorkspace({ sessionId: 'halfway', source: project, dataDir: data });
      await createWorkspace({ sessionId: 'other', source: project, dataDir: data });
      const before = refs(project);
      assert.ok(before.some((r) => r.startsWith('refs/accord/sessions/halfway ')), before.join('\n'));
      assert.equal(await removeCli('halfway', data), 0);
      assert.deepEqual(refs(project), before.filter((r) => !r.startsWith('refs/accord/sessions/halfway ')));
      assert.ok(!existsSync(join(data, 'sessions', 'halfway')), 'the leftover copy is gone');
      assert.ok(existsSync(join(data, 'sessions', 'other', 'ws')), "another session's copy stays");
    } finally {
      remove();
    }
  });

  test('an in-place session pins nothing: remove unpins nothing in its folder', { timeout: 60_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    try {
      git(project, 'update-ref', 'refs/accord/sessions/inplace', 'HEAD');
      await unfinishedLog(data, 'inplace', { cwd: project, workspace: { preparing: true, inPlace: true } });
      assert.equal(await removeCli('inplace', data), 0);
      assert.ok(refs(project).some((r) => r.startsWith('refs/accord/sessions/inplace ')), 'an in-place session has no base ref to drop: whatever is there is not its');
    } finally {
      remove();
    }
  });

  test('attack: a symbolic ref planted as the base ref is deleted itself, never the branch it points at', { timeout: 60_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    try {
      const branch = git(project, 'symbolic-ref', 'HEAD');
      const head = git(project, 'rev-parse', 'HEAD');
      git(project, 'symbolic-ref', 'refs/accord/sessions/planted', branch);
      await unfinishedLog(data, 'planted', { cwd: project });
      assert.equal(await removeCli('planted', data), 0);
      assert.deepEqual(refs(project), [`${branch} ${head}`]);
    } finally {
      remove();
    }
  });

  test('attack: pinning a base over a symbolic ref planted at its name replaces the ref, never moves the branch it points at', { timeout: 60_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    try {
      const branch = git(project, 'symbolic-ref', 'HEAD');
      const head = git(project, 'rev-parse', 'HEAD');
      git(project, 'symbolic-ref', 'refs/accord/sessions/pinned', branch);
      execFileSync('sh', ['-c', 'echo changed > a.txt'], { cwd: project });
      const ws = await createWorkspace({ sessionId: 'pinned', source: project, dataDir: data });
      assert.notEqual(ws.base, head, 'the base holds the uncommitted change');
      assert.deepEqual(refs(project), [`${branch} ${head}`, `refs/accord/sessions/pinned ${ws.base}`].sort());
    } finally {
      remove();
    }
  });

  test("attack: the log's content cannot choose the ref: another session id in it, a relative folder, a non-string folder", { timeout: 60_000 }, async () => {
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    try {
      for (const id of ['victim', 'x', 'y']) git(project, 'update-ref', `refs/accord/sessions/${id}`, 'HEAD');
      const before = refs(project);
      // The record's own sessionId names another session: the ref dropped is the one of the session removed (x), from its log's folder.
      await unfinishedLog(data, 'x', { cwd: project, sessionId: 'victim' });
      assert.equal(await removeCli('x', data), 0);
      assert.deepEqual(refs(project), before.filter((r) => !r.startsWith('refs/accord/sessions/x ')));
      // A folder named relatively (it would depend on where remove runs) or not as text: no git runs for it.
      await unfinishedLog(data, 'y', { cwd: 'project' });
      const cwd = process.cwd();
      process.chdir(join(project, '..'));
      try {
        assert.equal(await removeCli('y', data), 0);
      } finally {
        process.chdir(cwd);
      }
      assert.ok(refs(project).some((r) => r.startsWith('refs/accord/sessions/y ')));
      await unfinishedLog(data, 'z', { cwd: { toString: () => project } });
      assert.equal(await removeCli('z', data), 0);
      // An id that is no session id is refused before any log or ref is looked at.
      assert.notEqual(await removeCli('../heads/main', data).catch(() => 1), 0);
      assert.ok(refs(project).some((r) => r.includes('refs/heads/')));
    } finally {
      remove();
    }
  });
});
