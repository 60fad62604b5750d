import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scrubEnvironment } from '../../../agent/sandbox/environment';

test('secrets, credentials and access handles are dropped; ordinary variables and approved additions stay', () => {
  const base = {
    PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', TERM: 'xterm', NODE_ENV: 'test', EDITOR: 'vi',
    ANTHROPIC_API_KEY: 'x', OPENAI_API_KEY: 'x', GITHUB_TOKEN: 'x', GH_TOKEN: 'x', NPM_TOKEN: 'x', MY_SERVICE_SECRET: 'x',
    AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', AWS_SESSION_TOKEN: 'x', AWS_PROFILE: 'x', AZURE_CLIENT_SECRET: 'x',
    GOOGLE_APPLICATION_CREDENTIALS: '/k.json', DB_PASSWORD: 'x', SSH_AUTH_SOCK: '/tmp/agent', ACCORD_API_KEY: 'x',
    VSCODE_IPC_HOOK_CLI: '/tmp/vscode.sock', ELECTRON_RUN_AS_NODE: '1', GIT_ASKPASS: '/x', npm_config__authToken: 'x',
    HTTPS_PROXY_URL: 'http://user:pass@proxy:8080', DATABASE_URL: 'postgres://u:p@db/x',
  };
  const { env, removed } = scrubEnvironment(base, { FOO: 'bar', PATH: '/opt/bin:/usr/bin' });
  assert.deepEqual(Object.keys(env).sort(), ['EDITOR', 'FOO', 'HOME', 'LANG', 'NODE_ENV', 'PATH', 'TERM']);
  assert.equal(env.PATH, '/opt/bin:/usr/bin');
  assert.equal(removed.length, Object.keys(base).length - 6);
  assert.ok(removed.includes('SSH_AUTH_SOCK'));
});
