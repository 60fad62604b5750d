// One configured agent (the bundled one or a third-party ACP agent): spawns
// it, serves the client capabilities, and restarts it when it exits on its
// own — at most 4 times in 3 minutes, then it stays stopped until a person
// presses "Restart".
import * as vscode from 'vscode';
import type { ClientConnection, InitializeResponse } from '@agentclientprotocol/sdk/unstable';
import { AgentProcess, type AgentCommand, type StartFailure } from './agentProcess';
import { bundledAgentSpawnCommand, sameCommand } from './agentCommand';
import type { EarlyAgent } from '../startup/earlyAgent';
import { CLIENT_CAPABILITIES, registerClientHandlers, type ClientServices } from '../client/clientHandlers';
import type { TrafficLog } from '../traffic/trafficLog';
import type { AgentStatus } from '../../webview/protocol';
import { BUNDLED_AGENT_NAME, type AgentDefinition } from '../settings/settings';
import { RestartPolicy } from './restartPolicy';
import { agentEnvironment } from './agentEnv';
import { quotedForNotification } from '../text/agentText';
import { startupMark } from '../startup/startupMarks';
import { languageModelsMeta, registerLanguageModelHandlers } from '../languageModels/lmHandlers';

export interface AgentHostDeps {
  extensionUri: vscode.Uri;
  services: ClientServices;
  traffic: TrafficLog;
  /** Provider keys for the bundled agent's environment. */
  apiKeyEnv: () => Promise<Record<string, string>>;
  workspaceRoot: () => string | undefined;
}

export class AgentHost implements vscode.Disposable {
  private process: AgentProcess | undefined;
  private readonly policy = new RestartPolicy();
  private stoppingOnPurpose = false;
  private readonly log: vscode.LogOutputChannel;
  private readonly statusEmitter = new vscode.EventEmitter<AgentStatus>();
  private readonly exitEmitter = new vscode.EventEmitter<{ message: string }>();
  private readonly connectEmitter = new vscode.EventEmitter<{ restarted: boolean }>();
  /** Status changes (including 'restarting'). */
  readonly onDidChangeStatus = this.statusEmitter.event;
  /** The agent exited on its own; in-flight work is gone. */
  readonly onDidExit = this.exitEmitter.event;
  /** Connected (first start or after a restart). */
  readonly onDidConnect = this.connectEmitter.event;
  private statusValue: AgentStatus = { state: 'stopped' };
  private startFailureValue: StartFailure | undefined;
  /** Tests shorten the initialize limit (the real one is long enough for npx). */
  initializeTimeoutMs: number | undefined;
  private connectedOnce = false;
  private startPromise: Promise<void> | undefined;
  /** The bundled agent's process extension.ts started early, until the first start adopts or stops it. */
  private early: EarlyAgent | undefined;
  private started = false;
  private firstAdopted = false;

  constructor(readonly definition: AgentDefinition | 'bundled', private readonly deps: AgentHostDeps) {
    this.log = vscode.window.createOutputChannel(`Accord Agent: ${this.name}`, { log: true });
  }

  get name(): string {
    return this.definition === 'bundled' ? BUNDLED_AGENT_NAME : this.definition.name;
  }

  get status(): AgentStatus {
    return this.statusValue;
  }

  get connection(): ClientConnection | undefined {
    return this.process?.status.state === 'connected' ? this.process.connection : undefined;
  }

  /** Why the last start failed (cleared when it connects). */
  get startFailure(): StartFailure | undefined {
    return this.startFailureValue;
  }

  get info(): InitializeResponse | undefined {
    return this.process?.agentInfo;
  }

  /** Same as `info` (the name AgentProcess uses). */
  get agentInfo(): InitializeResponse | undefined {
    return this.info;
  }

  /** The first process of this agent was the one extension.ts started while the extension loaded (for tests). */
  get firstStartedEarly(): boolean {
    return this.firstAdopted;
  }

  showLog(): void {
    this.log.show(true);
  }

  /** The process extension.ts started for this (bundled) agent: the next start uses it if its command is still the one. */
  adoptEarly(early: EarlyAgent): void {
    this.early?.child.kill();
    this.early = early;
  }

  /** Starts the agent if needed and resolves once it is connected (or failed). */
  ensureStarted(): Promise<void> {
    if (this.connection) return Promise.resolve();
    if (!vscode.workspace.isTrusted) {
      this.setStatus({ state: 'untrusted', message: 'This workspace is restricted, so Accord does not start agents. Trust the workspace to use them.' });
      return Promise.resolve();
    }
    if (!this.startPromise) {
      const starting = this.spawn().finally(() => {
        if (this.startPromise === starting) this.startPromise = undefined;
      });
      this.startPromise = starting;
    }
    return this.startPromise;
  }

  /** A person asked for a restart: the restart budget starts over. */
  async restart(): Promise<void> {
    this.policy.reset();
    this.stopProcess();
    this.startPromise = undefined; // a start still in progress was for the process just stopped
    await this.ensureStarted();
  }

  dispose(): void {
    this.stopProcess();
    this.log.dispose();
    this.statusEmitter.dispose();
    this.exitEmitter.dispose();
    this.connectEmitter.dispose();
  }

  private async spawn(): Promise<void> {
    startupMark('agent start');
    const command = await this.command();
    startupMark('agent command ready');
    const early = this.early;
    this.early = undefined;
    // Started with another command (a setting or key changed meanwhile): not this agent any more.
    if (early && !sameCommand(early.command, command)) early.child.kill();
    const adopt = early && sameCommand(early.command, command) ? early : undefined;
    if (!this.started) this.firstAdopted = adopt !== undefined;
    this.started = true;
    const agentProcess = new AgentProcess({
      agent: command,
      adopt,
      log: this.log,
      configureClient: (app) => {
        const served = registerClientHandlers(app, this.name, this.deps.services);
        // Only the bundled agent may use the person's VS Code models (their Copilot quota): third-party agents get -32601.
        return this.definition === 'bundled' ? registerLanguageModelHandlers(served, (m) => this.log.warn(m)) : served;
      },
      clientCapabilities: this.definition === 'bundled' ? { ...CLIENT_CAPABILITIES, _meta: { ...CLIENT_CAPABILITIES._meta, ...languageModelsMeta() } } : CLIENT_CAPABILITIES,
      tapStream: (stream) => this.deps.traffic.tap(stream, this.name),
      initializeTimeoutMs: this.initializeTimeoutMs,
    });
    this.process = agentProcess;
    this.stoppingOnPurpose = false;
    agentProcess.onDidChangeStatus((status) => this.setStatus(status));
    agentProcess.onDidExit(({ code, signal }) => this.exited(agentProcess, code, signal));
    await agentProcess.start();
    this.startFailureValue = agentProcess.failure;
    if (agentProcess.status.state === 'connected') {
      const restarted = this.connectedOnce;
      this.connectedOnce = true;
      this.connectEmitter.fire({ restarted });
    }
  }

  private exited(agentProcess: AgentProcess, code: number | null, signal: string | null): void {
    if (this.process !== agentProcess) return;
    setTimeout(() => agentProcess.dispose(), 0); // not from inside its own exit event
    this.process = undefined;
    if (this.stoppingOnPurpose) return;
    // It never answered initialize: start() said why, and starting it again would fail the same way.
    if (!agentProcess.everConnected) return;
    const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
    this.exitEmitter.fire({ message: `${this.name} ${how}.` });
    if (this.policy.tryRestart(Date.now())) {
      this.log.warn(`${this.name} ${how}; restarting (${this.policy.recentRestarts} of 4 in 3 minutes)`);
      this.setStatus({ state: 'restarting', agentName: this.name, message: `${this.name} ${how}; restarting…` });
      void this.ensureStarted();
      return;
    }
    const message = `${this.name} ${how} and was restarted 4 times in 3 minutes, so Accord stopped restarting it. See its log for why.`;
    this.setStatus({ state: 'error', agentName: this.name, message });
    void vscode.window.showErrorMessage(vscode.l10n.t('Accord: the agent {0} {1} and was restarted 4 times in 3 minutes, so Accord stopped restarting it. See its log for why.', quotedForNotification(this.name, 80), how), vscode.l10n.t('Restart'), vscode.l10n.t('Show Log')).then((choice) => {
      if (choice === vscode.l10n.t('Restart')) void this.restart();
      if (choice === vscode.l10n.t('Show Log')) this.showLog();
    });
  }

  private stopProcess(): void {
    this.early?.child.kill();
    this.early = undefined;
    this.stoppingOnPurpose = true;
    this.process?.stop();
    this.process?.dispose();
    this.process = undefined;
  }

  private async command(): Promise<AgentCommand> {
    const cwd = this.deps.workspaceRoot();
    if (this.definition === 'bundled') return bundledAgentSpawnCommand(this.deps.extensionUri, this.deps.apiKeyEnv, cwd);
    // Third-party agents get the minimal environment (or the host's, opted in) and their own env, never Accord's stored keys.
    const env = agentEnvironment({ host: process.env, kind: 'configured', inheritEnv: this.definition.inheritEnv, own: this.definition.env });
    return { command: this.definition.command, args: this.definition.args, env, cwd, group: true };
  }

  private setStatus(status: AgentStatus): void {
    // The configured name wins over what the agent calls itself: an agent cannot take another's (or Accord's) name in the header.
    this.statusValue = { ...status, agentName: this.name };
    this.statusEmitter.fire(this.statusValue);
  }
}
