// Commands that exist only while the extension runs under tests, so UI tests
// can reach the real approval dialog before an agent turn can raise it.
import * as vscode from 'vscode';
import type { RequestPermissionResponse } from '@agentclientprotocol/sdk/unstable';
import { ApprovalService } from './approvals/approvalService';
import { DiffPreview } from './approvals/diffPreview';

/**
 * approvals: the extension's own ApprovalService when it has one; otherwise a
 * private one (notification style) is made, with the same dialog code.
 */
export function registerTestCommands(context: vscode.ExtensionContext, approvals?: ApprovalService): void {
  void vscode.commands.executeCommand('setContext', 'accord.testMode', true);
  let service = approvals;
  if (!service) {
    const diffs = new DiffPreview();
    service = new ApprovalService({ diffs, timeoutMinutes: () => 10, panelVisible: () => false, log: () => {} });
    context.subscriptions.push(diffs, service);
  }
  const approvalService = service;
  context.subscriptions.push(
    // Raises a real approval for a command the agent "wants" to run; resolves with the ACP answer.
    vscode.commands.registerCommand(
      'accord.test.raiseApproval',
      async (title = 'Run echo hello'): Promise<RequestPermissionResponse> => {
        const answer = await approvalService.request(
          {
            sessionId: 'accord-test',
            toolCall: { toolCallId: 'accord-test-call', title: String(title), kind: 'execute', rawInput: { argv: ['echo', 'hello'] } },
            options: [
              { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
              { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
            ],
          },
          'Accord',
        );
        const picked = answer.outcome.outcome === 'selected' ? answer.outcome.optionId : answer.outcome.outcome;
        void vscode.window.showInformationMessage(`Accord approval answer: ${picked}`);
        return answer;
      },
    ),
  );
}
