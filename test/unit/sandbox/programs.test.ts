// Programs are found in-process, never with `which`: bubblewrap and socat are
// looked up here and handed to sandbox-runtime, and the runtime's own lookups
// (ripgrep at each dependency check, the shell for every command it wraps)
// are answered by agent/sandbox/whichSync.ts, which esbuild.mjs puts in place
// of the runtime's spawnSync('which'). The bundled agent's which runs are
// counted through a `which` shim first on PATH (test/support/execShim.ts).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { findOnPath, ProgramPaths } from '../../../agent/sandbox/programs';
import { SandboxHost } from '../../../agent/sandbox/sandboxHost';
import { whichSync } from '../../../agent/sandbox/whichSync';
import '../../support/srtWhich.mjs';
import { execShim } from '../../support/execShim';
import { childAgent, ensureAgentBundle, fakeModelFor, preparedMeta, updatesOf } from '../agent/harness';
import { gitProject } from '../agent/isolationFixtures';

const cleanups: string[] = [];
after(() => Promise.all(cleanups.map((d) => rm(d, { recursive: true, force: true }))));

async function scratch(): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-programs-')));
  cleanups.push(dir);
  return dir;
}

async function program(dir: string, name: string, mode = 0o755): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  await writeFile(file, '#!/bin/sh\nexit 0\n');
  await chmod(file, mode);
  return file;
}

describe('finding a program on PATH without running which', () => {
  test('the first executable file wins; folders, non-executables, relative and empty entries are skipped', async () => {
    const dir = await scratch();
    await program(path.join(dir, 'a'), 'tool', 0o644);
    await mkdir(path.join(dir, 'b', 'tool'), { recursive: true });
    const good = await program(path.join(dir, 'c'), 'tool');
    await program(path.join(dir, 'd'), 'tool');
    const searchPath = ['', 'relative/bin', path.join(dir, 'a'), path.join(dir, 'b'), path.join(dir, 'missing'), path.join(dir, 'c'), path.join(dir, 'd')].join(path.delimiter);
    assert.equal(await findOnPath('tool', searchPath), good);
    assert.equal(await findOnPath('absent', searchPath), undefined);
    assert.equal(await findOnPath('c/tool', dir), undefined, 'a name with a slash is not a PATH lookup');
  });

  test('a program found is kept for the process; a missing one is looked up again (it may be installed later)', async () => {
    const lookups: string[] = [];
    let installed = false;
    const paths = new ProgramPaths(async (name) => {
      lookups.push(name);
      return installed ? `/usr/bin/${name}` : undefined;
    });
    assert.equal(await paths.get('bwrap'), undefined);
    assert.deepEqual(paths.srtConfig(), {});
    installed = true;
    assert.equal(await paths.get('bwrap'), '/usr/bin/bwrap');
    installed = false;
    assert.equal(await paths.get('bwrap'), '/usr/bin/bwrap');
    assert.deepEqual(lookups, ['bwrap', 'bwrap']);
    assert.deepEqual(paths.srtConfig(), { bwrapPath: '/usr/bin/bwrap' });
  });
});

describe("sandbox-runtime's whichSync, answered in-process (agent/sandbox/whichSync.ts)", () => {
  test('a program on PATH is found; a missing one is null', async () => {
    const dir = await scratch();
    const tool = await program(path.join(dir, 'bin'), 'tool');
    assert.equal(whichSync('tool', path.join(dir, 'bin')), tool);
    assert.equal(whichSync('absent', path.join(dir, 'bin')), null);
    assert.equal(whichSync('', path.join(dir, 'bin')), null);
    assert.equal(whichSync('tool', ''), null, 'an empty PATH finds nothing');
  });

  test('a non-executable file and a directory named like the program are passed over for a later executable', async () => {
    const dir = await scratch();
    await program(path.join(dir, 'plain'), 'tool', 0o644);
    await mkdir(path.join(dir, 'folder', 'tool'), { recursive: true });
    const later = await program(path.join(dir, 'later'), 'tool');
    assert.equal(whichSync('tool', [path.join(dir, 'plain'), path.join(dir, 'folder'), path.join(dir, 'later')].join(path.delimiter)), later);
    assert.equal(whichSync('tool', [path.join(dir, 'plain'), path.join(dir, 'folder')].join(path.delimiter)), null);
  });

  test('relative and empty PATH entries are ignored, even when the working directory holds the program', async (t) => {
    const dir = await scratch();
    await program(path.join(dir, 'rel'), 'tool');
    await program(dir, 'tool');
    const cwd = process.cwd();
    process.chdir(dir);
    t.after(() => process.chdir(cwd));
    assert.equal(whichSync('tool', ['', '.', 'rel', './rel'].join(path.delimiter)), null);
    assert.equal(whichSync('rel/tool', dir), null, 'a relative name with a slash is no lookup');
  });

  test('a symlink to an executable is found under its own name, as which finds it; a dangling one is not', async () => {
    const dir = await scratch();
    const target = await program(path.join(dir, 'real'), 'tool-1.2');
    await mkdir(path.join(dir, 'links'));
    await symlink(target, path.join(dir, 'links', 'tool'));
    await symlink(path.join(dir, 'nowhere'), path.join(dir, 'links', 'gone'));
    assert.equal(whichSync('tool', path.join(dir, 'links')), path.join(dir, 'links', 'tool'));
    assert.equal(whichSync('gone', path.join(dir, 'links')), null);
    const realWhich = execFileSync('sh', ['-c', 'command -v which || true'], { encoding: 'utf8' }).trim();
    if (realWhich) {
      const answered = execFileSync(realWhich, ['tool'], { encoding: 'utf8', env: { PATH: path.join(dir, 'links') } }).trim();
      assert.equal(whichSync('tool', path.join(dir, 'links')), answered, "the same answer as this machine's which");
    }
  });

  test('an absolute name is itself when executable (srt may be given a ripgrep command as a path)', async () => {
    const dir = await scratch();
    const tool = await program(dir, 'tool');
    const plain = await program(dir, 'plain', 0o644);
    assert.equal(whichSync(tool, ''), tool);
    assert.equal(whichSync(plain, ''), null);
  });

  test('the default search path is the process PATH, read at each call', async (t) => {
    const dir = await scratch();
    const tool = await program(dir, 'accord-which-probe');
    const saved = process.env.PATH;
    t.after(() => {
      process.env.PATH = saved;
    });
    assert.equal(whichSync('accord-which-probe'), null);
    process.env.PATH = `${dir}${path.delimiter}${saved}`;
    assert.equal(whichSync('accord-which-probe'), tool);
  });
});

describe('no which child from sandbox-runtime run from source (test/support/srtWhich.mjs, as the bundle does)', { timeout: 120_000 }, () => {
  test('detection, a sandbox start and a wrapped command run no which; bubblewrap and socat are handed over', async (t) => {
    const saved = { PATH: process.env.PATH, ACCORD_SANDBOX: process.env.ACCORD_SANDBOX };
    const which = await execShim(await scratch(), 'which');
    process.env.PATH = `${which.bin}${path.delimiter}${saved.PATH}`;
    delete process.env.ACCORD_SANDBOX;
    const host = new SandboxHost();
    try {
      const status = await host.detect();
      assert.deepEqual(await which.runs(), [], 'detection');
      if (status.state === 'unsandboxed') return t.skip(`no usable sandbox on this machine: ${status.reason}`);
      const lease = await host.acquire([]);
      assert.deepEqual(await which.runs(), [], 'starting the sandbox');
      const { argv } = await lease.manager.wrapWithSandboxArgv('true');
      assert.ok(argv.some((word) => /\/bash$/.test(word)), `the shell srt looked up is in the wrapped command: ${argv.join(' ')}`);
      assert.deepEqual(await which.runs(), [], 'wrapping a command');
      lease.release();
      await host.settled();
    } finally {
      await host.settled();
      process.env.PATH = saved.PATH;
      if (saved.ACCORD_SANDBOX === undefined) delete process.env.ACCORD_SANDBOX;
      else process.env.ACCORD_SANDBOX = saved.ACCORD_SANDBOX;
    }
  });
});

describe('no which child from the bundled agent (sandbox-runtime takes whichSync.ts in the bundle)', { timeout: 180_000 }, () => {
  ensureAgentBundle();
  const model = fakeModelFor('accord-which-children-');

  test('a session start and a sandboxed command run no which', async (t) => {
    const dir = await scratch();
    const which = await execShim(dir, 'which');
    const { project, data, remove } = gitProject({ 'a.txt': 'a\n' });
    t.after(remove);
    const agent = childAgent({ ...model.env(), PATH: `${which.bin}${path.delimiter}${process.env.PATH}`, ACCORD_HOME: data });
    try {
      const sessionId = await agent.newSession(project);
      const sandbox = (await preparedMeta(agent, sessionId))['accord/sandbox'];
      assert.deepEqual(await which.runs(), [], 'session start');
      if (sandbox.state !== 'sandboxed') {
        assert.ok(spawnSync('bwrap', ['--version']).status !== 0, `bubblewrap is here but the session is not sandboxed: ${JSON.stringify(sandbox)}`);
        return t.skip(`no sandbox on this machine: ${sandbox.reason}`);
      }
      // srt wraps the command with the shell it looks up (`which bash` in its own code).
      assert.equal(await agent.prompt(sessionId, '!touch ran.txt'), 'end_turn');
      const ran = updatesOf(agent, sessionId, 'tool_call_update').filter((u) => u.status).at(-1);
      assert.equal(ran?.status, 'completed', JSON.stringify(ran));
      const { root } = await agent.connection.agent.request<{ root: string }>('_accord/workspace/status', { sessionId });
      assert.ok(existsSync(path.join(root, 'ran.txt')), 'the command ran in the session copy');
      assert.deepEqual(await which.runs(), [], 'a sandboxed command');
    } finally {
      await agent.close();
    }
    assert.deepEqual(await which.runs(), [], 'closing');
  });
});
