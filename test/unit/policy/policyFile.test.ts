// The policy file comes with the project: a cloned repository can put anything at
// .accord/policy.json. Reading it must never hang or exhaust the agent (the daemon
// serves every session of the user from one process): a fifo, a link to a device,
// a huge file each fail closed with a message, and a session still starts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadPolicy, MAX_POLICY_BYTES, policyChangedSince } from '../../../agent/policy/load';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function project(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'accord-policyfile-'));
  dirs.push(dir);
  await mkdir(path.join(dir, '.accord'));
  return { dir, file: path.join(dir, '.accord', 'policy.json') };
}

describe('attack: a policy file that is not a small regular file', () => {
  test('a named pipe nobody writes is refused at once, not waited on', { timeout: 20_000 }, async () => {
    const { dir, file } = await project();
    execFileSync('mkfifo', [file]);
    const loaded = await loadPolicy(dir);
    assert.equal(loaded.status, 'invalid');
    if (loaded.status === 'invalid') assert.match(loaded.error, /not a regular file/);
  });

  test('a link to /dev/zero (endless) is refused without reading it', { timeout: 20_000 }, async () => {
    const { dir, file } = await project();
    await symlink('/dev/zero', file);
    const loaded = await loadPolicy(dir);
    assert.equal(loaded.status, 'invalid');
    if (loaded.status === 'invalid') assert.match(loaded.error, /not a regular file/);
  });

  test('a file over the bound is refused by its size (a sparse 1 GiB file costs the disk nothing, and Node would read it whole)', { timeout: 20_000 }, async () => {
    const { dir, file } = await project();
    await writeFile(file, '');
    await truncate(file, 1024 * 1024 * 1024);
    const loaded = await loadPolicy(dir);
    assert.equal(loaded.status, 'invalid');
    if (loaded.status === 'invalid') assert.match(loaded.error, /too large/);
  });

  test('a file grown past the bound while a session runs counts as changed, read no further than the bound', { timeout: 20_000 }, async () => {
    const { dir, file } = await project();
    await writeFile(file, JSON.stringify({ version: 1 }));
    const loaded = await loadPolicy(dir);
    assert.equal(loaded.status, 'ok');
    await truncate(file, 4 * 1024 * 1024 * 1024);
    assert.match((await policyChangedSince(loaded)) ?? '', /changed while the session was running/);
    await rm(file);
    execFileSync('mkfifo', [file]);
    assert.match((await policyChangedSince(loaded)) ?? '', /changed while the session was running/);
  });

  test('happy: a policy at the bound loads, and a link to a regular file the person made is still followed', async () => {
    const { dir, file } = await project();
    const text = JSON.stringify({ version: 1, rules: [{ decision: 'allow', kind: 'read', reason: 'x' }] });
    await writeFile(file, text.replace('"x"', JSON.stringify('x'.repeat(MAX_POLICY_BYTES - text.length + 1))));
    assert.equal((await loadPolicy(dir)).status, 'ok');
    const elsewhere = path.join(dir, 'shared-policy.json');
    await writeFile(elsewhere, JSON.stringify({ version: 1 }));
    await rm(file);
    await symlink(elsewhere, file);
    const linked = await loadPolicy(dir);
    assert.equal(linked.status, 'ok');
    assert.equal(await policyChangedSince(linked), undefined);
  });
});
