// The notification when a turn ends, per `accord.notifications`.
import * as vscode from 'vscode';
import { notificationMode } from '../settings/settings';
import { turnEndedText } from './turnEndedText';

export function notifyTurnEnded(agentName: string, stopReason: string, error?: string): void {
  const mode = notificationMode();
  if (mode === 'never' || (mode === 'whenUnfocused' && vscode.window.state.focused)) return;
  const show = vscode.l10n.t('Show Chat');
  void vscode.window.showInformationMessage(turnEndedText(agentName, stopReason, error), show).then((c) => c && vscode.commands.executeCommand('accord.chat.focus'));
}
