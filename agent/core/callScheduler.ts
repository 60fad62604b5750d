// Which tool calls of one model response may run at the same time. Each call
// claims resources: the paths it touches (shared to read, exclusive to
// write) and the workspace as a whole (shared by file tools, exclusive for a
// command, which can touch anything). A call waits for every earlier call of
// the response it conflicts with, so conflicting calls keep the model's order
// and nothing waits on a later call: no deadlock, no starvation.
import path from 'node:path';
import type { ToolKind } from '../tools/tool';

export interface Claim {
  key: string;
  exclusive: boolean;
}

const readKinds = new Set<ToolKind>(['read', 'search', 'think', 'fetch']);
const writeKinds = new Set<ToolKind>(['edit', 'delete', 'move']);

/** What a call of `kind` touching `paths` claims. Unknown kinds (MCP tools) claim everything. */
export function claimsFor(kind: ToolKind | undefined, paths: readonly string[]): Claim[] {
  const tree = (exclusive: boolean): Claim => ({ key: 'workspace', exclusive });
  if (kind && readKinds.has(kind)) return [tree(false), ...paths.map((p) => ({ key: `path:${path.resolve(p)}`, exclusive: false }))];
  // A write without a location cannot say what it touches: it takes the whole tree.
  if (kind && writeKinds.has(kind)) return paths.length ? [tree(false), ...paths.map((p) => ({ key: `path:${path.resolve(p)}`, exclusive: true }))] : [tree(true)];
  return [tree(true)];
}

/** Two claims overlap on the same key, or on paths where one contains the other (a search of a folder, a write inside it). */
function overlaps(x: string, y: string): boolean {
  if (x === y) return true;
  if (!x.startsWith('path:') || !y.startsWith('path:')) return false;
  const [short, long] = x.length < y.length ? [x, y] : [y, x];
  return long.startsWith(short.endsWith(path.sep) ? short : short + path.sep);
}

export function conflicts(a: readonly Claim[], b: readonly Claim[]): boolean {
  return a.some((x) => b.some((y) => (x.exclusive || y.exclusive) && overlaps(x.key, y.key)));
}

/**
 * One response's calls, in the model's order. `admit(index, claims)` resolves
 * when every earlier conflicting call has finished; `done(index)` marks the
 * call finished (call it exactly once, also on failure). A call that never
 * gets to `admit` (bad input) must still call `admit` with no claims or `done`.
 */
export class CallScheduler {
  private readonly claims: Array<readonly Claim[] | undefined>;
  private readonly finished: Array<{ promise: Promise<void>; resolve: () => void }>;
  private readonly declared: Array<{ promise: Promise<void>; resolve: () => void }>;

  constructor(count: number) {
    this.claims = new Array(count).fill(undefined);
    this.finished = Array.from({ length: count }, deferred);
    this.declared = Array.from({ length: count }, deferred);
  }

  async admit(index: number, claims: readonly Claim[]): Promise<void> {
    this.claims[index] = claims;
    this.declared[index]!.resolve();
    for (let earlier = 0; earlier < index; earlier++) {
      // An earlier call's claims are known once it is announced; it is announced before this one.
      await this.declared[earlier]!.promise;
      if (conflicts(this.claims[earlier] ?? [], claims)) await this.finished[earlier]!.promise;
    }
  }

  done(index: number): void {
    this.declared[index]!.resolve();
    this.finished[index]!.resolve();
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
