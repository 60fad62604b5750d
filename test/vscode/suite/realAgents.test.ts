// Opt-in (skipped unless ACCORD_INTEROP_DIR names a folder where the real
// third-party ACP agents are installed with npm, never in CI): each real agent
// added as a person adds it (an `accord.agents` entry), its model replaced by
// the fake model server on 127.0.0.1, driven through the extension: a turn
// that streams text, reads and edits a workspace file with the agent's own
// tool (allowed once) and runs a shell command (rejected once); the file on
// disk, the review, the panel's cards; a turn cancelled mid-stream; the
// session reopened where the agent offers session/load; and its processes gone
// once its entry is removed. What the panel was sent is saved under
// ACCORD_INTEROP_DIR/rec for reading. CI covers what this found with scripted
// agents that send the same messages (test/fixtures/fakeAcpAgent.ts).
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AccordApi } from '../../../extension/extension';
import type { PendingApproval } from '../../../extension/approvals/approvalService';
import type { HostMessage } from '../../../webview/protocol';
import { startFakeModelServer, type FakeModelServer, type Reply } from '../../fakeModelServer/index';
import { eventually } from '../ui';
import { pidAlive } from '../../support/pidAlive';

const dir = process.env.ACCORD_INTEROP_DIR;
const only = (process.env.ACCORD_INTEROP_AGENTS ?? '').split(',').filter(Boolean);
const ORIGINAL = 'one\ntwo\nthree\n';
const EDITED = 'one\nTWO\nthree\n';
const SHELL = 'echo from-shell > shell-made.txt';

interface RealAgent {
  id: string;
  name: string;
  bin: string;
  args: string[];
  /** The entry's env besides HOME: the fake endpoint (`sideUrl`: a second fake server for side requests such as titles), telemetry off. */
  env(home: string, baseUrl: string, sideUrl: string): Record<string, string>;
  /** False where the plan is not checked (opencode 1.18 sends no `plan` update for todowrite). */
  plans?: false;
  /** Its shell tool runs the command through the client (terminal/create), and this is the reply that calls it. */
  clientShell?: (folder: string) => Reply[];
  /** The model's turn: text, then the agent's own read, edit and shell tools, then text. */
  script(file: string, folder: string): Reply[];
}

const say = (text: string, call?: { id: string; name: string; args: unknown }): Reply => ({
  type: 'stream',
  parts: call ? [{ text }, { toolCall: call }] : [{ text }],
});

const AGENTS: RealAgent[] = [
  {
    id: 'claude',
    name: 'Real Claude',
    bin: 'claude-agent-acp',
    args: [],
    env: (_home, baseUrl) => ({
      ANTHROPIC_BASE_URL: baseUrl.replace(/\/v1$/, ''), ANTHROPIC_API_KEY: 'fake-key',
      DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }),
    script: (file, folder) => [
      say('A plan. ', { id: 'call_plan', name: 'TaskCreate', args: { subject: 'Edit the file', description: 'two becomes TWO', activeForm: 'Editing the file' } }),
      say('Reading it first. ', { id: 'call_read', name: 'Read', args: { file_path: file } }),
      say('I will edit the file. ', { id: 'call_edit', name: 'Edit', args: { file_path: file, old_string: 'two', new_string: 'TWO' } }),
      say('Now a command. ', { id: 'call_shell', name: 'Bash', args: { command: `cd ${folder} && ${SHELL}`, description: 'make a file' } }),
      say('All done.'),
    ],
  },
  {
    // The older adapter: its tools go through the client (fs/read_text_file, fs/write_text_file, terminal/*).
    id: 'claude-code',
    name: 'Real Claude Code ACP',
    bin: 'claude-code-acp',
    args: [],
    plans: false, // not checked: which request takes which reply at the turn's start is not fixed
    clientShell: (folder) => [
      say('Running it. ', { id: 'call_term', name: 'mcp__acp__Bash', args: { command: `cd ${folder} && echo from-terminal > terminal-made.txt && echo printed`, description: 'make a file', timeout: 60_000 } }),
      say('Ran it.'),
    ],

    env: (_home, baseUrl) => ({
      ANTHROPIC_BASE_URL: baseUrl.replace(/\/v1$/, ''), ANTHROPIC_API_KEY: 'fake-key',
      DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }),
    script: (file, folder) => [
      // Its CLI's side requests at the turn's start (a token count on the small model, ...) take the first two replies.
      say('side request'),
      say('side request'),
      say('Reading it first. ', { id: 'call_read', name: 'mcp__acp__Read', args: { file_path: file } }),
      say('I will edit the file. ', { id: 'call_edit', name: 'mcp__acp__Edit', args: { file_path: file, old_string: 'two', new_string: 'TWO' } }),
      say('Now a command. ', { id: 'call_shell', name: 'mcp__acp__Bash', args: { command: `cd ${folder} && ${SHELL}`, description: 'make a file', timeout: 60_000 } }),
      say('All done.'),
    ],
  },
  {
    id: 'codex',
    name: 'Real Codex',
    bin: 'codex-acp',
    args: [],
    env: (home, baseUrl) => {
      const codexHome = path.join(home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(path.join(codexHome, 'config.toml'), [
        'model = "fake-model"', 'model_provider = "fake"', '[model_providers.fake]', 'name = "fake"',
        `base_url = "${baseUrl}"`, 'env_key = "OPENAI_API_KEY"', 'wire_api = "responses"', '[analytics]', 'enabled = false', '',
      ].join('\n'));
      return { CODEX_HOME: codexHome, OPENAI_API_KEY: 'fake-key' };
    },
    script: (file, folder) => [
      say('A plan. ', { id: 'call_plan', name: 'update_plan', args: { plan: [{ step: 'Edit the file', status: 'in_progress' }, { step: 'Run a command', status: 'pending' }] } }),
      say('I will edit the file. ', { id: 'call_edit', name: 'exec_command', args: { cmd: `apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: ${file}\n@@\n one\n-two\n+TWO\n three\n*** End Patch\nEOF\n`, sandbox_permissions: 'require_escalated', justification: 'edit the file' } }),
      say('Now a command. ', { id: 'call_shell', name: 'exec_command', args: { cmd: SHELL, workdir: folder, sandbox_permissions: 'require_escalated', justification: 'make a file' } }),
      say('All done.'),
    ],
  },
  {
    id: 'qwen',
    name: 'Real Qwen',
    bin: 'qwen',
    args: ['--acp'],
    env: (home, baseUrl) => {
      mkdirSync(path.join(home, '.qwen'), { recursive: true });
      writeFileSync(path.join(home, '.qwen/settings.json'), JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }));
      return { OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: 'fake-key', OPENAI_MODEL: 'fake-model' };
    },
    script: (file, folder) => [
      say('A plan. ', { id: 'call_plan', name: 'todo_write', args: { todos: [{ id: '1', content: 'Edit the file', status: 'in_progress' }, { id: '2', content: 'Run a command', status: 'pending' }] } }),
      say('Reading it first. ', { id: 'call_read', name: 'read_file', args: { file_path: file } }),
      say('I will edit the file. ', { id: 'call_edit', name: 'edit', args: { file_path: file, old_string: 'two', new_string: 'TWO' } }),
      say('Now a command. ', { id: 'call_shell', name: 'run_shell_command', args: { command: `cd ${folder} && ${SHELL}`, description: 'make a file' } }),
      say('All done.'),
    ],
  },
  {
    id: 'opencode',
    name: 'Real OpenCode',
    bin: 'opencode',
    args: ['acp'],
    plans: false,
    env: (home, baseUrl, sideUrl) => {
      const provider = (url: string) => ({ npm: '@ai-sdk/openai-compatible', name: 'Fake', options: { baseURL: url, apiKey: 'fake-key' }, models: { 'fake-model': { name: 'Fake' } } });
      mkdirSync(path.join(home, '.config/opencode'), { recursive: true });
      // Its session titles come from small_model: another fake server, so they take none of the turn's scripted replies.
      writeFileSync(path.join(home, '.config/opencode/opencode.json'), JSON.stringify({
        // Asks before edits and commands (its default allows both without asking).
        permission: { edit: 'ask', bash: 'ask' },
        autoupdate: false, share: 'disabled', provider: { fake: provider(baseUrl), side: provider(sideUrl) }, model: 'fake/fake-model', small_model: 'side/fake-model',
      }));
      return { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_SHARE: '1' };
    },
    script: (file, folder) => [
      say('A plan. ', { id: 'call_plan', name: 'todowrite', args: { todos: [{ content: 'Edit the file', status: 'in_progress', priority: 'high' }, { content: 'Run a command', status: 'pending', priority: 'medium' }] } }),
      say('Reading it first. ', { id: 'call_read', name: 'read', args: { filePath: file } }),
      say('I will edit the file. ', { id: 'call_edit', name: 'edit', args: { filePath: file, oldString: 'two', newString: 'TWO' } }),
      say('Now a command. ', { id: 'call_shell', name: 'bash', args: { command: SHELL, workdir: folder, description: 'make a file' } }),
      say('All done.'),
    ],
  },
];

/** The extension host's descendants whose command line runs something from the interop folder. */
function agentProcesses(root: string): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const isDescendant = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...parents.keys()].filter((pid) => {
    if (!isDescendant(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(root);
    } catch {
      return false;
    }
  });
}

describe('real third-party agents through the extension (ACCORD_INTEROP_DIR)', function () {
  this.timeout(300_000);
  let api: AccordApi;
  let model: FakeModelServer;
  let side: FakeModelServer;
  let workspace: string;
  let scratch: string;
  const posted: HostMessage[] = [];
  const approvals: PendingApproval[] = [];
  /** Each approval is answered with the next of these kinds. */
  const answers: string[] = [];
  let answering: vscode.Disposable | undefined;
  let listening: vscode.Disposable | undefined;

  before(async function () {
    if (!dir) return this.skip();
    api = await vscode.extensions.getExtension<AccordApi>('accord-dev.accord')!.activate();
    model = await startFakeModelServer();
    side = await startFakeModelServer();
    workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    scratch = mkdtempSync(path.join(workspace, 'real-agents-'));
    listening = api.panel.onDidPost((message) => posted.push(message));
    // Disposed in after(): a listener left behind would answer the next suites' approvals.
    answering = api.client.approvals.onDidChange(({ approval, settled }) => {
      if (settled) return;
      approvals.push(approval);
      const kind = answers.shift() ?? 'reject_once';
      const button = approval.choices.buttons.find((b) => b.kind === kind);
      if (button) api.client.approvals.answer(approval.requestId, button.optionId);
      else api.client.approvals.decline(approval.requestId);
    });
    await vscode.commands.executeCommand('workbench.view.extension.accord');
  });

  after(async () => {
    answering?.dispose();
    listening?.dispose();
    if (!dir) return;
    await vscode.workspace.getConfiguration('accord').update('agents', undefined, vscode.ConfigurationTarget.Global);
    await model?.close();
    await side?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  describe('Real Gemini CLI (its model API is not one the fake server speaks)', () => {
    it('starts, initializes, and session/new reports its sign-in need in its own words, with its ways to sign in; stopped, it is gone', async function () {
      const bin = path.join(dir ?? '', 'node_modules/.bin/gemini');
      if (!dir || !existsSync(bin) || (only.length > 0 && !only.includes('gemini'))) return this.skip();
      mkdirSync(path.join(dir, 'homes'), { recursive: true });
      const home = mkdtempSync(path.join(dir, 'homes', 'vscode-gemini-'));
      mkdirSync(path.join(home, '.gemini'), { recursive: true });
      writeFileSync(path.join(home, '.gemini/settings.json'), JSON.stringify({ telemetry: { enabled: false }, privacy: { usageStatisticsEnabled: false } }));
      await vscode.workspace.getConfiguration('accord').update('agents', [{ name: 'Real Gemini', command: bin, args: ['--acp'], env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') } }], vscode.ConfigurationTarget.Global);
      const host = api.client.host('Real Gemini');
      assert.ok(host);
      posted.length = 0;
      const session = await api.client.controller.newSession(host);
      assert.equal(session, undefined, 'no key, no session');
      assert.equal(host.info?.agentInfo?.name, 'gemini-cli');
      const failure = api.client.controller.lastFailure;
      assert.ok(failure);
      assert.deepEqual([failure.agentName, failure.stage], ['Real Gemini', 'session/new']);
      assert.match(failure.message, /API key/);
      assert.ok(failure.authMethods?.some((m) => m.methodId === 'gemini-api-key'), JSON.stringify(failure.authMethods));
      assert.ok(posted.some((m) => m.type === 'agentFailure'), 'the panel shows it');
      const running = agentProcesses(dir);
      assert.ok(running.length > 0);
      await vscode.workspace.getConfiguration('accord').update('agents', undefined, vscode.ConfigurationTarget.Global);
      api.client.registry.forgetAllBut(undefined);
      await eventually('gemini gone', () => running.every((pid) => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      }), 20_000);
    });
  });

  for (const agent of AGENTS.filter((a) => only.length === 0 || only.includes(a.id))) {
    describe(agent.name, () => {
      const bin = () => path.join(dir!, 'node_modules/.bin', agent.bin);
      let home: string;
      let sessionId: string | undefined;
      const record: unknown[] = [];
      let sub: vscode.Disposable | undefined;

      before(async function () {
        if (!dir || !existsSync(bin())) return this.skip();
        mkdirSync(path.join(dir, 'homes'), { recursive: true });
        // Codex will not make its helper binaries under /tmp, so the homes live in the interop folder.
        home = mkdtempSync(path.join(dir, 'homes', `vscode-${agent.id}-`));
        const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), ...agent.env(home, model.baseUrl, side.baseUrl) };
        await vscode.workspace.getConfiguration('accord').update('agents', [{ name: agent.name, command: bin(), args: agent.args, env }], vscode.ConfigurationTarget.Global);
        sub = api.client.router.onUpdate((routed) => record.push({ update: routed.update, replay: routed.replay }));
        posted.length = 0;
      });

      after(() => {
        sub?.dispose();
        if (!dir) return;
        mkdirSync(path.join(dir, 'rec'), { recursive: true });
        writeFileSync(path.join(dir, 'rec', `vscode-${agent.id}.json`), JSON.stringify({ updates: record, posted, approvals: approvals.map((a) => ({ summary: a.summary, buttons: a.choices.buttons })) }, null, 1));
      });

      it('a turn: text, its own edit (allowed once), a shell command (rejected once); disk, review, cards', async () => {
        const host = api.client.host(agent.name);
        assert.ok(host, 'the entry is read');
        const session = await api.client.controller.newSession(host);
        assert.ok(session, `no session: ${api.client.controller.lastFailure?.message ?? host.status.message}`);
        sessionId = session.sessionId;
        const file = path.join(scratch, `${agent.id}-hello.txt`);
        writeFileSync(file, ORIGINAL);
        model.clearScript();
        model.script(...agent.script(file, scratch));
        approvals.length = 0;
        answers.splice(0, answers.length, 'allow_once', 'reject_once');
        const outcome = await api.client.controller.prompt(host, { type: 'sendPrompt', epoch: session.epoch, text: 'Edit the file, then run a command.', mentions: [], images: [] });
        assert.ok(outcome, 'the turn ended');
        assert.equal(existsSync(path.join(scratch, 'shell-made.txt')), false, 'the rejected command did not run');
        assert.ok(approvals.length >= 2, `two approvals asked, got ${approvals.length}`);
        const review = await eventually('the review of the edited file', () => api.review.store.inSession(session.sessionId).find((f) => f.path === file));
        assert.equal(review.baseText, ORIGINAL, 'the review compares with the text before the edit');
        // An agent that edits through fs/write_text_file (qwen) has its write held for review; one that writes itself (claude, codex) is on disk.
        if (review.origin !== 'direct') {
          assert.equal(readFileSync(file, 'utf8'), ORIGINAL, 'a staged write waits for Accept');
          await vscode.commands.executeCommand('accord.review.acceptFile', review.id);
        }
        assert.equal(readFileSync(file, 'utf8'), EDITED, 'the allowed edit is on disk');
        const tools = posted.filter((m) => m.type === 'sessionUpdate' && m.update.sessionUpdate === 'tool_call');
        assert.ok(tools.length > 0, 'the panel was sent tool cards');
        const plans = posted.filter((m) => m.type === 'sessionUpdate' && m.update.sessionUpdate === 'plan');
        if (agent.plans !== false) assert.ok(plans.length > 0, `the panel was sent the plan (the agent sent ${record.filter((r) => JSON.stringify(r).includes('"plan"')).length})`);
      });

      it('an allowed command through the client terminal (terminal/*): it runs, its output reaches the card, its file is reviewed', async function () {
        if (!agent.clientShell) return this.skip();
        const host = api.client.host(agent.name)!;
        const session = api.client.controller.current;
        assert.ok(session && session.host === host);
        model.clearScript();
        model.script(...agent.clientShell(scratch));
        answers.splice(0, answers.length, 'allow_once');
        const outcome = await api.client.controller.prompt(host, { type: 'sendPrompt', epoch: session.epoch, text: 'Run it.', mentions: [], images: [] });
        assert.equal(outcome?.stopReason, 'end_turn', JSON.stringify(outcome));
        const made = path.join(scratch, 'terminal-made.txt');
        assert.equal(readFileSync(made, 'utf8'), 'from-terminal\n');
        await eventually('the new file under review', () => api.review.store.inSession(session.sessionId).find((f) => f.path === made));
        const shown = JSON.stringify(posted.filter((m) => m.type === 'sessionUpdate' && JSON.stringify(m.update).includes('call_term')));
        assert.match(shown, /"terminal"/, 'the card shows a terminal');
        rmSync(made, { force: true });
      });

      it('cancel mid-turn: the turn ends as cancelled', async () => {
        const host = api.client.host(agent.name)!;
        const session = api.client.controller.current;
        assert.ok(session && session.host === host);
        model.clearScript();
        model.script({ type: 'stream', parts: [{ text: 'thinking about it' }, { text: ' forever' }], stallAfterParts: 1 });
        const before = model.requests.length;
        const running = api.client.controller.prompt(host, { type: 'sendPrompt', epoch: session.epoch, text: 'Take your time.', mentions: [], images: [] });
        await eventually('the model request', () => model.requests.length > before);
        await eventually('the first chunk', () => record.some((r) => JSON.stringify(r).includes('thinking about it')));
        await api.client.controller.cancelTurn();
        const outcome = await running;
        assert.equal(outcome?.stopReason, 'cancelled', JSON.stringify(outcome));
      });

      it('session/load where offered: the transcript comes back', async function () {
        const host = api.client.host(agent.name)!;
        if (!host.info?.agentCapabilities?.loadSession || !sessionId) return this.skip();
        const replayed = record.length;
        await api.client.controller.loadSession(host, sessionId);
        assert.equal(api.client.controller.current?.sessionId, sessionId);
        const text = JSON.stringify(record.slice(replayed));
        assert.match(text, /I will edit the file/);
      });

      it('its processes (and what it launched) are gone once Accord lets it go', async () => {
        const before = agentProcesses(dir!);
        assert.ok(before.length > 0, 'the agent was running');
        await vscode.workspace.getConfiguration('accord').update('agents', undefined, vscode.ConfigurationTarget.Global);
        // The panel's agent outlives its entry until the panel moves on; this is what happens then (and when the window closes).
        api.client.registry.forgetAllBut(undefined);
        // By pid: a child the agent left behind is re-parented away from the extension host but still alive.
        const cmdline = (pid: number) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 200);
          } catch {
            return '(gone)';
          }
        };
        const left = () => before.filter(pidAlive).map((pid) => `${pid} ${cmdline(pid)}`);
        await eventually(`no process left`, () => left().length === 0, 20_000).catch((error: Error) => {
          throw new Error(`${error.message}: ${left().join(' | ')}`);
        });
      });
    });
  }
});
