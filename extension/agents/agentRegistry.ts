// The agents this window knows: the bundled one and each `accord.agents`
// entry, created on first use. Their status, exits and connections come out
// as the registry's own events, so the wiring listens in one place.
import * as vscode from 'vscode';
import type { AgentStatus } from '../../webview/protocol';
import type { ClientServices } from '../client/clientHandlers';
import type { TrafficLog } from '../traffic/trafficLog';
import { BUNDLED_AGENT_NAME, configuredAgents, defaultAgentName } from '../settings/settings';
import { forIconLabel } from '../text/agentText';
import { AgentHost } from './agentHost';

export interface AgentRegistryDeps {
  extensionUri: vscode.Uri;
  services: ClientServices;
  traffic: TrafficLog;
  apiKeyEnv: () => Promise<Record<string, string>>;
  workspaceRoot: () => string | undefined;
  log: (message: string) => void;
}

export class AgentRegistry implements vscode.Disposable {
  private readonly hosts = new Map<string, AgentHost>();
  /** Which agent listed each session, so opening one from the panel asks the right agent. */
  private readonly sessionHosts = new Map<string, AgentHost>();
  private readonly subscriptions = new Map<AgentHost, vscode.Disposable[]>();
  private readonly statusEmitter = new vscode.EventEmitter<{ host: AgentHost; status: AgentStatus }>();
  private readonly exitEmitter = new vscode.EventEmitter<{ host: AgentHost; message: string }>();
  private readonly connectEmitter = new vscode.EventEmitter<{ host: AgentHost; restarted: boolean }>();
  readonly onDidChangeStatus = this.statusEmitter.event;
  /** An agent exited on its own; its in-flight work is gone. */
  readonly onDidExit = this.exitEmitter.event;
  readonly onDidConnect = this.connectEmitter.event;
  readonly bundled: AgentHost;

  constructor(private readonly deps: AgentRegistryDeps) {
    this.bundled = this.host(BUNDLED_AGENT_NAME)!;
  }

  /** The host for an agent by name (created on first use); undefined if no such agent is configured. */
  host(name: string): AgentHost | undefined {
    const existing = this.hosts.get(name);
    if (existing) return existing;
    const definition = name === BUNDLED_AGENT_NAME ? 'bundled' : configuredAgents((p) => this.deps.log(p)).find((a) => a.name === name);
    if (!definition) return undefined;
    const { extensionUri, services, traffic, apiKeyEnv, workspaceRoot } = this.deps;
    const created = new AgentHost(definition, { extensionUri, services, traffic, apiKeyEnv, workspaceRoot });
    this.hosts.set(name, created);
    this.subscriptions.set(created, [
      created.onDidChangeStatus((status) => this.statusEmitter.fire({ host: created, status })),
      created.onDidExit(({ message }) => this.exitEmitter.fire({ host: created, message })),
      created.onDidConnect(({ restarted }) => this.connectEmitter.fire({ host: created, restarted })),
    ]);
    return created;
  }

  /** A running host by name, without creating one. */
  running(name: string): AgentHost | undefined {
    return this.hosts.get(name);
  }

  /** The `accord.defaultAgent` agent, else the bundled one. */
  defaultHost(): AgentHost {
    const name = defaultAgentName();
    const found = this.host(name);
    if (!found) this.deps.log(`"accord.defaultAgent" names "${name}", which is not configured; using ${BUNDLED_AGENT_NAME}.`);
    return found ?? this.bundled;
  }

  hostFor(sessionId: string): AgentHost | undefined {
    return this.sessionHosts.get(sessionId);
  }

  noteSessions(host: AgentHost, sessionIds: Iterable<string>): void {
    for (const id of sessionIds) this.sessionHosts.set(id, host);
  }

  /** Asks which agent to use when more than the bundled one is configured. */
  async pick(): Promise<AgentHost | undefined> {
    const names = [BUNDLED_AGENT_NAME, ...configuredAgents((p) => void vscode.window.showWarningMessage(p)).map((a) => a.name)];
    if (names.length === 1) return this.bundled;
    const items = names.map((n) => ({ label: forIconLabel(n, 120), name: n, description: n === defaultAgentName() ? vscode.l10n.t('default') : '' }));
    const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Accord: which agent for this session?') });
    return pick ? this.host(pick.name) : undefined;
  }

  /** Agents whose definition may have changed start afresh on next use; the bundled one and `keep` keep running. */
  forgetAllBut(keep: AgentHost | undefined): void {
    for (const [name, h] of this.hosts) {
      if (h === this.bundled || h === keep) continue;
      this.hosts.delete(name);
      for (const s of this.subscriptions.get(h) ?? []) s.dispose();
      this.subscriptions.delete(h);
      h.dispose();
    }
  }

  dispose(): void {
    for (const h of this.hosts.values()) h.dispose();
    for (const list of this.subscriptions.values()) for (const s of list) s.dispose();
    this.hosts.clear();
    this.statusEmitter.dispose();
    this.exitEmitter.dispose();
    this.connectEmitter.dispose();
  }
}
