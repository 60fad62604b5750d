// Which of the extension host's variables reach an agent process.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentEnvironment } from '../../../extension/agents/agentEnv';
import { policyPassList } from '../../../extension/agents/policyPass';

const host = {
  PATH: '/usr/bin', HOME: '/home/p', LANG: 'en_US.UTF-8', LC_ALL: 'C', HTTPS_PROXY: 'http://proxy:3128',
  IS_SANDBOX: 'yes', GITHUB_TOKEN: 'ghp_x', SSH_AUTH_SOCK: '/tmp/agent.sock', VSCODE_IPC_HOOK: '/tmp/ipc',
  ANTHROPIC_API_KEY: 'sk-shell', ACCORD_HOME: '/h', ACCORD_MODEL: 'anthropic:x', NODE_OPTIONS: '--inspect',
};

describe('agent environment', () => {
  test('a configured agent gets the minimal set and its own env, nothing else from the host', () => {
    const env = agentEnvironment({ host, kind: 'configured', own: { FOO: 'bar', PATH: '/opt/agent/bin' } });
    assert.deepEqual(env, { PATH: '/opt/agent/bin', HOME: '/home/p', LANG: 'en_US.UTF-8', LC_ALL: 'C', HTTPS_PROXY: 'http://proxy:3128', FOO: 'bar' });
  });

  test('a stray host flag (IS_SANDBOX=yes), tokens, sockets and provider keys do not reach a configured agent', () => {
    const env = agentEnvironment({ host, kind: 'configured' });
    for (const name of ['IS_SANDBOX', 'GITHUB_TOKEN', 'SSH_AUTH_SOCK', 'VSCODE_IPC_HOOK', 'ANTHROPIC_API_KEY', 'ACCORD_HOME', 'NODE_OPTIONS']) {
      assert.equal(env[name], undefined, name);
    }
  });

  test('"inheritEnv": true gives a configured agent the whole host environment, its own env still winning', () => {
    const env = agentEnvironment({ host, kind: 'configured', inheritEnv: true, own: { IS_SANDBOX: 'no' } });
    assert.equal(env.GITHUB_TOKEN, 'ghp_x');
    assert.equal(env.IS_SANDBOX, 'no');
  });

  test('stored keys reach the bundled agent only, even when a configured agent inherits everything', () => {
    const secrets = { OPENAI_API_KEY: 'sk-stored' };
    assert.equal(agentEnvironment({ host, kind: 'bundled', secrets }).OPENAI_API_KEY, 'sk-stored');
    assert.equal(agentEnvironment({ host, kind: 'configured', secrets }).OPENAI_API_KEY, undefined);
    assert.equal(agentEnvironment({ host, kind: 'configured', inheritEnv: true, secrets }).OPENAI_API_KEY, undefined);
  });

  test('the bundled agent gets what it reads (ACCORD_*, provider variables), not the rest; inheritEnv does not apply to it', () => {
    const env = agentEnvironment({ host, kind: 'bundled', inheritEnv: true, own: { ELECTRON_RUN_AS_NODE: '1' } });
    assert.equal(env.ACCORD_HOME, '/h');
    assert.equal(env.ANTHROPIC_API_KEY, 'sk-shell');
    assert.equal(env.ELECTRON_RUN_AS_NODE, '1');
    for (const name of ['IS_SANDBOX', 'GITHUB_TOKEN', 'SSH_AUTH_SOCK', 'VSCODE_IPC_HOOK', 'NODE_OPTIONS']) assert.equal(env[name], undefined, name);
  });

  test('stored keys win over the shell\'s for the bundled agent', () => {
    assert.equal(agentEnvironment({ host, kind: 'bundled', secrets: { ANTHROPIC_API_KEY: 'sk-stored' } }).ANTHROPIC_API_KEY, 'sk-stored');
  });

  test('Windows names match whatever their case', () => {
    const env = agentEnvironment({ host: { Path: 'C:\\bin', SystemRoot: 'C:\\Windows', Secret: 'x' }, kind: 'configured', platform: 'win32' });
    assert.deepEqual(env, { Path: 'C:\\bin', SystemRoot: 'C:\\Windows' });
  });
});

describe("the bundled agent gets what the project's policy passes to commands", () => {
  const host = { PATH: '/bin', JAVA_HOME: '/opt/jdk', GRADLE_USER_HOME: '/g', GRADLE_OPTS: '-x', AWS_SECRET_ACCESS_KEY: 'no' };

  test('named variables and PREFIX_* entries, nothing else; a configured agent never', () => {
    const env = agentEnvironment({ host, kind: 'bundled', policyPass: ['JAVA_HOME', 'GRADLE_*'] });
    assert.equal(env.JAVA_HOME, '/opt/jdk');
    assert.equal(env.GRADLE_USER_HOME, '/g');
    assert.equal(env.GRADLE_OPTS, '-x');
    assert.equal(env.AWS_SECRET_ACCESS_KEY, undefined);
    assert.equal(agentEnvironment({ host, kind: 'configured', policyPass: ['JAVA_HOME'] }).JAVA_HOME, undefined);
  });

  test('a bare * or a malformed entry passes nothing', () => {
    const env = agentEnvironment({ host, kind: 'bundled', policyPass: ['*', 'A B', '', 'AWS_*X'] });
    assert.deepEqual(Object.keys(env).sort(), ['PATH']);
  });

  test('read from .accord/policy.json with a bound; a missing, oversized or malformed file passes nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'accord-policy-pass-'));
    try {
      assert.deepEqual(await policyPassList(root), []);
      mkdirSync(join(root, '.accord'));
      writeFileSync(join(root, '.accord', 'policy.json'), JSON.stringify({ version: 1, rules: [], environment: { pass: ['JAVA_HOME', 7, 'GRADLE_*'] } }));
      assert.deepEqual(await policyPassList(root), ['JAVA_HOME', 'GRADLE_*']);
      writeFileSync(join(root, '.accord', 'policy.json'), '{ not json');
      assert.deepEqual(await policyPassList(root), []);
      writeFileSync(join(root, '.accord', 'policy.json'), JSON.stringify({ environment: { pass: ['JAVA_HOME'] }, pad: 'x'.repeat(300 * 1024) }));
      assert.deepEqual(await policyPassList(root), []);
      assert.deepEqual(await policyPassList(undefined), []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("attack: a cloned project's policy.json that is a fifo nobody writes passes nothing at once, never holds the agent's start", { timeout: 20_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'accord-policy-pass-'));
    try {
      mkdirSync(join(root, '.accord'));
      execFileSync('mkfifo', [join(root, '.accord', 'policy.json')]);
      assert.deepEqual(await policyPassList(root), []);
      rmSync(join(root, '.accord', 'policy.json'));
      symlinkSync('/dev/zero', join(root, '.accord', 'policy.json'));
      assert.deepEqual(await policyPassList(root), []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
