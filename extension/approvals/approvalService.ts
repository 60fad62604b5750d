// `session/request_permission` → a native VS Code dialog that shows the whole
// effect and answers once. A modal when the person is looking at Accord, a
// notification with buttons otherwise. Dismissal, closing, the timeout, a
// cancelled turn or the agent withdrawing the request never allow.
// Pending approvals can be answered from the dialog, the panel or the status
// bar; the first answer wins and later ones are ignored.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RequestPermissionRequest, RequestPermissionResponse, ToolCallUpdate } from '@agentclientprotocol/sdk/unstable';
import { allowAnywayLabel, answerCancelled, answerDeclined, answerSelected, onceChoices, type OnceButton, type OnceChoices } from './onceOptions';
import { summarizeEffect, type EffectFacts, type EffectSummary } from './effectSummary';
import type { DiffPreview } from './diffPreview';
import { approvalPrompt } from './approvalPrompt';
import { FullRequestDocuments } from './fullRequest';
import { forLog } from '../text/agentText';
import { durableRequestId } from './durableAnswers';

/**
 * Requests of one agent waiting for the person at once. An agent asks about one call at a time
 * (a few with parallel tool calls); past this, a request is declined at once, never shown.
 */
export const MAX_PENDING_PER_AGENT = 16;

export interface PendingApproval {
  requestId: string;
  sessionId: string;
  agentName: string;
  params: RequestPermissionRequest;
  choices: OnceChoices;
  summary: EffectSummary;
  /**
   * The agent's own id for an approval that outlives the turn (--durable-requests):
   * it never times out, closing the dialog leaves it pending, and the answer
   * goes back on the next prompt (durableAnswers.ts).
   */
  durable?: string;
  /** How it was settled, once it is. */
  outcome?: { how: 'selected' | 'declined' | 'cancelled' | 'timeout'; optionId?: string };
}

export interface ApprovalServiceOptions {
  diffs: DiffPreview;
  /** Minutes before an unanswered approval is declined. */
  timeoutMinutes: () => number;
  /** True when the chat panel is visible; with window focus, approvals use a modal. */
  panelVisible: () => boolean;
  log: (message: string) => void;
  /** Fills in a request's tool call from what the session announced earlier (requests often carry only the id). */
  completeToolCall?: (sessionId: string, toolCall: ToolCallUpdate) => ToolCallUpdate;
  /** The call as the session announced it before the request, if it did. */
  announcedToolCall?: (sessionId: string, toolCallId: string) => ToolCallUpdate | undefined;
  /** Takes the review's snapshots for the call before anyone can allow it; returns what could not be kept. */
  prepareReview?: (sessionId: string, toolCall: ToolCallUpdate) => Promise<{ path: string; why: string }[]>;
  /**
   * A file's text as it is now (`null`: absent; undefined: unreadable or not comparable), to compare with
   * the agent's claim. Undefined for an agent that works in its own copy, whose claim is about that copy.
   */
  readCurrent?: (sessionId: string, path: string) => Promise<string | null | undefined>;
  /** Sends the answer to a durable approval on the session's next prompt. Without it durable requests are treated like any other. */
  answerDurable?: (approval: PendingApproval, optionId: string) => void;
  /** Whose requests may be durable (the bundled agent's); default none. */
  durableFrom?: (agentName: string) => boolean;
}

export class ApprovalService implements vscode.Disposable {
  private readonly pending = new Map<string, { approval: PendingApproval; settle: (r: RequestPermissionResponse, how: NonNullable<PendingApproval['outcome']>) => void }>();
  private readonly changeEmitter = new vscode.EventEmitter<{ approval: PendingApproval; settled: boolean }>();
  /** Fires when an approval starts waiting and when it is settled. */
  readonly onDidChange = this.changeEmitter.event;

  /** Replaces the timeout setting (milliseconds); only tests set it, since the setting's floor is a minute. */
  timeoutOverrideMs: number | undefined;

  private readonly fullRequests = new FullRequestDocuments();

  constructor(private readonly options: ApprovalServiceOptions) {}

  get pendingApprovals(): PendingApproval[] {
    return [...this.pending.values()].map((p) => p.approval);
  }

  /** Handles one permission request; resolves with the once-only answer. */
  async request(params: RequestPermissionRequest, agentName: string, signal?: AbortSignal): Promise<RequestPermissionResponse> {
    const toolCall = this.options.completeToolCall?.(params.sessionId, params.toolCall) ?? params.toolCall;
    const facts = await this.factsFor(params.sessionId, toolCall);
    const unreviewable = (facts.unreviewable?.length ?? 0) > 0;
    const choices = onceChoices(params.options, unreviewable ? { allowLabel: allowAnywayLabel() } : {});
    // The bundled agent's durable requests (its own, trusted) wait across turns and sessions: not counted.
    const durableRequest = this.options.answerDurable && this.options.durableFrom?.(agentName) ? durableRequestId(params) : undefined;
    if (!durableRequest && this.pendingApprovals.filter((p) => p.agentName === agentName && !p.durable).length >= MAX_PENDING_PER_AGENT) {
      this.options.log(`approval declined unasked: ${forLog(agentName, 80)} already has ${MAX_PENDING_PER_AGENT} requests waiting`);
      return answerDeclined(choices);
    }
    const summary = summarizeEffect(toolCall, vscode.l10n.t('{0} wants to use a tool', agentName), facts);
    const durable = durableRequest;
    const approval: PendingApproval = { requestId: randomUUID(), sessionId: params.sessionId, agentName, params: { ...params, toolCall }, choices, summary, ...(durable ? { durable } : {}) };
    return new Promise((resolve) => {
      const timeoutMs = this.timeoutOverrideMs ?? Math.max(1, this.options.timeoutMinutes()) * 60_000;
      // A durable approval never lapses: the agent keeps it until someone answers.
      const timer = durable ? undefined : setTimeout(() => settle(answerDeclined(choices), { how: 'timeout' }), timeoutMs);
      const onAbort = () => settle(answerCancelled(), { how: 'cancelled' });
      const settle = (response: RequestPermissionResponse, how: NonNullable<PendingApproval['outcome']>) => {
        if (approval.outcome) return;
        approval.outcome = how;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(approval.requestId);
        this.options.log(`approval ${approval.requestId} (${forLog(summary.title, 300)}): ${how.how}${how.optionId ? ` ${how.optionId}` : ''}`);
        resolve(response);
        this.changeEmitter.fire({ approval, settled: true });
      };
      this.pending.set(approval.requestId, { approval, settle });
      signal?.addEventListener('abort', onAbort);
      if (signal?.aborted) return onAbort();
      this.changeEmitter.fire({ approval, settled: false });
      void this.ask(approval);
    });
  }

  /** What the dialog must say beyond the agent's words: the snapshots' failures, the disk's text, an announced folder. */
  private async factsFor(sessionId: string, toolCall: ToolCallUpdate): Promise<EffectFacts> {
    const facts: EffectFacts = { announced: this.options.announcedToolCall?.(sessionId, toolCall.toolCallId) };
    try {
      facts.unreviewable = (await this.options.prepareReview?.(sessionId, toolCall)) ?? [];
    } catch (error) {
      facts.unreviewable = [{ path: '(this call)', why: error instanceof Error ? error.message : String(error) }];
    }
    const readCurrent = this.options.readCurrent;
    if (readCurrent) {
      const current = new Map<string, string | null>();
      for (const block of toolCall.content ?? []) {
        if (block.type !== 'diff' || current.has(block.path)) continue;
        const text = await readCurrent(sessionId, block.path).catch(() => undefined);
        if (text !== undefined) current.set(block.path, text);
      }
      facts.current = current;
    }
    return facts;
  }

  /** An answer from the panel or a re-shown dialog. Returns false if already settled or not a once-only option. */
  answer(requestId: string, optionId: string): boolean {
    const entry = this.pending.get(requestId);
    const button = entry?.approval.choices.buttons.find((b) => b.optionId === optionId);
    if (!entry || !button) return false;
    const { approval } = entry;
    if (approval.durable && this.options.answerDurable) {
      // The request itself is answered "no answer here"; the choice travels on the next prompt, once.
      entry.settle(answerCancelled(), { how: 'selected', optionId });
      this.options.answerDurable(approval, button.optionId);
      return true;
    }
    entry.settle(answerSelected(button), { how: 'selected', optionId });
    return true;
  }

  /** Declines (reject once, or cancelled when none) — the panel's dismiss. */
  decline(requestId: string): void {
    const entry = this.pending.get(requestId);
    if (!entry) return;
    const reject = entry.approval.choices.buttons.find((b) => b.kind === 'reject_once');
    if (entry.approval.durable && reject) return void this.answer(requestId, reject.optionId);
    entry.settle(answerDeclined(entry.approval.choices), { how: 'declined' });
  }

  /**
   * The turn was cancelled: every approval still pending for the session answers `cancelled`, as ACP requires.
   * A durable approval belongs to no running turn (its turn ended `waiting`): it stays until answered or withdrawn.
   */
  cancelSession(sessionId: string): void {
    for (const { approval, settle } of [...this.pending.values()]) {
      if (approval.sessionId === sessionId && !approval.durable) settle(answerCancelled(), { how: 'cancelled' });
    }
  }

  /** An agent went away (or all of them, without a name): its requests can no longer be answered. */
  cancelAll(agentName?: string): void {
    for (const { approval, settle } of [...this.pending.values()]) {
      if (agentName === undefined || approval.agentName === agentName) settle(answerCancelled(), { how: 'cancelled' });
    }
  }

  /** Shows the dialog again for the oldest pending approval (status bar, command). */
  async showPending(requestId?: string): Promise<void> {
    const approval = requestId ? this.pending.get(requestId)?.approval : this.pendingApprovals[0];
    if (approval) await this.ask(approval, true);
    else void vscode.window.showInformationMessage(vscode.l10n.t('No Accord approval is waiting.'));
  }

  dispose(): void {
    this.cancelAll();
    this.changeEmitter.dispose();
    this.fullRequests.dispose();
  }

  private async ask(approval: PendingApproval, forceModal = false): Promise<void> {
    const { choices, summary } = approval;
    const modal = forceModal || (vscode.window.state.focused && this.options.panelVisible());
    // Reject comes first: VS Code focuses a dialog's first button, so Enter or Space on a dialog that
    // just appeared under someone's typing rejects. No button is the close affordance (that one is
    // never first), so VS Code adds "Cancel", which declines like Escape and closing do.
    const ordered = [...choices.buttons.filter((b) => b.kind === 'reject_once'), ...choices.buttons.filter((b) => b.kind !== 'reject_once')];
    const items: (vscode.MessageItem & { button?: OnceButton; diff?: boolean; full?: boolean })[] = ordered.map((button) => ({ title: button.label, button }));
    if (summary.files.length > 0) items.push({ title: vscode.l10n.t('Show Diff'), diff: true });
    const prompt = approvalPrompt({ agentName: approval.agentName, title: summary.title, detail: summary.detail, explanation: choices.explanation });
    if (prompt.truncated) items.push({ title: vscode.l10n.t('Show Full Request'), full: true });
    let useModal = modal;
    while (!approval.outcome) {
      let picked: (typeof items)[number] | undefined;
      try {
        picked = useModal
          ? await vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, ...items)
          : await vscode.window.showWarningMessage(prompt.notification, ...items);
      } catch (error) {
        // Some hosts refuse modal dialogs (VS Code does while running extension tests): ask with a notification instead.
        if (!useModal) return approval.durable ? undefined : this.decline(approval.requestId);
        this.options.log(`a modal approval dialog was refused (${error instanceof Error ? error.message : String(error)}); using a notification`);
        useModal = false;
        continue;
      }
      if (approval.outcome) {
        if (picked) void vscode.window.showInformationMessage(vscode.l10n.t('That approval was already answered.'));
        return;
      }
      if (picked?.diff) {
        for (const file of summary.files) await this.options.diffs.show(file);
        continue; // the dialog closed to show the diff; ask again
      }
      if (picked?.full) {
        await this.fullRequests.show(approval);
        continue;
      }
      if (picked?.button) return void this.answer(approval.requestId, picked.button.optionId);
      // Dismissed or closed: never allow. A durable approval stays pending (status bar, panel) for a considered answer.
      if (approval.durable) return;
      return this.decline(approval.requestId);
    }
  }
}

/** One line for status bar tooltips and notifications. */
export function approvalHeadline(approval: PendingApproval): string {
  const file = approval.summary.files[0];
  return file ? `${approval.summary.title} (${path.basename(file.path)})` : approval.summary.title;
}
