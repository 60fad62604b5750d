// The first-run setup and the model picker before a session: tells the panel
// which models the bundled agent can use (modelCatalog.ts), and carries out
// the setup card's buttons. Picking a model writes `accord.model` (it
// persists); the bundled agent reads it when it starts, so an agent with no
// session of the panel's restarts to use it at once.
import * as vscode from 'vscode';
import type { HostMessage, SetupAction } from '../../webview/protocol';
import type { LocalServer } from '../../agent/models/detect';
import { localServerName } from '../../agent/models/catalog';
import { vendorLabel } from '../../agent/models/modelId';
import { listLanguageModels } from '../languageModels/lmHandlers';
import { modelSetting } from '../settings/settings';
import { findLocalServers, modelSetup } from './modelCatalog';

export interface SetupDeps {
  /** Keys stored with "Set API Key", by variable name. */
  storedKeys(): Promise<Record<string, string>>;
  /** Runs "Set API Key"; resolves once it is done or dismissed. */
  setApiKey(): Promise<void>;
  log(message: string): void;
}

/** How long local servers found stay known before the next probe (a panel reload probes again after this). */
const LOCAL_PROBE_TTL_MS = 30_000;

export class SetupService implements vscode.Disposable {
  private readonly panelEmitter = new vscode.EventEmitter<HostMessage>();
  /** What the panel should hear (the panel bridge is the one writer). */
  readonly onPanelMessage = this.panelEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.panelEmitter];
  private local: { at: number; servers: Promise<LocalServer[]> } | undefined;

  constructor(private readonly deps: SetupDeps) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('accord.model')) void this.refresh();
      }),
    );
    if (typeof vscode.lm?.onDidChangeChatModels === 'function') this.disposables.push(vscode.lm.onDidChangeChatModels(() => void this.refresh()));
  }

  /** The palette and walkthrough commands: the same three ways, and a picker of every model by provider. */
  registerCommands(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('accord.setup.useVscodeModels', () => this.act('useVscodeModels')),
      vscode.commands.registerCommand('accord.setup.useLocalModel', () => this.act('useLocalModel')),
      vscode.commands.registerCommand('accord.setup.pickModel', () => this.pickFromPalette()),
    ];
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** Computes what the panel shows and posts it. `probeAgain`: look for local servers now, not from the last probe. */
  async refresh(probeAgain = false): Promise<void> {
    try {
      const [storedKeys, vscodeModels, localServers] = await Promise.all([
        this.deps.storedKeys(),
        listLanguageModels().catch(() => []),
        this.localServers(probeAgain),
      ]);
      this.panelEmitter.fire({ type: 'modelSetup', setup: modelSetup({ setting: modelSetting(), storedKeys, env: process.env, vscodeModels, localServers }) });
    } catch (error) {
      this.deps.log(`could not list the models for the setup card: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async act(action: SetupAction, baseUrl?: string): Promise<void> {
    switch (action) {
      case 'useVscodeModels':
        return this.useVscodeModels();
      case 'setApiKey':
        await this.deps.setApiKey();
        return this.refresh();
      case 'useLocalModel':
        return this.useLocalModel(baseUrl);
    }
  }

  /** A model picked in the panel before a session: only a model the catalogue offers becomes the setting. */
  async pick(value: string): Promise<void> {
    const [storedKeys, vscodeModels, localServers] = await Promise.all([this.deps.storedKeys(), listLanguageModels().catch(() => []), this.localServers(false)]);
    const offered = modelSetup({ setting: modelSetting(), storedKeys, env: process.env, vscodeModels, localServers }).groups.some((g) => g.models.some((m) => m.value === value));
    if (!offered) {
      this.deps.log(`ignored a model pick the panel did not offer: ${value.slice(0, 200)}`);
      return;
    }
    await this.choose(value);
  }

  private async pickFromPalette(): Promise<void> {
    const [storedKeys, vscodeModels, localServers] = await Promise.all([this.deps.storedKeys(), listLanguageModels().catch(() => []), this.localServers(true)]);
    const setup = modelSetup({ setting: modelSetting(), storedKeys, env: process.env, vscodeModels, localServers });
    if (setup.groups.length === 0) {
      const useVscode = vscode.l10n.t('Use GitHub Copilot models');
      const setKey = vscode.l10n.t('Set API Key');
      const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Accord has no model to offer yet: use GitHub Copilot models, set an API key, or start a local model server.'), useVscode, setKey);
      if (choice === useVscode) await this.useVscodeModels();
      if (choice === setKey) await this.deps.setApiKey();
      return;
    }
    type Item = vscode.QuickPickItem & { value?: string };
    const items: Item[] = setup.groups.flatMap((g): Item[] => [
      { label: g.name, kind: vscode.QuickPickItemKind.Separator },
      ...g.models.map((m) => ({ label: m.name, value: m.value, ...(m.value === setup.current ? { description: vscode.l10n.t('current') } : {}) })),
    ]);
    const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Accord: Choose Model'), placeHolder: vscode.l10n.t('Every model Accord can use, by provider'), matchOnDescription: true });
    if (pick?.value) await this.choose(pick.value);
  }

  private async useVscodeModels(): Promise<void> {
    const models = await listLanguageModels().catch(() => []);
    if (models.length === 0) {
      const find = vscode.l10n.t('Find GitHub Copilot');
      const choice = await vscode.window.showInformationMessage(
        vscode.l10n.t('VS Code has no language models yet. Install GitHub Copilot Chat and sign in to GitHub; Accord then lists its models.'),
        find,
      );
      if (choice === find) await vscode.commands.executeCommand('workbench.extensions.search', '@id:GitHub.copilot-chat');
      return;
    }
    // GitHub Copilot's models first, then other providers'.
    const sorted = [...models].sort((a, b) => Number(b.vendor === 'copilot') - Number(a.vendor === 'copilot'));
    const pick = await vscode.window.showQuickPick(
      sorted.map((m) => ({ label: m.name, description: vendorLabel(m.vendor), detail: m.maxInputTokens ? vscode.l10n.t('{0}k tokens of context', Math.round(m.maxInputTokens / 1000)) : undefined, value: `vscode-lm:${m.vendor}/${m.id}` })),
      { title: vscode.l10n.t('Accord: Use a model from VS Code'), placeHolder: vscode.l10n.t('VS Code asks you once before Accord may use it') },
    );
    if (pick) await this.choose(pick.value);
  }

  private async useLocalModel(baseUrl: string | undefined): Promise<void> {
    const servers = await this.localServers(true);
    const server = servers.find((s) => s.baseUrl === baseUrl) ?? servers[0];
    if (!server) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No local model server answered (Ollama on 11434, LM Studio on 1234, llama.cpp on 8080). Start one, then try again.'));
      await this.refresh();
      return;
    }
    const pick = server.models.length === 1
      ? server.models[0]
      : (await vscode.window.showQuickPick(server.models, { title: vscode.l10n.t('Accord: Use a model from {0}', localServerName(server.baseUrl)), placeHolder: server.baseUrl }));
    if (pick) await this.choose(`openai-compatible:${server.baseUrl}#${pick}`);
  }

  private async choose(value: string): Promise<void> {
    await vscode.workspace.getConfiguration('accord').update('model', value, vscode.ConfigurationTarget.Global);
    await this.refresh();
  }

  private localServers(probeAgain: boolean): Promise<LocalServer[]> {
    if (probeAgain || !this.local || Date.now() - this.local.at > LOCAL_PROBE_TTL_MS) {
      this.local = { at: Date.now(), servers: findLocalServers(process.env).catch(() => []) };
    }
    return this.local.servers;
  }
}
