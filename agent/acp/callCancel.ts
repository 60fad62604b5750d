// `_accord/tool_call/cancel`: one running tool call stopped at the client's
// request (what the v2 facade maps `tool_call/cancel` onto). Served with or
// without isolated workspaces. The session's turn goes on: the call ends
// failed and the model reads that the person cancelled it.
import { RequestError, type AgentApp } from '@agentclientprotocol/sdk/unstable';
import type { Session } from '../core/session';
import { parser } from './changesMethods';

export const CALL_CANCEL_METHOD = '_accord/tool_call/cancel';

export function registerCallCancel(app: AgentApp, sessionOf: (sessionId: string) => Session): AgentApp {
  return app.onRequest(CALL_CANCEL_METHOD, parser(CALL_CANCEL_METHOD), async ({ params }) => {
    const session = sessionOf(params.sessionId);
    if (!session.cancelCall(params.toolCallId)) {
      throw RequestError.invalidParams({ toolCallId: params.toolCallId }, `No tool call ${params.toolCallId} is running in session ${params.sessionId}: it has ended, or never started.`);
    }
    return {};
  });
}
