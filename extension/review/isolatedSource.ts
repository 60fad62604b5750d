// The bundled agent works in its own isolated workspace, so nothing it does
// reaches the person's tree until accepted. Its changes are read through the
// agent's `_accord/changes/*` ACP extension methods whenever a tool call
// finishes — so a file can be reviewed while the turn still runs — and at turn
// end. Method names and shapes: protocol/accordMethods.ts (spec:
// agent/session/README.md); every answer is checked against them.
import * as path from 'node:path';
import { advertisedMethods, checkResult, type AccordParams, type AccordRequestMethod, type AccordResult } from '../../protocol/accordMethods';
import type { Content } from './fileReview';
import { isFinished, touchedPaths, type ChangeSink, type ToolCallFacts, type TurnAwareSource } from './changeSource';
import { sameContent } from './contentMerge';
import { mapFor } from './innerMap';
// The agent's copy is written by sandboxed commands: read it without following links, bounded.
import { components, readNoFollow, tooLargeText, UnsafePathError } from '../../agent/session/safeFs';
import { protectedPart } from '../../agent/workspace/containment';

/** Calls one ACP extension method on the agent (`connection.agent.request(method, params)`). */
export type AgentExtCall = (method: string, params: Record<string, unknown>) => Promise<unknown>;

/** The methods this source calls; names, params and answers are protocol/accordMethods.ts's. */
export const WORKSPACE_METHODS = {
  status: '_accord/workspace/status',
  listChanges: '_accord/changes/list',
  readFile: '_accord/changes/file',
  discard: '_accord/changes/discard',
} as const satisfies Record<string, AccordRequestMethod>;

/**
 * Whether an agent serves Accord's isolated-workspace review methods
 * (protocol/accordMethods.ts): its method list names every one the review
 * calls, or, from an agent older than the list, the `accord.changes` flag.
 */
export function servesChanges(agent: { info?: { agentCapabilities?: { _meta?: Record<string, unknown> | null } | null } | null }): boolean {
  const meta = agent.info?.agentCapabilities?._meta;
  const listed = advertisedMethods(meta);
  if (listed) return Object.values(WORKSPACE_METHODS).every((method) => listed.has(method));
  const accord = meta?.accord;
  return (typeof accord === 'object' && accord !== null && Boolean((accord as Record<string, unknown>).changes)) || Boolean(meta?.['accord/changes']);
}

export interface IsolatedSourceOptions {
  /**
   * The folder the agent's work-tree-relative paths land under: the top of the
   * person's git repository (the session may have opened a subfolder), else the
   * project folder.
   */
  projectTop(mode: 'git-clone' | 'shadow-copy' | 'in-place'): Promise<string>;
  /** The person's file now (binary changes take it as their base); without it binary changes are skipped. */
  readProject?(path: string): Promise<Content>;
  /** A change that cannot be reviewed here: the person is told by the caller. */
  skipped?(sessionId: string, relativePath: string, why: string): void;
}

interface SessionPlace {
  /** In place, the agent already wrote the person's files: its changes are reviewed like a direct-to-disk agent's. */
  inPlace: boolean;
  /** The agent's working folder (clone side). */
  agentRoot: string;
  /** The person's top folder for work-tree-relative paths. */
  top: string;
}

export class IsolatedWorkspaceSource implements TurnAwareSource {
  readonly origin = 'isolated' as const;
  private readonly places = new Map<string, Promise<SessionPlace>>();
  /** sessionId → relative path → what was last proposed, so a later turn does not list it again. */
  private readonly lastSeen = new Map<string, Map<string, Content>>();
  /** sessionId → relative path → its list entry (status, line counts) when last read. */
  private readonly listed = new Map<string, Map<string, string>>();
  /** One refresh per session at a time; a request during one runs once more after it. */
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Map<string, Refresh>();

  constructor(
    private readonly sink: ChangeSink,
    private readonly callAgent: AgentExtCall,
    /** The person's project root (the session's cwd). */
    private readonly projectRoot: string,
    private readonly options: IsolatedSourceOptions = { projectTop: async () => projectRoot },
  ) {}

  /** The agent's workspace keeps its own base, so a turn's start needs no snapshot here. */
  async beginTurn(): Promise<void> {}

  /**
   * A finished tool call: a quick refresh reads only the files it names and
   * those whose list entry changed, so its diff is reviewable at once.
   */
  async toolCall(sessionId: string, turnId: string, call: ToolCallFacts): Promise<void> {
    if (isFinished(call)) await this.refresh(sessionId, turnId, touchedPaths(call));
  }

  /** The turn's end reads every changed file (a command may rewrite one without changing its line counts). */
  async endTurn(sessionId: string, turnId: string): Promise<void> {
    await this.refresh(sessionId, turnId);
  }

  /**
   * Reads the agent's changed files and proposes those whose content changed
   * since last proposed. With `touched` (paths a tool call named), files not
   * named whose status and line counts are unchanged are not read again.
   */
  refresh(sessionId: string, turnId: string, touched?: string[]): Promise<void> {
    return this.enqueue(sessionId, { turnId, touched });
  }

  /**
   * A session reopened (window reload, agent restart): its copy may hold
   * changes no review in this window knows. Those the person's tree does not
   * already have are proposed under `turnId`; the rest were accepted before.
   */
  recover(sessionId: string, turnId: string): Promise<void> {
    return this.enqueue(sessionId, { turnId, unlandedOnly: true });
  }

  private enqueue(sessionId: string, request: Refresh): Promise<void> {
    const current = this.running.get(sessionId);
    if (current) {
      const waiting = this.again.get(sessionId);
      this.again.set(sessionId, waiting ? merge(waiting, request) : request);
      return current;
    }
    const run = (async () => {
      try {
        await this.refreshNow(sessionId, request);
        for (let next = this.again.get(sessionId); next !== undefined; next = this.again.get(sessionId)) {
          this.again.delete(sessionId);
          await this.refreshNow(sessionId, next);
        }
      } finally {
        this.running.delete(sessionId);
        this.again.delete(sessionId);
      }
    })();
    this.running.set(sessionId, run);
    return run;
  }

  /** The person's path for a path the agent named (under its own workspace); unchanged when outside it. */
  async projectPath(sessionId: string, agentPath: string): Promise<string> {
    const place = await this.place(sessionId);
    const relative = path.relative(place.agentRoot, agentPath);
    if (relative.startsWith('..') || path.isAbsolute(relative)) return agentPath;
    return path.join(this.projectRoot, relative);
  }

  /** Puts these files (the person's paths) back to the base in the agent's workspace, so its copy matches what was rejected. */
  async discard(sessionId: string, projectPaths: string[]): Promise<string[]> {
    const place = await this.place(sessionId);
    // Only paths the agent still has changed: it refuses the whole request for one it does not.
    const changed = new Set((await this.call(WORKSPACE_METHODS.listChanges, { sessionId })).changes.map((c) => c.path));
    const relatives = projectPaths.map((p) => this.relative(place.top, p)).filter((r) => changed.has(r));
    if (relatives.length === 0) return [];
    const answer = await this.call(WORKSPACE_METHODS.discard, { sessionId, paths: relatives });
    const seen = this.lastSeen.get(sessionId);
    for (const relative of answer.discarded) {
      seen?.delete(relative);
      this.listed.get(sessionId)?.delete(relative);
    }
    return answer.discarded.map((r) => this.absolute(place.top, r));
  }

  private async refreshNow(sessionId: string, { turnId, touched, unlandedOnly }: Refresh): Promise<void> {
    const place = await this.place(sessionId);
    const list = await this.call(WORKSPACE_METHODS.listChanges, { sessionId });
    const seen = mapFor(this.lastSeen, sessionId);
    const listed = mapFor(this.listed, sessionId);
    const named = touched && new Set(touched.flatMap((p) => [this.relative(place.top, p), this.relative(place.top, path.join(this.projectRoot, path.relative(place.agentRoot, p)))]));
    for (const change of list.changes) {
      if (!plainPath(change.path) || (change.oldPath !== undefined && !plainPath(change.oldPath))) {
        this.options.skipped?.(sessionId, change.path, 'the agent named it with a path outside the project');
        continue;
      }
      // The agent's tools may not write these, but its sandboxed commands can: the review never lands them (the agent-side apply refused them too).
      // In place the change is already on disk: it is reviewed like any other, so Reject can undo it.
      const guarded = place.inPlace ? null : (protectedPart(change.path) ?? (change.oldPath !== undefined ? protectedPart(change.oldPath) : null));
      if (guarded) {
        this.options.skipped?.(sessionId, change.path, guardedWhy(guarded));
        continue;
      }
      const entry = [change.status, change.oldPath ?? '', change.additions ?? '?', change.deletions ?? '?'].join('\u0000');
      const unchanged = listed.get(change.path) === entry && seen.has(change.path);
      listed.set(change.path, entry);
      if (named && unchanged && !named.has(change.path)) continue;
      const sides = await this.call(WORKSPACE_METHODS.readFile, { sessionId, path: change.path });
      if (sides.tooLarge !== undefined || sides.link !== undefined) {
        this.options.skipped?.(sessionId, change.path, sides.tooLarge !== undefined ? `it is ${sides.tooLarge}` : 'the agent made it a symbolic link');
        continue;
      }
      const both = sides.binary ? await this.binarySides(place, change) : { base: encode(sides.baseText), proposed: encode(sides.currentText) };
      if (!both || 'skip' in both) {
        this.options.skipped?.(sessionId, change.path, both?.skip ?? 'its binary content could not be read');
        continue;
      }
      const { base, proposed } = both;
      if (seen.has(change.path) && sameContent(seen.get(change.path) ?? null, proposed)) continue;
      seen.set(change.path, proposed);
      if (unlandedOnly && this.options.readProject && sameContent(await this.options.readProject(this.absolute(place.top, change.path)), proposed)) continue;
      const movedFrom = change.status === 'renamed' && change.oldPath !== undefined ? this.absolute(place.top, change.oldPath) : undefined;
      this.sink.propose({
        origin: place.inPlace ? 'direct' : 'isolated',
        sessionId,
        turnId,
        path: this.absolute(place.top, change.path),
        ...(movedFrom !== undefined ? { movedFrom } : {}),
        base,
        proposed,
      });
    }
  }

  /**
   * The agent's methods carry text only. A binary file is read from the
   * agent's copy on this machine; its base is the person's file as it is now
   * (a binary file is decided whole, so accepting replaces it and rejecting
   * keeps it).
   */
  private async binarySides(place: SessionPlace, change: { path: string; oldPath?: string; status: string }): Promise<{ base: Content; proposed: Content } | { skip: string } | undefined> {
    if (!this.options.readProject) return undefined;
    const agentTop = path.resolve(place.agentRoot, path.relative(this.projectRoot, place.top));
    try {
      let proposed: Content = null;
      if (change.status !== 'deleted') {
        const read = await readNoFollow(agentTop, change.path);
        if (read.kind === 'tooLarge') return { skip: `it is ${tooLargeText(read.size)}` };
        if (read.kind === 'link') return { skip: 'the agent made it a symbolic link' };
        if (read.kind === 'file') proposed = new Uint8Array(read.data);
      }
      const base = change.status === 'added' ? null : await this.options.readProject(this.absolute(place.top, change.oldPath ?? change.path));
      return { base, proposed };
    } catch (error) {
      if (error instanceof UnsafePathError) return { skip: error.message };
      return undefined;
    }
  }

  /** One method call, its answer checked against the shared schema: the agent's answer is untrusted. */
  private async call<M extends AccordRequestMethod>(method: M, params: AccordParams<M>): Promise<AccordResult<M>> {
    return checkResult(method, await this.callAgent(method, params));
  }

  private place(sessionId: string): Promise<SessionPlace> {
    let place = this.places.get(sessionId);
    if (!place) {
      place = (async () => {
        const status = await this.call(WORKSPACE_METHODS.status, { sessionId });
        return { inPlace: status.mode === 'in-place', agentRoot: status.root, top: await this.options.projectTop(status.mode) };
      })();
      place.catch(() => this.places.delete(sessionId));
      this.places.set(sessionId, place);
    }
    return place;
  }

  /** `relative` comes from the agent: a path that could leave `top` (`..`, absolute, NUL) is refused. */
  private absolute(top: string, relative: string): string {
    return path.join(top, ...components(relative));
  }

  private relative(top: string, absolute: string): string {
    return path.relative(top, absolute).split(path.sep).join('/');
  }

  dispose(): void {
    this.places.clear();
    this.lastSeen.clear();
    this.listed.clear();
  }
}

interface Refresh {
  turnId: string;
  /** Paths a finished tool call named; absent = read every changed file. */
  touched?: string[];
  /** Propose only changes the person's tree does not already hold (recovering a reopened session). */
  unlandedOnly?: boolean;
}

/** Two refresh requests as one: the later turn, and a full read if either asked for one. */
function merge(a: Refresh, b: Refresh): Refresh {
  return {
    turnId: b.turnId,
    ...(a.touched && b.touched ? { touched: [...a.touched, ...b.touched] } : {}),
    ...(a.unlandedOnly && b.unlandedOnly ? { unlandedOnly: true } : {}),
  };
}

function encode(text: string | null): Content {
  return text === null ? null : new TextEncoder().encode(text);
}

/** Why a change to a protected place is not offered for review; the person copies it by hand if they want it. */
function guardedWhy(part: NonNullable<ReturnType<typeof protectedPart>>): string {
  return part.kind === 'dir'
    ? `it is inside ${part.name}/ (${part.holds}), which Accord never changes for an agent; copy it by hand if you want it`
    : `${part.name} is a startup file that runs code on your behalf, which Accord never changes for an agent; copy it by hand if you want it`;
}

function plainPath(relative: string): boolean {
  try {
    components(relative);
    return true;
  } catch {
    return false;
  }
}
