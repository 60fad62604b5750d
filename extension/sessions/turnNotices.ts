// The notification when a turn ends, per `accord.notifications`.
import * as vscode from 'vscode';
import type { StopReason } from '../../webview/protocol';
import { notificationMode } from '../settings/settings';
import { quotedForNotification } from '../text/agentText';

export function notifyTurnEnded(agentName: string, stopReason: StopReason, error?: string): void {
  const mode = notificationMode();
  if (mode === 'never' || (mode === 'whenUnfocused' && vscode.window.state.focused)) return;
  // The error is the agent's text (often its JSON-RPC message): quoted, one line, no live link.
  const text = error
    ? vscode.l10n.t('Accord: the turn with {0} failed: {1}', quotedForNotification(agentName, 80), quotedForNotification(error, 400))
    : stopReason === 'waiting'
      ? vscode.l10n.t('Accord: {0} is waiting for your approval.', quotedForNotification(agentName, 80))
      : vscode.l10n.t('Accord: {0} finished ({1}).', quotedForNotification(agentName, 80), stopReason.replace(/_/g, ' '));
  const show = vscode.l10n.t('Show Chat');
  void vscode.window.showInformationMessage(text, show).then((c) => c && vscode.commands.executeCommand('accord.chat.focus'));
}
