// What one client may receive of a session's updates. The core emits every
// update in full (and the log records it so); here each is shaped for the
// client's declared capabilities, live and on replay alike: a client never
// receives an update it has not said it can read.
//   - compaction_update / compaction_summary_chunk need
//     clientCapabilities.session.compaction; other clients read a message
//     saying what happened (and see the gauge drop).
//   - subagent_update and a child's own updates (under the child's session id)
//     need clientCapabilities.subagents; other clients see the child as the
//     parent's `task` tool call, whose content shows its progress.
import type { ClientCapabilities, SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { CHILD_PROGRESS_META, type SessionUpdate } from '../core/updates';
import { offersLanguageModels } from '../../protocol/accordMethods';
import { withLogOffset } from '../log/offsets';

export interface ClientFeatures {
  compaction: boolean;
  subagents: boolean;
  /** The client lends its editor's language models (`_accord/lm/*`). */
  languageModels: boolean;
}

export const noFeatures: ClientFeatures = { compaction: false, subagents: false, languageModels: false };

export function featuresOf(capabilities: ClientCapabilities | undefined): ClientFeatures {
  const present = (value: unknown) => value !== undefined && value !== null && value !== false;
  return {
    compaction: present(capabilities?.session?.compaction),
    subagents: present((capabilities as { subagents?: unknown } | undefined)?.subagents),
    languageModels: offersLanguageModels(capabilities?._meta),
  };
}

/** The client's features, learnt at `initialize` on this connection. */
export class ClientFeatureBook {
  current: ClientFeatures = noFeatures;
}

type Notification = { sessionId: string; update: SessionUpdate & { _meta?: Record<string, unknown> } };

/**
 * Zero or more notifications for `update` of `sessionId`, as this client may
 * read them. `offset`: the log record the update is (live) or came from
 * (replay); every notification made of it carries it, so a client resuming
 * after it skips all of them.
 */
export function forClient(sessionId: string, update: SessionUpdate, features: ClientFeatures, offset?: number): SessionNotification[] {
  const shaped = shape(sessionId, update, features);
  const tagged = offset === undefined ? shaped : shaped.map((n) => ({ ...n, update: withLogOffset(n.update, offset) }));
  return tagged as unknown as SessionNotification[];
}

function shape(sessionId: string, update: SessionUpdate, features: ClientFeatures): Notification[] {
  const say = (text: string): Notification[] => [{ sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } }];
  switch (update.sessionUpdate) {
    case 'compaction_update':
      if (features.compaction) return [{ sessionId, update }];
      if (update.status === 'completed') {
        const summary = (update.summary ?? []).map((c) => c.text).join('');
        return say(`\n\n*The conversation was compacted to free context; the model continues from this summary:*\n\n${summary}\n\n`);
      }
      if (update.status === 'failed') return say(`\n\n*Compacting the conversation failed, so the history is kept as it was: ${update.error ?? 'no reason given'}*\n\n`);
      return [];
    case 'compaction_summary_chunk':
      return features.compaction ? [{ sessionId, update }] : [];
    case 'subagent_update':
      return features.subagents ? [{ sessionId, update }] : [];
    case '_accord/child':
      // Nested children are flattened: each one is its own session for the client.
      return features.subagents ? shape(update.sessionId, update.update, features) : [];
    case 'tool_call_update':
      // A child's progress in its task card is for clients that do not show the child itself.
      if (features.subagents && update._meta?.[CHILD_PROGRESS_META] !== undefined) return [];
      return [{ sessionId, update }];
    default:
      return [{ sessionId, update }];
  }
}
