// ACP sign-in in a real VS Code (issue 18): an agent that needs authenticate
// before session/new (test/fixtures/authAcpAgent.ts). The panel's failure
// notice offers the methods the agent named; an `agent` method is one
// authenticate request, a `terminal` method runs the agent's own login in a
// real VS Code terminal, and the session the person wanted then starts.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import type { AccordApi } from '../../../extension/extension';
import { parseWebviewMessage } from '../../../webview/protocol';

const NAME = 'Auth Fixture';
const REFUSING = 'Auth Fixture Refusing';
let api: AccordApi;
let stateDir: string;

async function configure(): Promise<void> {
  const root = vscode.extensions.getExtension<AccordApi>('accord-dev.accord')!.extensionPath;
  const entry = (name: string, env: Record<string, string>) => ({
    name,
    command: process.execPath,
    args: ['--import', pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href, path.join(root, 'test/fixtures/authAcpAgent.ts')],
    env: { ELECTRON_RUN_AS_NODE: '1', ...env },
  });
  await vscode.workspace.getConfiguration('accord').update('agents', [
    entry(NAME, { AUTH_FIXTURE_STATE: stateDir }),
    entry(REFUSING, { AUTH_FIXTURE_STATE: path.join(stateDir, 'refusing'), AUTH_FIXTURE_REFUSE: '1' }),
  ], vscode.ConfigurationTarget.Global);
}

const host = (name = NAME) => {
  const h = api.client.host(name);
  assert.ok(h, 'the configured agent is not found');
  return h;
};

async function promptText(): Promise<string> {
  const session = api.client.controller.current;
  assert.ok(session, 'no session');
  const texts: string[] = [];
  const sub = api.client.router.onUpdate(({ update }) => {
    if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') texts.push(update.content.text);
  });
  try {
    await api.client.controller.prompt(session.host, { type: 'sendPrompt', epoch: session.epoch, text: 'who', mentions: [], images: [] });
  } finally {
    sub.dispose();
  }
  return texts.join('');
}

describe('ACP sign-in (authenticate and terminal auth)', function () {
  this.timeout(120_000);

  before(async () => {
    api = await vscode.extensions.getExtension<AccordApi>('accord-dev.accord')!.activate();
    stateDir = mkdtempSync(path.join(tmpdir(), 'accord-auth-fixture-'));
    await configure();
  });

  afterEach(() => rmSync(path.join(stateDir, 'signed-in'), { force: true }));

  after(async () => {
    api.client.host(NAME)?.dispose();
    api.client.host(REFUSING)?.dispose();
    await vscode.workspace.getConfiguration('accord').update('agents', undefined, vscode.ConfigurationTarget.Global);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('session/new answers auth_required: the panel offers the agent\'s methods, terminal ones marked', async () => {
    const session = await api.client.controller.newSession(host());
    assert.equal(session, undefined);
    const failure = api.client.controller.lastFailure;
    assert.equal(failure?.stage, 'session/new');
    assert.deepEqual(failure?.authMethods?.map((m) => [m.methodId, m.terminal]), [['token', false], ['tui', true]]);
    // The agent's words travel as one clipped line; the panel renders them as text (test/browser/signIn.test.ts).
    assert.ok(!failure?.authMethods?.[0]?.description?.includes('\n'));
    // The panel's click is a valid message.
    assert.ok(parseWebviewMessage({ type: 'authenticate', methodId: 'token' }).ok);
  });

  it('an agent method: authenticate, then the session starts and the agent knows how', async () => {
    assert.equal(await api.client.controller.authenticate(host(), 'token'), true);
    assert.equal(api.client.controller.lastFailure, undefined, 'the sign-in notice is gone');
    assert.equal(api.client.controller.current?.host, host());
    assert.equal(await promptText(), 'signed-in-by=token');
  });

  it('a terminal method: the agent\'s login runs in a VS Code terminal with the method\'s args and env; exit 0 restarts the agent signed in', async () => {
    await host().restart(); // forgets the in-process token sign-in
    assert.equal(await api.client.controller.newSession(host()), undefined);
    const opened = new Promise<vscode.Terminal>((resolve) => {
      const sub = vscode.window.onDidOpenTerminal((t) => {
        sub.dispose();
        resolve(t);
      });
    });
    const signedIn = api.client.controller.authenticate(host(), 'tui');
    const terminal = await opened;
    assert.match(terminal.name, /^Sign in: Auth Fixture: Log in in a terminal$/);
    assert.equal(await signedIn, true);
    assert.ok(existsSync(path.join(stateDir, 'signed-in')));
    assert.equal(await promptText(), 'signed-in-by=terminal');
  });

  it('attack: a method the agent never offered is refused without running anything', async () => {
    await host().restart();
    const opened: vscode.Terminal[] = [];
    const sub = vscode.window.onDidOpenTerminal((t) => opened.push(t));
    try {
      assert.equal(await api.client.controller.authenticate(host(), 'bogus; rm -rf /'), false);
    } finally {
      sub.dispose();
    }
    assert.equal(opened.length, 0);
    assert.equal(api.client.controller.lastFailure?.stage, 'authenticate');
    assert.match(api.client.controller.lastFailure?.message ?? '', /does not offer a sign-in/);
    // The methods are offered again.
    assert.equal(api.client.controller.lastFailure?.authMethods?.length, 2);
  });

  it('a terminal login that fails says so and offers the methods again', async () => {
    const refusing = host(REFUSING);
    assert.equal(await api.client.controller.newSession(refusing), undefined);
    assert.equal(await api.client.controller.authenticate(refusing, 'tui'), false);
    assert.equal(api.client.controller.lastFailure?.agentName, REFUSING);
    assert.match(api.client.controller.lastFailure?.message ?? '', /exit code 2/);
    assert.equal(api.client.controller.lastFailure?.authMethods?.length, 2);
    assert.ok(!existsSync(path.join(stateDir, 'refusing', 'signed-in')));
  });
});
