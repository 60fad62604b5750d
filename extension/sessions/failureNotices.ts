// What a person is told when an agent fails or a new session has something
// to say: the panel's failure notice, a notification with escaped text, and
// the setup notices (a broken policy, a failed MCP server) whose agent
// wording only ever appears in a modal's plain-text detail.
import * as vscode from 'vscode';
import type { AgentHost } from '../agents/agentHost';
import type { AgentFailure } from '../../webview/protocol';
import { quotedForNotification } from '../text/agentText';
import { authChoices, isAuthRequired } from '../agents/signIn';
import { sessionNotices } from './sessionNotices';

/** The panel's notice for `error`; a notification too, except for a failed turn or a sign-in the panel offers. */
export function failureNotice(host: AgentHost, stage: AgentFailure['stage'], error: unknown): AgentFailure {
  const message = (error instanceof Error ? error.message : typeof error === 'string' ? error : String((error as { message?: unknown })?.message ?? error)) || 'no reason given';
  // The agent wants a sign-in first: the panel offers the ways it named in initialize.
  const offered = isAuthRequired(error) || stage === 'authenticate' ? authChoices(host.info?.authMethods) : [];
  const failure: AgentFailure = { agentName: host.name.slice(0, 200), stage, message: message.slice(0, 4000), ...(offered.length ? { authMethods: offered } : {}) };
  // A failed turn already says so in the transcript and (per accord.notifications) in the turn-ended notification;
  // a sign-in the panel offers needs no second notification.
  if (stage === 'session/prompt' || offered.length > 0) return failure;
  void vscode.window.showErrorMessage(vscode.l10n.t('Accord: {0} failed ({1}): {2}', quotedForNotification(host.name, 80), stage, quotedForNotification(message, 400)), vscode.l10n.t('Show Log'), vscode.l10n.t('Show ACP Traffic'))
    .then((choice) => {
      if (choice === vscode.l10n.t('Show Log')) host.showLog();
      if (choice === vscode.l10n.t('Show ACP Traffic')) void vscode.commands.executeCommand('accord.showAcpTraffic');
    });
  return failure;
}

/** A broken policy or failed MCP server, said once per new session; the agent's wording only ever in a modal's plain-text detail. */
export function showSetupNotices(meta: unknown): void {
  for (const notice of sessionNotices(meta)) {
    void vscode.window.showWarningMessage(notice.headline, vscode.l10n.t('Details')).then((choice) => {
      if (choice === vscode.l10n.t('Details')) void vscode.window.showWarningMessage(notice.headline, { modal: true, detail: notice.detail });
    });
  }
}

/** The agent did not take the answer to a durable approval. */
export function showAnswerRefused(host: AgentHost, error: unknown): void {
  void vscode.window.showWarningMessage(vscode.l10n.t('Accord: {0} did not take the answer to its approval: {1}', quotedForNotification(host.name, 80), quotedForNotification(error instanceof Error ? error.message : String(error), 400)));
}
