// "Accord: Add Agent…": lists the catalogue, says which agents are already on
// this machine, installs an npm one when the person agrees (in a terminal they
// can watch), and writes its `accord.agents` entry.
import * as vscode from 'vscode';
import { agentChoices, type AgentChoice } from './agentChoices';
import { agentEntry, CATALOGUE, installCommand, type CatalogueAgent } from './catalogue';
import { detect, type DetectEnv } from './detect';
import { runVisibly } from './visibleCommand';
import { configuredAgents, defaultAgentName } from '../settings/settings';
import { agentLiteral, forIconLabel, forNotification } from '../text/agentText';

type ChoiceItem = vscode.QuickPickItem & { choice: AgentChoice };

export interface AddAgentDeps {
  log: (message: string) => void;
  /** The environment detection and the install read (tests point PATH and the npm cache at temp folders). */
  env?: () => DetectEnv & NodeJS.ProcessEnv;
  /** The quick pick (tests choose without clicking). */
  pick?: (items: ChoiceItem[], options: vscode.QuickPickOptions) => Thenable<ChoiceItem | undefined>;
  /** The consent to install (tests answer without the modal). */
  confirm?: (message: string, detail: string) => Thenable<boolean>;
}

const askConsent = async (message: string, detail: string) => (await vscode.window.showInformationMessage(message, { modal: true, detail }, vscode.l10n.t('Install'))) === vscode.l10n.t('Install');

function describe(choice: AgentChoice): string {
  switch (choice.action) {
    case 'add':
      return choice.via === 'path' ? vscode.l10n.t('installed: {0}', agentLiteral(choice.where, 120)) : vscode.l10n.t('in the npx cache');
    case 'install':
      return vscode.l10n.t('not installed; install with npm ({0})', choice.agent.npm ?? '');
    case 'manual':
      return vscode.l10n.t('not installed; opens its install page');
    case 'configured':
      return vscode.l10n.t('already added as {0}', forIconLabel(choice.as, 60));
  }
}

/** Reads `accord.agents` as it is stored, so entries Accord does not understand are kept as they were. */
function storedEntries(): unknown[] {
  const raw = vscode.workspace.getConfiguration('accord').inspect<unknown>('agents')?.globalValue;
  return Array.isArray(raw) ? [...raw] : [];
}

async function writeEntry(agent: CatalogueAgent, via: 'path' | 'npx'): Promise<string> {
  const entry = agentEntry(agent, via);
  await vscode.workspace.getConfiguration('accord').update('agents', [...storedEntries(), entry], vscode.ConfigurationTarget.Global);
  return entry.name;
}

async function install(agent: CatalogueAgent, deps: AddAgentDeps, env: NodeJS.ProcessEnv): Promise<boolean> {
  const argv = installCommand(agent);
  if (!argv) return false;
  const line = [argv.command, ...argv.args].join(' ');
  const consent = await (deps.confirm ?? askConsent)(
    `Install ${agent.name}?`,
    `Accord will run "${line}" in a terminal you can watch. It installs the package from the npm registry for your user account.`,
  );
  if (!consent) return false;
  deps.log(`installing ${agent.name}: ${line}`);
  const run = runVisibly(vscode.l10n.t('Install {0}', agent.name), argv.command, argv.args, env);
  const code = await run.done;
  if (code !== 0) {
    void vscode.window.showErrorMessage(
      code === null
        ? vscode.l10n.t('Accord: installing {0} failed. The terminal shows why.', agent.name)
        : vscode.l10n.t('Accord: installing {0} failed (npm exited with code {1}). The terminal shows why.', agent.name, code),
    );
    return false;
  }
  return true;
}

/** Runs the command; resolves to the name of the agent added (undefined when nothing was added). */
export async function addAgent(deps: AddAgentDeps): Promise<string | undefined> {
  const env = deps.env?.() ?? process.env;
  const choices = agentChoices(CATALOGUE, (a) => detect(a, env), configuredAgents());
  const picked = await (deps.pick ?? ((items, options) => vscode.window.showQuickPick(items, options)))(
    choices.map((choice) => ({ label: choice.agent.name, description: describe(choice), detail: choice.agent.auth, choice })),
    { title: vscode.l10n.t('Accord: add an ACP agent'), placeHolder: vscode.l10n.t('Agents Accord knows how to start'), matchOnDescription: true },
  );
  if (!picked) return undefined;
  const { choice } = picked;
  const agent = choice.agent;
  let via: 'path' | 'npx';
  switch (choice.action) {
    case 'configured':
      void vscode.window.showInformationMessage(vscode.l10n.t('Accord: {0} is already in "accord.agents" as {1}.', agent.name, forNotification(choice.as, 80)));
      return undefined;
    case 'manual':
      void vscode.env.openExternal(vscode.Uri.parse(choice.page));
      return undefined;
    case 'add':
      via = choice.via;
      break;
    case 'install': {
      if (!(await install(agent, deps, env))) return undefined;
      const after = detect(agent, env);
      // npm may install into a folder not on VS Code's PATH (a version manager, a custom prefix): npx still finds it.
      via = after.state === 'path' ? 'path' : 'npx';
      break;
    }
  }
  const name = await writeEntry(agent, via);
  deps.log(`added agent ${name} (${via})`);
  const newSession = vscode.l10n.t('New Session');
  const makeDefault = vscode.l10n.t('Make Default');
  const actions = defaultAgentName() === name ? [newSession] : [newSession, makeDefault];
  void vscode.window.showInformationMessage(vscode.l10n.t('Accord: added {0}. {1}', name, agent.auth), ...actions).then(async (action) => {
    if (action === makeDefault) await vscode.workspace.getConfiguration('accord').update('defaultAgent', name, vscode.ConfigurationTarget.Global);
    if (action === newSession) await vscode.commands.executeCommand('accord.newSession');
  });
  return name;
}
