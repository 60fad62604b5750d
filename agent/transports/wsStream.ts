// ACP over one WebSocket: one JSON-RPC message per text frame. Binary
// frames and frames that are not a JSON object are dropped (a peer cannot
// crash the connection with them).
import type { Stream } from '@agentclientprotocol/sdk/unstable';
import type { WebSocket } from 'ws';

type Message = Stream extends { readable: ReadableStream<infer M> } ? M : never;

export function webSocketStream(socket: WebSocket): Stream {
  const readable = new ReadableStream<Message>({
    start(controller) {
      socket.on('message', (data, isBinary) => {
        if (isBinary) return;
        try {
          const message = JSON.parse(data.toString()) as unknown;
          if (message !== null && typeof message === 'object') controller.enqueue(message as Message);
        } catch {
          // not JSON: ignored, as ndjson streams skip unparsable lines
        }
      });
      socket.on('close', () => {
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
      socket.on('error', () => undefined);
    },
  });
  const writable = new WritableStream<Message>({
    write(message) {
      if (socket.readyState !== socket.OPEN) throw new Error('the WebSocket is closed');
      socket.send(JSON.stringify(message));
    },
    close() {
      socket.close();
    },
    abort() {
      socket.terminate();
    },
  });
  return { readable, writable };
}
