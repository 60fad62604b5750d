// Sandboxed commands see nothing of Accord's data directory but their own
// session: no other session's transcript or copy, no listing of the sessions,
// no daemon log, no compile cache. Their own copy, git in it and their tmp
// keep working, wherever ACCORD_HOME is relative to the project.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sandboxHost } from '../../../agent/sandbox/sandboxHost';
import type { CommandOutcome } from '../../../agent/tools/tool';
import { setUpIsolatedSession, type IsolatedSession } from '../../../agent/session/isolatedSession';
import { defaultDaemonAddress } from '../../../agent/daemon/address';
import net from 'node:net';

const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

let dir = '';
let skipReason: string | undefined;
before(async () => {
  const status = await sandboxHost.detect();
  if (status.state === 'unsandboxed') skipReason = `no usable sandbox on this machine: ${status.reason}`;
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-hide-')));
});
after(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

function run(session: IsolatedSession, script: string): Promise<CommandOutcome> {
  return session.runner.run(['sh', '-c', script], {
    cwd: session.workspace.root,
    envChanges: gitEnv,
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    onOutput: () => undefined,
    maxOutputBytes: 1 << 20,
  });
}

async function gitProject(at: string, files: Record<string, string>, ignore = ''): Promise<void> {
  await mkdir(at, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(at, name), text);
  if (ignore) await writeFile(path.join(at, '.gitignore'), ignore);
  execFileSync('sh', ['-c', 'git init -q && git add -A && git commit -q -m init'], { cwd: at, env: { ...process.env, ...gitEnv } });
}

/** What the agent keeps beside the sessions: a transcript per session, the daemon's log, the compile cache. */
async function accordState(dataDir: string, ids: string[]): Promise<void> {
  await mkdir(path.join(dataDir, 'sessions'), { recursive: true });
  await mkdir(path.join(dataDir, 'cache'), { recursive: true });
  for (const id of ids) await writeFile(path.join(dataDir, 'sessions', `${id}.jsonl`), `{"secret":"transcript of ${id}"}\n`);
  await writeFile(path.join(dataDir, 'daemon.log'), 'daemon secret\n');
  await writeFile(path.join(dataDir, 'cache', 'agent-core.v8cache'), 'cache secret\n');
}

const fails = (outcome: CommandOutcome) => outcome.exitCode !== 0;

/** srt's mount points for protected paths that do not exist show up in `git status` (known, unrelated to reads). */
const withoutMountPoints = (output: string) => output.replace(/^\?\? \.(accord|envrc|vscode)\n/gm, '');

describe('sandboxed commands cannot read Accord\'s data directory beyond their session (real bubblewrap, real git)', { timeout: 600_000 }, () => {
  test('attack: session A cannot read B\'s log, B\'s copy, the sessions listing, daemon.log or the compile cache; happy: A\'s git, files and tmp work, and B sees its own copy', async (t) => {
    if (skipReason) return t.skip(skipReason);
    const project = path.join(dir, 'p1');
    await gitProject(project, { 'a.txt': 'a\n' });
    const dataDir = path.join(dir, 'data1');
    await accordState(dataDir, ['A', 'B']);
    const a = await setUpIsolatedSession({ sessionId: 'A', projectRoot: project, dataDir, alwaysApprove: false });
    const b = await setUpIsolatedSession({ sessionId: 'B', projectRoot: project, dataDir, alwaysApprove: false });
    try {
      assert.equal(a.sandbox.state, 'sandboxed');
      await writeFile(path.join(b.workspace.root, 'b-only.txt'), 'B private work\n');
      const sessions = path.join(dataDir, 'sessions');
      for (const script of [
        `cat ${sessions}/B.jsonl`,
        `cat ${sessions}/A.jsonl`,
        `cat ${b.workspace.root}/b-only.txt`,
        `cat ${b.workspace.root}/a.txt`,
        `ls ${b.workspace.root}`,
        `cat ${dataDir}/daemon.log`,
        `cat ${dataDir}/cache/agent-core.v8cache`,
        `cat ${b.workspace.gitDir}/HEAD`,
        `ls ${a.workspace.privateDir}`,
        `git -C ${b.workspace.root} log`,
      ]) {
        const outcome = await run(a, script);
        assert.ok(fails(outcome), `A could run: ${script}\n${outcome.output}`);
        assert.doesNotMatch(outcome.output, /secret|B private/);
      }
      const listing = await run(a, `ls -a ${sessions}; ls -a ${dataDir}`);
      assert.doesNotMatch(listing.output, /\bB\b|jsonl|daemon\.log|cache|private/, listing.output);

      const work = await run(a, 'echo mine > mine.txt && cat a.txt mine.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && git status --short && git add mine.txt && git diff --cached --stat && git commit -q -m "agent work" && git log --oneline');
      assert.equal(work.exitCode, 0, work.output);
      assert.match(withoutMountPoints(work.output), /^a\nmine\nt\n\?\? mine\.txt\n/);
      assert.match(work.output, /mine\.txt \| 1 \+/);
      assert.match(work.output, /agent work\n.*base/);
      const diff = await run(a, 'echo changed >> a.txt && git diff');
      assert.equal(diff.exitCode, 0, diff.output);
      assert.match(diff.output, /\+changed/);

      const own = await run(b, 'cat b-only.txt && git status --short && git log --oneline -1');
      assert.equal(own.exitCode, 0, own.output);
      assert.match(withoutMountPoints(own.output), /^B private work\n\?\? b-only\.txt\n.*base/);
      const back = await run(b, `cat ${a.workspace.root}/mine.txt`);
      assert.ok(fails(back), back.output);
    } finally {
      await a.dispose(true);
      await b.dispose(true);
    }
  });

  test('ACCORD_HOME inside the project: the copy holds no transcript, and commands in place or in a copy cannot read the data directory', async (t) => {
    if (skipReason) return t.skip(skipReason);
    const project = path.join(dir, 'p2');
    await gitProject(project, { 'a.txt': 'a\n' });
    const dataDir = path.join(project, 'accord-home');
    await accordState(dataDir, ['other']);
    const copy = await setUpIsolatedSession({ sessionId: 'C', projectRoot: project, dataDir, alwaysApprove: false });
    const inPlace = await setUpIsolatedSession({ sessionId: 'P', projectRoot: project, dataDir, alwaysApprove: false, inPlace: true });
    try {
      const inCopy = await run(copy, 'ls -a && git status --short && git log --oneline -1');
      assert.equal(inCopy.exitCode, 0, inCopy.output);
      assert.doesNotMatch(inCopy.output, /accord-home/, inCopy.output);
      assert.match(inCopy.output, /base/);
      for (const [session, other] of [[copy, inPlace], [inPlace, copy]] as const) {
        const attack = await run(session, `cat ${dataDir}/sessions/other.jsonl || cat ${dataDir}/daemon.log || ls ${dataDir}/sessions/${other.workspace.sessionId}`);
        assert.ok(fails(attack), attack.output);
        assert.doesNotMatch(attack.output, /secret/);
      }
      const own = await run(inPlace, 'cat a.txt && echo new > n.txt && cat n.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t"');
      assert.equal(own.exitCode, 0, own.output);
      assert.equal(own.output, 'a\nnew\nt\n');
      assert.equal(await readFile(path.join(project, 'n.txt'), 'utf8'), 'new\n');
    } finally {
      await copy.dispose(true);
      await inPlace.dispose(true);
    }
  });

  test('the project inside ACCORD_HOME: the copy\'s git still reads the borrowed objects, the rest of the data directory stays hidden', async (t) => {
    if (skipReason) return t.skip(skipReason);
    const dataDir = path.join(dir, 'home3');
    const project = path.join(dataDir, 'projects', 'p3');
    await gitProject(project, { 'a.txt': 'a\n' });
    await accordState(dataDir, ['other']);
    const copy = await setUpIsolatedSession({ sessionId: 'D', projectRoot: project, dataDir, alwaysApprove: false });
    const inPlace = await setUpIsolatedSession({ sessionId: 'Q', projectRoot: project, dataDir, alwaysApprove: false, inPlace: true });
    try {
      const git = await run(copy, 'git log --oneline && git show HEAD~1:a.txt && git status --short');
      assert.equal(git.exitCode, 0, git.output);
      assert.match(withoutMountPoints(git.output), /base .*\n.*init\na\n$/);
      const own = await run(inPlace, 'cat a.txt && git log --oneline -1');
      assert.equal(own.exitCode, 0, own.output);
      for (const [session, other] of [[copy, inPlace], [inPlace, copy]] as const) {
        const attack = await run(session, `cat ${dataDir}/sessions/other.jsonl || cat ${dataDir}/daemon.log || ls ${dataDir}/sessions/${other.workspace.sessionId}`);
        assert.ok(fails(attack), attack.output);
        assert.doesNotMatch(attack.output, /secret/);
      }
    } finally {
      await copy.dispose(true);
      await inPlace.dispose(true);
    }
  });

  test('attack: a session in place on the data directory itself, or on its sessions folder, is refused', async (t) => {
    if (skipReason) return t.skip(skipReason);
    const dataDir = path.join(dir, 'home4');
    await accordState(dataDir, ['other']);
    for (const projectRoot of [dataDir, path.join(dataDir, 'sessions')]) {
      await assert.rejects(setUpIsolatedSession({ sessionId: 'R', projectRoot, dataDir, alwaysApprove: false, inPlace: true }), /holds Accord's own session data/);
    }
    assert.equal(await readFile(path.join(dataDir, 'sessions', 'other.jsonl'), 'utf8'), '{"secret":"transcript of other"}\n');
  });

  test('attack: a copy of a repository that is the data directory itself is refused (its untracked files are the transcripts)', async () => {
    const dataDir = path.join(dir, 'home5');
    await gitProject(dataDir, { 'notes.txt': 'n\n' });
    await accordState(dataDir, ['other']);
    await assert.rejects(setUpIsolatedSession({ sessionId: 'S', projectRoot: dataDir, dataDir, alwaysApprove: false }), /is Accord's data directory/);
    assert.equal(await readFile(path.join(dataDir, 'sessions', 'other.jsonl'), 'utf8'), '{"secret":"transcript of other"}\n');
  });

  test("attack: the daemon's socket under $XDG_RUNTIME_DIR is not even there for a command, seccomp or not (it could answer its own session's approvals)", async (t) => {
    if (skipReason) return t.skip(skipReason);
    const project = path.join(dir, 'p-socket');
    await gitProject(project, { 'a.txt': 'a\n' });
    const dataDir = path.join(dir, 'data-socket');
    const runtime = path.join(dir, 'runtime');
    await mkdir(runtime, { mode: 0o700 });
    const saved = { XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR, ACCORD_HOME: process.env.ACCORD_HOME };
    process.env.XDG_RUNTIME_DIR = runtime;
    delete process.env.ACCORD_HOME;
    const address = defaultDaemonAddress();
    assert.ok(address.path.startsWith(runtime), address.path);
    await mkdir(address.dir, { recursive: true, mode: 0o700 });
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(address.path, resolve));
    const session = await setUpIsolatedSession({ sessionId: 'S', projectRoot: project, dataDir, alwaysApprove: false });
    try {
      assert.equal(session.sandbox.state, 'sandboxed');
      const seen = await run(session, `ls -a ${address.dir}; test -S ${address.path} && echo SOCKET-VISIBLE; true`);
      assert.doesNotMatch(seen.output, /SOCKET-VISIBLE|daemon-/, seen.output);
      assert.equal((await run(session, 'cat a.txt')).output, 'a\n', 'the session itself still works');
    } finally {
      await session.dispose(true);
      server.close();
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
