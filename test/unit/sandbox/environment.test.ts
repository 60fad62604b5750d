import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandEnvironment } from '../../../agent/sandbox/environment';

test('commands get an allowlisted environment: secrets under any name stay out, approved additions go in', () => {
  const base = {
    PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', LC_CTYPE: 'C', TERM: 'xterm', USER: 'u', SHELL: '/bin/bash', TMPDIR: '/tmp',
    // Named like nothing a denylist would know (issue 11, finding 7).
    PGPASSWORD: 'x', MYSQL_PWD: 'x', CI_JOB_JWT: 'x', SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x', DB_PASSWORD2: 'x', SECRETKEY: 'x', STRIPE_SK: 'x', PRIVATEKEY: 'x',
    ANTHROPIC_API_KEY: 'x', OPENAI_API_KEY: 'x', GITHUB_TOKEN: 'x', AWS_SECRET_ACCESS_KEY: 'x', SSH_AUTH_SOCK: '/tmp/agent', VSCODE_IPC_HOOK_CLI: '/tmp/vscode.sock',
    ELECTRON_RUN_AS_NODE: '1', NODE_OPTIONS: '--require /tmp/x.js', LD_PRELOAD: '/tmp/x.so', DATABASE_URL: 'postgres://u:p@db/x', JAVA_HOME: '/opt/jdk', GRADLE_USER_HOME: '/g',
  };
  const { env, removed } = commandEnvironment(base, { additions: { FOO: 'bar', PATH: '/opt/bin:/usr/bin' } });
  assert.deepEqual(Object.keys(env).sort(), ['FOO', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'PATH', 'SHELL', 'TERM', 'TMPDIR', 'USER']);
  assert.equal(env.PATH, '/opt/bin:/usr/bin', 'an approved addition wins');
  for (const name of ['PGPASSWORD', 'MYSQL_PWD', 'CI_JOB_JWT', 'SLACK_WEBHOOK_URL', 'DB_PASSWORD2', 'SECRETKEY', 'STRIPE_SK', 'PRIVATEKEY', 'NODE_OPTIONS', 'LD_PRELOAD']) {
    assert.ok(removed.includes(name), name);
  }
});

test('the policy passes more names, exactly or by prefix, and nothing else', () => {
  const base = { PATH: '/usr/bin', JAVA_HOME: '/opt/jdk', GRADLE_USER_HOME: '/g', GRADLE_OPTS: '-X', JAVA_HOMEX: 'y', PGPASSWORD: 'x' };
  const { env } = commandEnvironment(base, { pass: ['JAVA_HOME', 'GRADLE_*'] });
  assert.deepEqual(Object.keys(env).sort(), ['GRADLE_OPTS', 'GRADLE_USER_HOME', 'JAVA_HOME', 'PATH']);
});
