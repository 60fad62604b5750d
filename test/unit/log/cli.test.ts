import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { SessionStore } from '../../../agent/log';
import { runSessionsCli } from '../../../agent/log/cli';
import { newSession, tempDataDir } from './fixtures';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}

async function run(argv: string[], dataDir: string, options: { interactive?: boolean; answer?: string } = {}) {
  const stdout = capture();
  const stderr = capture();
  const stdin = new PassThrough();
  if (options.answer !== undefined) stdin.end(options.answer);
  const code = await runSessionsCli(argv, { stdin, stdout: stdout.stream, stderr: stderr.stream, interactive: options.interactive ?? false, dataDir });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

async function seed(dataDir: string): Promise<SessionStore> {
  const store = new SessionStore(dataDir);
  const a = await store.create({ ...newSession('/work/a'), id: 'alpha' });
  a.append({ type: 'user_prompt', prompt: [{ type: 'text', text: 'Fix the flaky test' }] });
  await a.close();
  await (await store.create({ ...newSession('/work/b'), id: 'beta' })).close();
  return store;
}

describe('accord sessions', () => {
  test('list prints every session with cwd and title; --cwd filters; --json is machine-readable', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const empty = await run(['list'], dir);
      assert.equal(empty.code, 0);
      assert.match(empty.stdout, /No sessions/);
      await seed(dir);
      const listed = await run(['list'], dir);
      assert.equal(listed.code, 0);
      const lines = listed.stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^ID\s+UPDATED\s+CWD\s+TITLE$/);
      assert.match(listed.stdout, /alpha\s+\d{4}-\d\d-\d\d \d\d:\d\dZ\s+\/work\/a\s+Fix the flaky test/);
      assert.match(listed.stdout, /beta .*\/work\/b\s+\(no prompt yet\)/);
      const filtered = await run(['list', '--cwd', '/work/a'], dir);
      assert.doesNotMatch(filtered.stdout, /beta/);
      const json = JSON.parse((await run(['list', '--json', '--cwd=/work/b'], dir)).stdout) as Array<{ sessionId: string }>;
      assert.deepEqual(json.map((s) => s.sessionId), ['beta']);
      assert.equal((await run(['list', '--bogus'], dir)).code, 2);
      assert.equal((await run(['frobnicate'], dir)).code, 2);
    } finally {
      await cleanup();
    }
  });

  test('remove asks on a terminal: "n" keeps, "y" removes; without a terminal it needs --yes', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = await seed(dir);
      const declined = await run(['remove', 'alpha'], dir, { interactive: true, answer: 'n\n' });
      assert.equal(declined.code, 1);
      assert.match(declined.stdout, /Remove session alpha "Fix the flaky test"\n {2}in \/work\/a.*\[y\/N\] Kept\./s);
      assert.equal(await store.exists('alpha'), true);
      const silent = await run(['remove', 'alpha'], dir, { interactive: true, answer: '' });
      assert.equal(silent.code, 1, 'no answer (EOF) keeps it');
      const confirmed = await run(['remove', 'alpha'], dir, { interactive: true, answer: 'y\n' });
      assert.equal(confirmed.code, 0);
      assert.equal(await store.exists('alpha'), false);

      const refused = await run(['remove', 'beta'], dir);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /Pass --yes/);
      assert.equal(await store.exists('beta'), true);
      assert.equal((await run(['remove', 'beta', '--yes'], dir)).code, 0);
      assert.equal(await store.exists('beta'), false);
      const missing = await run(['remove', 'beta', '--yes'], dir);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /No session beta/);
      assert.equal((await run(['remove'], dir)).code, 2);

      // A log cut short at creation (crash before its first record) is listed nowhere but can be removed.
      await writeFile(store.pathOf('stub'), '');
      const stub = await run(['remove', 'stub'], dir, { interactive: true, answer: 'y\n' });
      assert.equal(stub.code, 0, stub.stderr);
      assert.match(stub.stdout, /not readable/);
      assert.equal(await store.exists('stub'), false);
    } finally {
      await cleanup();
    }
  });

  test('as a real process with piped stdin (not a terminal), remove refuses without --yes; ACCORD_HOME picks the data dir', { timeout: 60_000 }, async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const store = await seed(dir);
      const cli = (args: string[]) =>
        spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'child', 'cliChild.ts'), ...args], {
          env: { ...process.env, ACCORD_HOME: dir },
          input: 'y\n',
          encoding: 'utf8',
        });
      const refused = cli(['remove', 'alpha']);
      assert.equal(refused.status, 1, refused.stderr);
      assert.match(refused.stderr, /no terminal to ask on/);
      assert.equal(await store.exists('alpha'), true);
      assert.match(cli(['list']).stdout, /alpha/);
      assert.equal(cli(['remove', 'alpha', '-y']).status, 0);
      assert.equal(await store.exists('alpha'), false);
    } finally {
      await cleanup();
    }
  });
});
