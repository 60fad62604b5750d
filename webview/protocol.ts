// The one message protocol between the extension and the chat webview. Both
// sides validate every message they receive against these schemas.
import { z } from 'zod';

export const PROTOCOL_VERSION = 1;

export const AgentStatus = z.object({
  state: z.enum(['starting', 'connected', 'restarting', 'stopped', 'error', 'untrusted']),
  agentName: z.string().optional(),
  agentVersion: z.string().optional(),
  message: z.string().optional(),
});
export type AgentStatus = z.infer<typeof AgentStatus>;

/** Extension → webview. */
export const HostMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), version: z.number(), epoch: z.number() }),
  z.object({ type: z.literal('agentStatus'), status: AgentStatus }),
]);
export type HostMessage = z.infer<typeof HostMessage>;

/** Webview → extension. */
export const WebviewMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), version: z.number() }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessage>;
