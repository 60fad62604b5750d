// A stand-in for the `vscode` module, for unit tests that run real extension
// services under node --test: `installVscodeStub` must run before the service
// is imported (import it dynamically after).
import Module from 'node:module';

/** vscode.EventEmitter's shape: what the services subscribe with and fire. */
export class StubEventEmitter<T> {
  private readonly listeners: Array<(e: T) => void> = [];
  event = (listener: (e: T) => void) => {
    this.listeners.push(listener);
    return { dispose: () => undefined };
  };
  fire(e: T): void {
    for (const l of this.listeners) l(e);
  }
  dispose(): void {}
}

/** Makes `require('vscode')` answer `exports` in this process. */
export function installVscodeStub(exports: object): void {
  const loader = Module as unknown as { _resolveFilename: (...args: unknown[]) => string; _cache: Record<string, unknown> };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (request: unknown, ...rest: unknown[]) {
    return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
  };
  loader._cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports };
}
