// Real-sandbox tests: every attack runs under the real bubblewrap sandbox and
// a zero exit code counts as a breach. Skipped (with the reason) only where
// the machine has no usable sandbox.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSessionRunner, type SessionRunner } from '../../../agent/sandbox/sessionRunner';
import { sandboxHost } from '../../../agent/sandbox/sandboxHost';

const canary = 'sk-accord-canary-7f3a9';
let base = '';
let workspace = '';
let sessionTmp = '';
let fakeHome = '';
let session: SessionRunner;
let skip: string | false = false;
const savedHome = process.env.HOME;

async function run(argv: string[], envChanges: Record<string, string> = {}, cwd = workspace) {
  return session.runner.run(argv, { cwd, envChanges, timeoutMs: 60_000, signal: new AbortController().signal, onOutput: () => undefined, maxOutputBytes: 1 << 20 });
}

async function breachFree(argv: string[], what: string) {
  const outcome = await run(argv);
  assert.notEqual(outcome.exitCode, 0, `${what}: the sandbox let it succeed\n${outcome.output}`);
  return outcome;
}

before(async () => {
  const status = await sandboxHost.detect();
  if (status.state === 'unsandboxed') {
    skip = `no usable sandbox on this machine: ${status.reason}`;
    return;
  }
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-sandbox-')));
  workspace = path.join(base, 'ws');
  sessionTmp = path.join(base, 'tmp');
  fakeHome = path.join(base, 'home');
  await mkdir(path.join(workspace, '.accord'), { recursive: true });
  await mkdir(path.join(workspace, '.git/hooks'), { recursive: true });
  await writeFile(path.join(workspace, '.accord/policy.json'), '{"version":1}');
  await mkdir(sessionTmp);
  await mkdir(path.join(fakeHome, '.ssh'), { recursive: true });
  await mkdir(path.join(fakeHome, '.config/accord'), { recursive: true });
  await mkdir(path.join(fakeHome, '.aws'), { recursive: true });
  await writeFile(path.join(fakeHome, '.ssh/id_rsa'), `PRIVATE ${canary}`);
  await writeFile(path.join(fakeHome, '.aws/credentials'), `aws ${canary}`);
  await writeFile(path.join(fakeHome, '.config/accord/credentials.json'), `{"key":"${canary}"}`);
  await writeFile(path.join(fakeHome, '.bashrc'), '# rc\n');
  // Secrets are found through the home directory; point it at a fake one.
  process.env.HOME = fakeHome;
  process.env.XDG_CONFIG_HOME = path.join(fakeHome, '.config');
  process.env.ACCORD_TEST_API_KEY = canary;
  process.env.AWS_SECRET_ACCESS_KEY = canary;
  process.env.GITHUB_TOKEN = canary;
  process.env.PROXY_URL_CANARY = `https://user:${canary}@proxy.example`;
  session = await createSessionRunner({ workspace, sessionTmp, allowedDomains: [] });
  if (session.status.state !== 'sandboxed') skip = `the sandbox did not start: ${session.status.reason}`;
});

after(async () => {
  session?.dispose();
  process.env.HOME = savedHome;
  delete process.env.XDG_CONFIG_HOME;
  for (const name of ['ACCORD_TEST_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'PROXY_URL_CANARY']) delete process.env[name];
  if (base) await rm(base, { recursive: true, force: true });
});

describe('sandboxed commands (real bubblewrap)', { timeout: 300_000 }, () => {
  test('a command runs in the workspace and may write there and in the session tmp', async (t) => {
    if (skip) return t.skip(skip);
    const outcome = await run(['sh', '-c', 'pwd && echo made > inside.txt && echo tmp > "$TMPDIR/t.txt" && echo ok']);
    assert.equal(outcome.exitCode, 0, outcome.output);
    assert.match(outcome.output, new RegExp(`${workspace}\\n`));
    assert.equal(await readFile(path.join(workspace, 'inside.txt'), 'utf8'), 'made\n');
    assert.equal(await readFile(path.join(sessionTmp, 't.txt'), 'utf8'), 'tmp\n');
  });

  test('argv words reach the program verbatim: no shell expansion', async (t) => {
    if (skip) return t.skip(skip);
    const outcome = await run(['printf', '%s|', '$HOME', '*', "it's", '$(id)', '`id`', 'a b']);
    assert.equal(outcome.output, "$HOME|*|it's|$(id)|`id`|a b|");
  });

  test('writes outside the workspace fail: ../x, /tmp/x, ~/.bashrc', async (t) => {
    if (skip) return t.skip(skip);
    const outsideTmp = path.join(os.tmpdir(), `accord-escape-${process.pid}`);
    await breachFree(['touch', '../escaped'], 'touch ../escaped');
    await breachFree(['touch', outsideTmp], 'touch /tmp/x');
    await breachFree(['sh', '-c', 'echo evil >> "$HOME/.bashrc"'], 'append to ~/.bashrc');
    await breachFree(['cp', '/etc/hostname', path.join(fakeHome, 'dropped')], 'cp into home');
    assert.ok(!existsSync(path.join(base, 'escaped')));
    assert.ok(!existsSync(outsideTmp));
    assert.equal(await readFile(path.join(fakeHome, '.bashrc'), 'utf8'), '# rc\n');
    assert.ok(!existsSync(path.join(fakeHome, 'dropped')));
  });

  test('protected paths inside the workspace are read-only, existing or not', async (t) => {
    if (skip) return t.skip(skip);
    await breachFree(['sh', '-c', 'echo \'{"version":1,"rules":[{"decision":"allow","tool":"*"}]}\' > .accord/policy.json'], 'overwrite the policy');
    await breachFree(['rm', '-f', '.accord/policy.json'], 'delete the policy');
    await breachFree(['mv', '.accord', 'moved'], 'move the policy dir away');
    const policy = '.accord/policy.json';
    const evil = '{"version":1,"rules":[{"decision":"allow","tool":"*"}]}';
    await writeFile(path.join(sessionTmp, 'evil.json'), evil);
    const shellEdits: Array<[string, string[]]> = [
      ['sed -i', ['sed', '-i', 's/1/2/', policy]],
      ['python', ['python3', '-c', `open('${policy}','w').write('x')`]],
      ['node -e', ['node', '-e', `require('fs').writeFileSync('${policy}','x')`]],
      ['cp over', ['cp', path.join(sessionTmp, 'evil.json'), policy]],
      ['mv over', ['mv', path.join(sessionTmp, 'evil.json'), policy]],
      ['ln -sf', ['ln', '-sf', path.join(sessionTmp, 'evil.json'), policy]],
      ['tee', ['sh', '-c', `echo x | tee ${policy}`]],
      ['dd', ['dd', `if=/etc/hostname`, `of=${policy}`]],
      ['perl -pi', ['perl', '-pi', '-e', 's/1/2/', policy]],
      ['truncate', ['truncate', '-s', '0', policy]],
      ['chmod', ['chmod', '777', policy]],
    ];
    for (const [name, argv] of shellEdits) {
      // Exit codes alone are not enough: `perl -pi` reports the failure and still exits 0.
      const outcome = await run(argv);
      const link = await lstat(path.join(workspace, policy));
      assert.ok(link.isFile() && !link.isSymbolicLink() && (link.mode & 0o777) !== 0o777, `edit the policy with ${name}: the file was replaced\n${outcome.output}`);
      assert.equal(await readFile(path.join(workspace, policy), 'utf8'), '{"version":1}', `edit the policy with ${name}\n${outcome.output}`);
    }
    await breachFree(['sh', '-c', 'echo "curl evil" > .git/hooks/pre-commit'], 'write a git hook');
    await breachFree(['sh', '-c', 'mkdir -p .vscode && echo {} > .vscode/settings.json'], 'create .vscode/settings.json');
    assert.equal(await readFile(path.join(workspace, '.accord/policy.json'), 'utf8'), '{"version":1}');
    assert.ok(!existsSync(path.join(workspace, '.git/hooks/pre-commit')));
  });

  test('secrets are unreadable: ~/.ssh/id_rsa, ~/.aws, the agent credential store', async (t) => {
    if (skip) return t.skip(skip);
    for (const file of ['.ssh/id_rsa', '.aws/credentials', '.config/accord/credentials.json']) {
      const outcome = await run(['cat', path.join(fakeHome, file)]);
      assert.notEqual(outcome.exitCode, 0, `read ${file}`);
      assert.ok(!outcome.output.includes(canary), `read ${file}: ${outcome.output}`);
    }
  });

  test('environment secrets are not visible, not even in /proc', async (t) => {
    if (skip) return t.skip(skip);
    const outcome = await run(['sh', '-c', 'env; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"']);
    assert.ok(!outcome.output.includes(canary), 'a secret leaked into the environment');
    assert.match(outcome.output, /PATH=/);
  });

  test('network is off: 127.0.0.1 listener gets no hit, DNS names fail, node fetch fails', async (t) => {
    if (skip) return t.skip(skip);
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end('pwned');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      await breachFree(['curl', '-sSf', '-m', '5', `http://127.0.0.1:${port}/`], 'curl 127.0.0.1');
      await breachFree(['curl', '-sSf', '-m', '5', '--noproxy', '*', `http://localhost:${port}/`], 'curl localhost bypassing the proxy');
      await breachFree(['curl', '-sSf', '-m', '5', 'http://example.com/'], 'curl a DNS name through the proxy');
      await breachFree(['node', '-e', `fetch('http://127.0.0.1:${port}/').then(()=>process.exit(0),()=>process.exit(3))`], 'node fetch');
      await breachFree(['getent', 'hosts', 'example.com'], 'DNS lookup');
      await breachFree(['bash', '-c', `echo x > /dev/tcp/127.0.0.1/${port}`], '/dev/tcp');
      // Other clients where the machine has them (each must fail; a missing one fails too, which proves nothing, so skip it).
      const optional: Array<[string, string[]]> = [
        ['wget', ['wget', '-q', '-T', '5', '-t', '1', '-O', '-', `http://127.0.0.1:${port}/`]],
        ['python3', ['python3', '-c', `import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:${port}/', timeout=5)`]],
        ['ssh', ['ssh', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=3', '-p', String(port), '127.0.0.1', 'true']],
        ['nc', ['nc', '-z', '-w', '3', '127.0.0.1', String(port)]],
      ];
      for (const [program, argv] of optional) {
        const present = await run(['sh', '-c', `command -v ${program}`]);
        if (present.exitCode === 0) await breachFree(argv, program);
      }
      assert.equal(hits, 0, 'the canary listener was reached');
    } finally {
      server.close();
    }
  });

  test("attack: a unix socket the person's user owns outside the workspace (the daemon's, VS Code's IPC hook) cannot be connected to", async (t) => {
    if (skip) return t.skip(skip);
    // Mode 0600 stops other users, not a command running as the same user: only the sandbox can.
    const socketDir = path.join(base, 'run');
    await mkdir(socketDir, { mode: 0o700 });
    const socketPath = path.join(socketDir, 'daemon.sock');
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.end('{"jsonrpc":"2.0","method":"welcome"}\n');
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const connect = `const s=require('net').connect(${JSON.stringify(socketPath)});s.on('connect',()=>{s.end('{}\\n');process.exit(0)});s.on('error',(e)=>{console.log(e.code);process.exit(3)})`;
      await breachFree(['node', '-e', connect], 'node connecting to the unix socket');
      const present = await run(['sh', '-c', 'command -v python3']);
      if (present.exitCode === 0) {
        await breachFree(['python3', '-c', `import socket; s=socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(socketPath)})`], 'python3 AF_UNIX connect');
      }
      assert.equal(connections, 0, 'the socket was reached from inside the sandbox');
    } finally {
      server.close();
    }
  });

  test('attack: a process a command leaves behind (setsid, nohup, double fork) does not outlive the command', async (t) => {
    if (skip) return t.skip(skip);
    // A survivor could keep writing the copy after the review read it, or swap a folder
    // for a link while the host removes the copy. It writes a marker every 100 ms.
    const marker = path.join(workspace, 'survivor.txt');
    const loop = `while :; do date +%s%N >> ${marker}; sleep 0.1; done`;
    const outcome = await run(['sh', '-c', `setsid sh -c '${loop}' >/dev/null 2>&1 < /dev/null & nohup sh -c '${loop}' >/dev/null 2>&1 < /dev/null & ( ( sh -c '${loop}' & ) & ) ; sleep 0.5; exit 0`]);
    assert.equal(outcome.exitCode, 0, outcome.output);
    const settled = async () => (await readFile(marker, 'utf8').catch(() => '')).length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = await settled();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(await settled(), before, 'a process the command started kept running after it ended');
    await rm(marker, { force: true });
  });

  test('cwd outside the workspace is refused before anything runs', async (t) => {
    if (skip) return t.skip(skip);
    await assert.rejects(run(['true'], {}, base), /outside the session workspace/);
  });
});

describe('without the sandbox', () => {
  test('commands still run in the workspace with a scrubbed environment, and the status says why', async () => {
    const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-nosandbox-')));
    process.env.ACCORD_TEST_SECRET = canary;
    try {
      const plain = await createSessionRunner({ workspace: dir, sessionTmp: dir, allowedDomains: [] }, 'turned off for this test');
      assert.deepEqual(plain.status, { state: 'unsandboxed', reason: 'turned off for this test' });
      const outcome = await plain.runner.run(['sh', '-c', 'pwd; env'], { cwd: dir, envChanges: { EXTRA: 'shown' }, timeoutMs: 30_000, signal: new AbortController().signal, onOutput: () => undefined, maxOutputBytes: 1 << 20 });
      assert.equal(outcome.exitCode, 0);
      assert.ok(outcome.output.startsWith(dir));
      assert.ok(!outcome.output.includes(canary));
      assert.match(outcome.output, /EXTRA=shown/);
      assert.match(outcome.output, new RegExp(`TMPDIR=${dir}`));
    } finally {
      delete process.env.ACCORD_TEST_SECRET;
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a machine without bubblewrap and socat gets an unsandboxed runner that says why', { timeout: 120_000 }, async () => {
    // A PATH without bwrap/socat stands in for a machine that lacks them.
    const bin = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-nobwrap-')));
    try {
      for (const tool of ['sh', 'git', 'rg']) await symlink(`/usr/bin/${tool}`, path.join(bin, tool)).catch(() => undefined);
      const script = [
        "const { createSessionRunner } = require('./agent/sandbox/sessionRunner');",
        "(async () => {",
        `  const s = await createSessionRunner({ workspace: ${JSON.stringify(bin)}, sessionTmp: ${JSON.stringify(bin)}, allowedDomains: [] });`,
        "  const o = await s.runner.run(['/bin/pwd'], { cwd: " + JSON.stringify(bin) + ", envChanges: {}, timeoutMs: 30000, signal: new AbortController().signal, onOutput: () => {}, maxOutputBytes: 4096 });",
        "  console.log(JSON.stringify({ status: s.status, output: o.output }));",
        "  s.dispose();",
        "})();",
      ].join('\n');
      const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: path.resolve(__dirname, '../../..'), env: { ...process.env, PATH: bin }, encoding: 'utf8' });
      const result = JSON.parse(out.trim().split('\n').pop()!);
      assert.equal(result.status.state, 'unsandboxed');
      assert.match(result.status.reason, /bubblewrap \(bwrap\) not installed/);
      assert.match(result.status.reason, /apt-get install bubblewrap socat/);
      assert.equal(result.output.trim(), bin);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });

  test('ACCORD_SANDBOX=off is reported as unsandboxed with the reason', async () => {
    process.env.ACCORD_SANDBOX = 'off';
    try {
      const status = await sandboxHost.detect();
      assert.equal(status.state, 'unsandboxed');
      assert.match(status.state === 'unsandboxed' ? status.reason : '', /ACCORD_SANDBOX=off/);
    } finally {
      delete process.env.ACCORD_SANDBOX;
    }
  });
});
