// session/request_permission floods from a hostile agent, through the real
// ApprovalService with a stand-in for the `vscode` module: every request used
// to open its own dialog or notification and wait there, however many came.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { installVscodeStub, StubEventEmitter } from '../../support/vscodeStub';

let dialogs = 0;
const format = (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));
const vscodeStub = {
  EventEmitter: StubEventEmitter,
  l10n: { t: format },
  // Nobody answers: each dialog stays open, as with a person away from the screen.
  window: { state: { focused: false }, showWarningMessage: () => (dialogs++, new Promise(() => undefined)), showInformationMessage: async () => undefined },
  workspace: { registerTextDocumentContentProvider: () => ({ dispose: () => undefined }) },
};
installVscodeStub(vscodeStub);

type Approvals = typeof import('../../../extension/approvals/approvalService');

const request = (i: number) => ({
  sessionId: 's',
  toolCall: { toolCallId: `call-${i}`, title: `Run thing ${i}`, kind: 'execute' as const },
  options: [
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' as const },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' as const },
  ],
});

describe('attack: an agent that floods permission requests', () => {
  let approvals: Approvals;
  before(async () => {
    approvals = await import('../../../extension/approvals/approvalService');
  });

  test('at most MAX_PENDING_PER_AGENT wait for the person; the rest are declined at once, never allowed; another agent still asks', { timeout: 30_000 }, async () => {
    const service = new approvals.ApprovalService({ diffs: {} as never, timeoutMinutes: () => 10, panelVisible: () => false, log: () => undefined });
    const answers = Array.from({ length: 1_000 }, (_, i) => service.request(request(i) as never, 'hostile'));
    const settled = await Promise.all(answers.slice(approvals.MAX_PENDING_PER_AGENT));
    assert.ok(settled.every((a) => a.outcome.outcome === 'selected' && a.outcome.optionId === 'reject'), JSON.stringify(settled[0]));
    assert.equal(service.pendingApprovals.length, approvals.MAX_PENDING_PER_AGENT);
    assert.equal(dialogs, approvals.MAX_PENDING_PER_AGENT);
    void service.request(request(0) as never, 'other');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(service.pendingApprovals.length, approvals.MAX_PENDING_PER_AGENT + 1);
    service.dispose();
  });
});
