// `session/request_permission` for one session. Only allow-once and
// reject-once are offered; a failed or withdrawn request counts as a refusal.
import { methods, type AgentContext, type RequestPermissionRequest } from '@agentclientprotocol/sdk/unstable';
import type { PermissionAnswer, PermissionAsker } from '../core/gate';

const options = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' as const },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' as const },
];

export function permissionAsker(client: AgentContext, sessionId: string): PermissionAsker {
  return {
    async ask(toolCall, signal): Promise<PermissionAnswer> {
      if (signal.aborted) return 'cancelled';
      const withdrawn = new Promise<PermissionAnswer>((resolve) => signal.addEventListener('abort', () => resolve('cancelled'), { once: true }));
      const params: RequestPermissionRequest = { sessionId, toolCall, options };
      const asked = client
        .request(methods.client.session.requestPermission, params, { cancellationSignal: signal })
        .then((response): PermissionAnswer => {
          if (response.outcome.outcome === 'cancelled') return 'cancelled';
          return response.outcome.optionId === 'allow_once' ? 'allow' : 'reject';
        })
        .catch((): PermissionAnswer => (signal.aborted ? 'cancelled' : 'reject'));
      return Promise.race([asked, withdrawn]);
    },
  };
}
