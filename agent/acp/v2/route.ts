// The SDK's version router, with the v2 facade behind it. Loaded only when a
// connection does not open with a v1 initialize (acp/versions.ts): the router
// and the v2 SDK build the v2 zod schemas at load, which a v1 client never
// uses (~20 ms of CPU on a cold `acp --no-daemon` start, issue 17).
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable';
import type { AgentApp, Stream } from '@agentclientprotocol/sdk/unstable';
import { v2AgentFor } from './facade';

export function routeVersions(app: AgentApp, stream: Stream): { closed: Promise<void> } {
  return v2.agentProtocolRouter().withV1(app).withV2(v2AgentFor(app)).connect(stream);
}
