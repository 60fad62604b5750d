// scripts/fresh-clone.mjs without a reachable npm registry: it says so in one
// line and passes as skipped, cloning nothing. (With the registry, CI runs it for real as its last step.)
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../../..');

/** A loopback port nothing listens on: bound, then released. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

test('an unreachable npm registry skips the fresh-clone check with one clear line, and clones nothing', { timeout: 120_000 }, async () => {
  const registry = `http://127.0.0.1:${await closedPort()}/`;
  const before = new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('accord-fresh-clone-')));
  const result = spawnSync(process.execPath, [join(root, 'scripts/fresh-clone.mjs')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, npm_config_registry: registry },
  });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout.trim(), `fresh clone: skipped: the npm registry (${registry}) cannot be reached (ECONNREFUSED), so npm ci cannot run in a fresh clone`);
  const after = readdirSync(tmpdir()).filter((name) => name.startsWith('accord-fresh-clone-') && !before.has(name));
  assert.deepEqual(after, []);
});
