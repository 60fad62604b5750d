// `_accord/prompt_started`: tells the client whose prompt asked for it (a
// token in the prompt's `_meta`) that the prompt entered the conversation,
// and at which log offset. The v2 facade needs it to give the prompt's
// `user_message` the id a replay derives from that offset; a v1 client may
// use it as its resume cursor. The caller sends it through the session's
// update queue: after every update recorded before the prompt (a client that
// has the prompt has everything before its offset, as a resume cursor needs),
// before every update of its turn.
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import { promptStartedToken, type AccordNotificationMethod } from '../../protocol/accordMethods';

export const PROMPT_STARTED_METHOD: AccordNotificationMethod = '_accord/prompt_started';

export function notifyPromptStarted(client: AgentContext, sessionId: string, meta: unknown, offset: number | undefined): void {
  const token = promptStartedToken(meta);
  if (token === undefined) return;
  void client.notify(PROMPT_STARTED_METHOD, { sessionId, token, ...(offset !== undefined ? { offset } : {}) }).catch(() => undefined);
}
