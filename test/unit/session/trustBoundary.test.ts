// Issue 11, the copy half: nothing a sandboxed command writes is trusted by
// host-side code. The bundled agent runs under real bubblewrap with real git;
// the fake model scripts the attacker's tool calls; the test then plays the
// review (`_accord/changes/*`) as the extension does after every tool call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeModelServer, type FakeModelServer } from '../../fakeModelServer/index';
import { tempDir } from '../agent/harness';
import { lines } from '../agent/isolationFixtures';
import { buildBundle, ext, markers, openSession, run, sandboxed, scene, SECRET, startAgent, toolStep, treeHash } from './trustBoundaryFixtures';

const policy = (extra: Record<string, unknown> = {}) => JSON.stringify({ version: 1, rules: [], network: { allowedDomains: ['example.invalid'] }, ...extra });

describe('the session copy is hostile input (real bubblewrap, real git, scripted model)', () => {
  let model: FakeModelServer;
  const config = tempDir('accord-trust-config-');
  before(async () => {
    buildBundle();
    model = await startFakeModelServer();
  });
  after(async () => {
    await model.close();
    config.remove();
  });

  test('git metadata planted anywhere in the copy is never read: no fsmonitor payload runs behind list, file or discard', { timeout: 300_000 }, async (t) => {
    const s = scene({ 'a.txt': 'a\n', '.accord/policy.json': policy() });
    const agent = startAgent(model, s, config.path, ['--always-approve']);
    try {
      const { sessionId, meta } = await openSession(agent, s.project);
      if (!sandboxed(meta)) return t.skip(`no sandbox here: ${JSON.stringify(meta['accord/sandbox'])}`);
      // As the review does: list the changes after every tool call.
      const failures: string[] = [];
      const step = async <T>(call: () => Promise<T>): Promise<T> => {
        const result = await call();
        await ext(agent, '_accord/changes/list', { sessionId }).catch((error: Error) => failures.push(error.message));
        return result;
      };
      const payload = (name: string) => `[core]\n\tfsmonitor = "touch ${join(s.outside, name)}; false"\n\tpager = "touch ${join(s.outside, name)}-pager"\n[include]\n\tpath = more\n`;
      // A would-be common dir whose config runs a payload, and an alternates file.
      await step(() => run(agent, model, sessionId, 'git', 'init', '-q', '--bare', 'evil'));
      await step(() => toolStep(agent, model, sessionId, 'write_file', { path: 'evil/config', content: payload('commondir') }));
      await step(() => toolStep(agent, model, sessionId, 'write_file', { path: 'evil/more', content: `[diff "evil"]\n\tcommand = touch ${join(s.outside, 'driver')}\n[filter "evil"]\n\tclean = touch ${join(s.outside, 'filter')}\n` }));
      const status = await ext(agent, '_accord/workspace/status', { sessionId });
      await step(() => toolStep(agent, model, sessionId, 'write_file', { path: 'pointer', content: `${join(status.root, 'evil')}\n` }));
      // The agent's own .git in the copy: commondir, alternates, index, HEAD.
      const planted = [
        await step(() => run(agent, model, sessionId, 'cp', 'pointer', '.git/commondir')),
        await step(() => run(agent, model, sessionId, 'cp', 'pointer', '.git/objects/info/alternates')),
        await step(() => run(agent, model, sessionId, 'cp', 'evil/config', '.git/config')),
      ];
      assert.equal(planted[0]!.status, 'completed', `the agent may change its own repository: ${planted[0]!.output}`);
      // A nested repository whose config and commondir carry payloads.
      await step(() => run(agent, model, sessionId, 'git', 'init', '-q', 'sub'));
      await step(() => toolStep(agent, model, sessionId, 'write_file', { path: 'sub/f.txt', content: 'f\n' }));
      await step(() => run(agent, model, sessionId, 'cp', 'evil/config', 'sub/.git/config'));
      await step(() => run(agent, model, sessionId, 'cp', 'pointer', 'sub/.git/commondir'));
      // .gitattributes naming a filter and a diff driver the planted configs define.
      await step(() => toolStep(agent, model, sessionId, 'write_file', { path: '.gitattributes', content: '* filter=evil diff=evil\n' }));
      await step(() => toolStep(agent, model, sessionId, 'write_file', { path: 'a.txt', content: 'A\n' }));

      assert.deepEqual(markers(s), [], 'a payload ran outside the sandbox');
      assert.deepEqual(failures, [], 'the review could not list the changes');
      const { changes } = await ext(agent, '_accord/changes/list', { sessionId });
      const paths = changes.map((c: any) => c.path);
      assert.ok(paths.includes('a.txt') && paths.includes('evil/config'), JSON.stringify(paths));
      for (const change of changes) await ext(agent, '_accord/changes/file', { sessionId, path: change.path }).catch(() => undefined);
      await ext(agent, '_accord/changes/discard', { sessionId, paths: ['a.txt'] });
      assert.equal(readFileSync(join(status.root, 'a.txt'), 'utf8'), 'a\n');
      await ext(agent, '_accord/changes/list', { sessionId });
      assert.deepEqual(markers(s), [], 'a payload ran outside the sandbox');
    } finally {
      await agent.close();
      s.remove();
    }
  });

  test('a predictable temp file in a folder the sandbox writes is never used: links planted there are not written through', { timeout: 300_000 }, async (t) => {
    const s = scene({ 'a.txt': 'a\n', '.accord/policy.json': policy() });
    const agent = startAgent(model, s, config.path, ['--always-approve']);
    try {
      const { sessionId, meta } = await openSession(agent, s.project);
      if (!sandboxed(meta)) return t.skip('no sandbox here');
      const tmp = join(s.data, 'sessions', sessionId, 'tmp');
      // Where the index copy used to be made: $TMPDIR/.accord-index-<pid>-<n>.
      for (let n = 1; n <= 3; n++) await run(agent, model, sessionId, 'ln', '-s', join(s.outside, `victim-${n}`), join(tmp, `.accord-index-${agent.child.pid}-${n}`));
      await toolStep(agent, model, sessionId, 'write_file', { path: 'a.txt', content: 'A\n' });
      for (let n = 0; n < 3; n++) await ext(agent, '_accord/changes/list', { sessionId });
      assert.deepEqual(markers(s), [], 'the index copy was written through a planted link');
    } finally {
      await agent.close();
      s.remove();
    }
  });

  test("nothing inside the sandbox reveals the agent's pid or private paths; the private folder is 0700 and unreadable", { timeout: 300_000 }, async (t) => {
    const s = scene({ 'a.txt': 'a\n', '.accord/policy.json': policy() });
    const agent = startAgent(model, s, config.path, ['--always-approve']);
    try {
      const { sessionId, meta } = await openSession(agent, s.project);
      if (!sandboxed(meta)) return t.skip('no sandbox here');
      const pid = String(agent.child.pid);
      const privateRoot = join(s.data, 'private');
      const privateDir = join(privateRoot, sessionId);
      await toolStep(agent, model, sessionId, 'write_file', { path: 'a.txt', content: 'A\n' });
      await ext(agent, '_accord/changes/list', { sessionId });

      const env = await run(agent, model, sessionId, 'env');
      assert.equal(env.status, 'completed', env.output);
      assert.match(env.output, /PROXY=/i, 'the proxy variables are there (the network is on for example.invalid)');
      // srt encodes its command id in base64 into proxy user names (`srt.<base64>`) and SRT_ENCODED_CMD: decode those.
      const plain = env.output.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      const ids = [...plain.matchAll(/srt\.([A-Za-z0-9+/]+={0,2})/g), ...plain.matchAll(/^SRT_ENCODED_CMD=([A-Za-z0-9+/]+={0,2})$/gm)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'));
      assert.ok(ids.length > 0, `srt's command id is not where this test looks for it: ${plain}`);
      for (const id of ids) assert.doesNotMatch(id, new RegExp(`(^|\\D)${pid}(\\D|$)`), `the agent's pid ${pid} is in srt's command id: ${id}`);
      // Spelled the way a pid shows up in names and paths (`-<pid>-`, `/<pid>/`, `=<pid>`); ports and random tokens are left alone.
      assert.doesNotMatch(plain, new RegExp(`[-/=.]${pid}([-/.]|$)`, 'm'), `the agent's pid ${pid} is visible inside the sandbox`);
      const visible = [plain, ...ids].join('\n');
      assert.ok(!visible.includes(privateRoot), 'the private folder is named inside the sandbox');
      assert.equal(statSync(privateRoot).mode & 0o777, 0o700);
      assert.equal(statSync(privateDir).mode & 0o777, 0o700);
      assert.ok(readdirSync(privateDir).includes('index'), 'the list index lives in the private folder');

      const listing = await run(agent, model, sessionId, 'ls', '-la', privateDir);
      assert.notEqual(listing.status, 'completed', `the private folder is readable in the sandbox: ${listing.output}`);
      const index = await run(agent, model, sessionId, 'cat', join(privateDir, 'index'));
      assert.notEqual(index.status, 'completed');
      const proc = await run(agent, model, sessionId, 'cat', `/proc/${pid}/cmdline`);
      assert.ok(proc.status !== 'completed' || !proc.output.includes('agent.js'), `the agent's own process is visible in /proc: ${proc.output}`);
      // The git dir (but for the objects the agent's .git borrows) is hidden under a tmpfs: what a command writes there lands in that tmpfs.
      const head = join(s.data, 'sessions', sessionId, 'git', 'HEAD');
      const headBefore = readFileSync(head, 'utf8');
      const peek = await run(agent, model, sessionId, 'cat', head);
      assert.notEqual(peek.status, 'completed', `the git dir host-side code uses is readable from the sandbox: ${peek.output}`);
      await run(agent, model, sessionId, 'sh', '-c', `echo 'ref: refs/heads/evil' > ${head}`);
      assert.equal(readFileSync(head, 'utf8'), headBefore, 'the git dir host-side code uses is writable from the sandbox');
    } finally {
      await agent.close();
      s.remove();
    }
  });

  test('in place: all of .git, .accord and .vscode are read-only inside the sandbox, files and folders alike', { timeout: 300_000 }, async (t) => {
    const s = scene({ 'a.txt': 'a\n', '.accord/policy.json': policy(), '.vscode/settings.json': '{}\n' });
    const agent = startAgent(model, s, config.path, ['--always-approve']);
    try {
      const { sessionId, meta } = await openSession(agent, s.project, { 'accord/workspace': 'in-place' });
      if (!sandboxed(meta)) return t.skip('no sandbox here');
      assert.equal(meta['accord/workspace'].mode, 'in-place');
      const before = treeHash(join(s.project, '.git'));
      const attempts = [
        ['cp', 'a.txt', '.git/HEAD'],
        ['cp', 'a.txt', '.git/commondir'],
        ['cp', 'a.txt', '.git/index'],
        ['cp', 'a.txt', '.git/packed-refs'],
        ['mkdir', '-p', '.git/refs/heads/evil'],
        ['mkdir', '.git/objects/info/new'],
        ['cp', 'a.txt', '.git/objects/info/alternates'],
        ['rm', '-rf', '.git/refs'],
        ['cp', 'a.txt', '.accord/policy.json'],
        ['mkdir', '.accord/more'],
        ['cp', 'a.txt', '.vscode/tasks.json'],
        ['mkdir', '.vscode/sub'],
      ];
      for (const argv of attempts) {
        const result = await run(agent, model, sessionId, ...argv);
        assert.notEqual(result.status, 'completed', `${argv.join(' ')} succeeded inside the sandbox`);
      }
      assert.equal(treeHash(join(s.project, '.git')), before, "the person's .git changed");
      assert.ok(!existsSync(join(s.project, '.vscode/tasks.json')));
      const edit = await run(agent, model, sessionId, 'cp', 'a.txt', 'b.txt');
      assert.equal(edit.status, 'completed', `the rest of the tree stays writable: ${edit.output}`);
    } finally {
      await agent.close();
      s.remove();
    }
  });

  test('no link is followed: file and discard never read or write through a planted link; fifos and huge files are refused', { timeout: 600_000 }, async (t) => {
    const s = scene({ 'a.txt': lines(3), 'dir/b.txt': 'b\n', 'p.txt': 'p\n', '.accord/policy.json': policy() });
    const agent = startAgent(model, s, config.path, ['--always-approve']);
    try {
      const { sessionId, meta } = await openSession(agent, s.project);
      if (!sandboxed(meta)) return t.skip('no sandbox here');
      const root = (await ext(agent, '_accord/workspace/status', { sessionId })).root;
      // A link to the person's key, a folder swapped for a link to a folder outside, a fifo, a 100 MB sparse file (over the 16 MB review limit).
      await run(agent, model, sessionId, 'ln', '-s', s.secret, 'leak.txt');
      await run(agent, model, sessionId, 'rm', '-r', 'dir');
      await run(agent, model, sessionId, 'ln', '-s', s.outside, 'dir');
      await run(agent, model, sessionId, 'rm', 'p.txt');
      await run(agent, model, sessionId, 'mkfifo', 'p.txt');
      await run(agent, model, sessionId, 'truncate', '-s', '100M', 'big.bin');
      await toolStep(agent, model, sessionId, 'write_file', { path: 'a.txt', content: lines(3, { 2: 'TWO' }) });

      const { changes } = await ext(agent, '_accord/changes/list', { sessionId });
      const byPath = new Map<string, any>(changes.map((c: any) => [c.path, c]));
      assert.ok(byPath.has('leak.txt') && byPath.has('big.bin') && byPath.has('dir/b.txt'), JSON.stringify(changes));

      const leak = await ext(agent, '_accord/changes/file', { sessionId, path: 'leak.txt' });
      assert.ok(!JSON.stringify(leak).includes('accord-test-secret'), `the secret came back: ${JSON.stringify(leak)}`);
      assert.equal(leak.link, s.secret, 'the link is reported as a link');
      const big = await ext(agent, '_accord/changes/file', { sessionId, path: 'big.bin' });
      assert.equal(big.tooLarge, 'too large (100 MB)');
      assert.equal(big.currentText, null);
      const fifo = await ext(agent, '_accord/changes/file', { sessionId, path: 'p.txt' });
      assert.equal(fifo.currentText, null, 'the fifo is not read (nor waited on)');

      // Discarding dir/b.txt restores the folder; nothing is written through the link into `outside`.
      await ext(agent, '_accord/changes/discard', { sessionId, paths: ['dir/b.txt', 'p.txt', 'leak.txt'] });
      assert.deepEqual(markers(s), [], 'discard wrote through the planted folder link');
      assert.equal(readFileSync(join(root, 'dir/b.txt'), 'utf8'), 'b\n');
      assert.equal(readFileSync(join(root, 'p.txt'), 'utf8'), 'p\n');
      assert.ok(!existsSync(join(root, 'leak.txt')));
      assert.equal(readFileSync(s.secret, 'utf8'), SECRET);
    } finally {
      await agent.close();
      s.remove();
    }
  });

  test('zero-click: under an allowing policy, the review (list, file, discard after every tool call) asks nothing, changes nothing outside the copy, runs nothing outside the sandbox', { timeout: 300_000 }, async (t) => {
    const allowing = policy({
      rules: [
        { decision: 'allow', kind: 'edit', paths: ['**'] },
        { decision: 'allow', commands: [['ln', '**'], ['cp', '**'], ['mkdir', '**'], ['git', 'init', '**']] },
      ],
    });
    const s = scene({ 'a.txt': lines(3), '.accord/policy.json': allowing });
    const agent = startAgent(model, s, config.path);
    try {
      const { sessionId, meta } = await openSession(agent, s.project);
      if (!sandboxed(meta)) return t.skip('no sandbox here');
      assert.equal(meta['accord/policyError'], undefined);
      const root = (await ext(agent, '_accord/workspace/status', { sessionId })).root;
      // After the session began (it pins its base in the person's repository).
      const homeBefore = treeHash(s.home);
      const projectBefore = treeHash(s.project);
      const seen: string[] = [];
      const failures: string[] = [];
      /** The extension's review after a tool call: list, read every change, discard what it rejects (links). */
      const review = async () => {
        const { changes } = await ext(agent, '_accord/changes/list', { sessionId });
        const rejected: string[] = [];
        for (const change of changes) {
          const sides = await ext(agent, '_accord/changes/file', { sessionId, path: change.path });
          seen.push(JSON.stringify(sides));
          if (sides.link !== undefined) rejected.push(change.path);
        }
        if (rejected.length > 0) await ext(agent, '_accord/changes/discard', { sessionId, paths: rejected });
      };
      const steps: Array<[string, Record<string, unknown>]> = [
        ['run_command', { argv: ['git', 'init', '-q', '--bare', 'evil'] }],
        ['write_file', { path: 'evil/config', content: `[core]\n\tfsmonitor = "touch ${join(s.outside, 'fsmonitor')}; false"\n[filter "x"]\n\tclean = touch ${join(s.outside, 'filter')}\n` }],
        ['write_file', { path: 'pointer', content: `${join(root, 'evil')}\n` }],
        ['write_file', { path: '.gitattributes', content: '* filter=x\n' }],
        ['run_command', { argv: ['cp', 'pointer', '.git/commondir'] }],
        ['run_command', { argv: ['git', 'init', '-q', 'nested'] }],
        ['run_command', { argv: ['cp', 'evil/config', 'nested/.git/config'] }],
        ['run_command', { argv: ['ln', '-s', s.secret, 'key.txt'] }],
        ['run_command', { argv: ['mkdir', '-p', 'd'] }],
        ['run_command', { argv: ['ln', '-s', s.home, 'd/home'] }],
        ['run_command', { argv: ['ln', '-s', join(s.home, '.bashrc'), 'rc'] }],
        ['run_command', { argv: ['ln', '-s', join(s.project, 'a.txt'), 'person.txt'] }],
        ['write_file', { path: 'a.txt', content: lines(3, { 2: 'TWO' }) }],
      ];
      for (const [tool, args] of steps) {
        const result = await toolStep(agent, model, sessionId, tool, args);
        assert.equal(result.status, 'completed', `${tool} ${JSON.stringify(args)}: ${result.output}`);
        await review().catch((error: Error) => failures.push(error.message));
      }
      await ext(agent, '_accord/changes/discard', { sessionId }).catch((error: Error) => failures.push(error.message));
      await review().catch((error: Error) => failures.push(error.message));

      assert.deepEqual(markers(s), [], 'a process ran outside the sandbox');
      assert.deepEqual(failures, [], 'the review failed');
      assert.equal(agent.permissionRequests.length, 0, `a permission was asked: ${JSON.stringify(agent.permissionRequests.map((r) => r.toolCall.title))}`);
      assert.deepEqual(markers(s), [], 'a process ran outside the sandbox');
      assert.equal(treeHash(s.home), homeBefore, 'the home folder changed');
      assert.equal(treeHash(s.project), projectBefore, "the person's repository changed");
      assert.ok(!seen.some((sides) => sides.includes('accord-test-secret')), 'the review was handed the secret');
      assert.deepEqual((await ext(agent, '_accord/changes/list', { sessionId })).changes, [], 'discard put the copy back to its base');
    } finally {
      await agent.close();
      s.remove();
    }
  });
});
