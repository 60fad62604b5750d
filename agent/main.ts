// `accord` CLI. `accord acp` serves ACP v1 on stdio; stdout carries protocol
// only, so every log goes to stderr.
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';

declare const ACCORD_VERSION: string;

function serveAcp(): void {
  const app = agent({ name: 'accord' }).onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {},
    agentInfo: { name: 'accord', title: 'Accord', version: ACCORD_VERSION },
    authMethods: [],
  }));
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  void connection.closed.then(() => process.exit(0));
}

const command = process.argv[2];
if (command === 'acp') {
  serveAcp();
} else {
  process.stderr.write(`usage: accord acp\n`);
  process.exit(command ? 2 : 0);
}
