// A command that exists only under tests (like testCommands.ts): raises a
// real approval through the ApprovalService — modal or notification, as a
// person would get it — with an agent that also offers "always" options, and
// reports the answer it would send.
import * as vscode from 'vscode';
import type { ApprovalService } from './approvalService';

export function registerTestApprovalCommand(context: vscode.ExtensionContext, approvals: ApprovalService): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('accord.test.raiseOnceApproval', async () => {
      const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '/';
      const response = await approvals.request(
        {
          sessionId: 'accord-test-session',
          toolCall: { toolCallId: 'accord-test-call', title: 'Run npm test', kind: 'execute', rawInput: { command: ['npm', 'test'], cwd } },
          options: [
            { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
            { optionId: 'once', name: 'Allow', kind: 'allow_once' },
            { optionId: 'no', name: 'Reject', kind: 'reject_once' },
          ],
        },
        'Accord',
      );
      void vscode.window.showInformationMessage(`Accord approval outcome: ${JSON.stringify(response.outcome)}`);
      return response;
    }),
  );
}
