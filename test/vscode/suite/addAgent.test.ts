// "Accord: Add Agent…" in a real VS Code (issue 18): detection reads PATH and
// the npx cache, an installed agent is added as a bare command, an npm one is
// installed only after consent (a fake `npm` on PATH stands in for the
// registry, run in a real terminal), and the accord.agents entry is written
// beside what was there. The quick pick and the consent are answered by the
// test through the command's seams; everything else is the real command.
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { addAgent, type AddAgentDeps } from '../../../extension/agents/addAgent';

type Item = Parameters<NonNullable<AddAgentDeps['pick']>>[0][number];

describe('Add Agent', function () {
  this.timeout(60_000);
  let root: string;
  let bin: string;
  const shown: Item[][] = [];
  const consents: string[] = [];

  const run = (label: string, consent = true) => addAgent({
    log: () => {},
    env: () => ({ ...process.env, PATH: `${bin}:/usr/bin:/bin`, npm_config_cache: path.join(root, 'npm-cache'), HOME: root }),
    pick: async (items) => {
      shown.push(items);
      return items.find((i) => i.label === label);
    },
    confirm: async (message) => {
      consents.push(message);
      return consent;
    },
  });
  const stored = () => vscode.workspace.getConfiguration('accord').inspect<unknown[]>('agents')?.globalValue ?? [];

  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'accord-add-agent-'));
    bin = path.join(root, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'qwen'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, 'qwen'), 0o755);
    // The fake npm "installs" the package's program into the same folder, as a global npm prefix on PATH would.
    writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho "added 1 package: $3"\nprintf '#!/bin/sh\\nexit 0\\n' > "${bin}/opencode"\nchmod +x "${bin}/opencode"\n`);
    chmodSync(path.join(bin, 'npm'), 0o755);
    // Something already configured by hand stays as it was.
    await vscode.workspace.getConfiguration('accord').update('agents', [{ name: 'Mine', command: 'my-agent', args: ['--stdio'], custom: 1 }], vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('accord').update('agents', undefined, vscode.ConfigurationTarget.Global);
    rmSync(root, { recursive: true, force: true });
  });

  it('says which agents are installed, installable or manual', async () => {
    assert.equal(await run('nothing'), undefined);
    const byLabel = Object.fromEntries(shown.at(-1)!.map((i) => [i.label, i.description]));
    assert.match(byLabel['Qwen Code'] ?? '', /^installed: .*\/bin\/qwen$/);
    assert.match(byLabel['Gemini CLI'] ?? '', /install with npm \(@google\/gemini-cli\)/);
    assert.match(byLabel.Goose ?? '', /install page/);
    assert.equal(shown.at(-1)!.length, 6);
  });

  it('an installed agent is added as its bare command, after what was configured', async () => {
    assert.equal(await run('Qwen Code'), 'Qwen Code');
    assert.deepEqual(stored(), [
      { name: 'Mine', command: 'my-agent', args: ['--stdio'], custom: 1 },
      { name: 'Qwen Code', command: 'qwen', args: ['--acp'] },
    ]);
    assert.equal(consents.length, 0, 'nothing to install, nothing asked');
  });

  it('then it is listed as already added and not added twice', async () => {
    assert.equal(await run('Qwen Code'), undefined);
    assert.match(shown.at(-1)!.find((i) => i.label === 'Qwen Code')?.description ?? '', /already added as Qwen Code/);
    assert.equal(stored().length, 2);
  });

  it('no consent, no install and no entry', async () => {
    const opened: vscode.Terminal[] = [];
    const sub = vscode.window.onDidOpenTerminal((t) => opened.push(t));
    try {
      assert.equal(await run('Gemini CLI', false), undefined);
    } finally {
      sub.dispose();
    }
    assert.deepEqual(consents, ['Install Gemini CLI?']);
    assert.equal(opened.length, 0);
    assert.equal(stored().length, 2);
  });

  it('with consent, npm installs it in a terminal the person sees, and the entry is written', async () => {
    const opened = new Promise<vscode.Terminal>((resolve) => {
      const sub = vscode.window.onDidOpenTerminal((t) => {
        sub.dispose();
        resolve(t);
      });
    });
    const added = run('OpenCode');
    assert.equal((await opened).name, 'Install OpenCode');
    assert.equal(await added, 'OpenCode');
    assert.deepEqual(stored().at(-1), { name: 'OpenCode', command: 'opencode', args: ['acp'] });
  });
});
