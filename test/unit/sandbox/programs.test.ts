// bubblewrap and socat are found in-process and handed to sandbox-runtime,
// which otherwise spawns `which` (spawnSync: a blocking fork of the agent)
// for each, at detection and again when it starts. Counted through a `which`
// shim first on PATH that logs each run into a temp dir (no timing).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { findOnPath, ProgramPaths } from '../../../agent/sandbox/programs';
import { SandboxHost } from '../../../agent/sandbox/sandboxHost';

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

describe('which runs for a sandboxed session start (real sandbox-runtime)', { timeout: 120_000 }, () => {
  test('detection and start look up only ripgrep with which (srt has no path option that skips it); bubblewrap and socat never', async (t) => {
    const saved = { PATH: process.env.PATH, ACCORD_SANDBOX: process.env.ACCORD_SANDBOX };
    const dir = await scratch();
    const log = path.join(dir, 'which.log');
    const realWhich = execFileSync('sh', ['-c', 'command -v which || true'], { encoding: 'utf8' }).trim();
    if (!realWhich) return t.skip('no which on this machine');
    const shims = path.join(dir, 'bin');
    await mkdir(shims);
    await writeFile(path.join(shims, 'which'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realWhich}' "$@"\n`);
    await chmod(path.join(shims, 'which'), 0o755);
    process.env.PATH = `${shims}${path.delimiter}${saved.PATH}`;
    delete process.env.ACCORD_SANDBOX;
    const host = new SandboxHost();
    try {
      const runs = async () => {
        const text = existsSync(log) ? await readFile(log, 'utf8') : '';
        await writeFile(log, '');
        return text.split('\n').filter(Boolean);
      };
      const status = await host.detect();
      if (status.state === 'unsandboxed') return t.skip(`no usable sandbox on this machine: ${status.reason}`);
      assert.deepEqual(await runs(), ['rg'], 'detection');
      // srt gives each `which` 1 s (spawnSync timeout): on a machine too busy for that it reports ripgrep missing, which is not what this counts.
      const lease = await host.acquire([]).catch((error: Error) => {
        if (/ripgrep .* not found/.test(error.message)) return undefined;
        throw error;
      });
      if (!lease) return t.skip('which did not answer within srt\'s 1 s on this busy machine');
      assert.deepEqual(await runs(), ['rg'], 'starting the sandbox');
      lease.release();
      await host.settled();
      // A later session of the same process: detection is kept, nothing is looked up.
      assert.deepEqual(await host.detect(), status);
      assert.deepEqual(await runs(), []);
    } finally {
      await host.settled();
      process.env.PATH = saved.PATH;
      if (saved.ACCORD_SANDBOX === undefined) delete process.env.ACCORD_SANDBOX;
      else process.env.ACCORD_SANDBOX = saved.ACCORD_SANDBOX;
    }
  });
});
