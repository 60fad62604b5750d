// Accord's ACP extension methods, schema first: every `_accord/*` method's
// name, schema version and zod shapes, in one module shared by the agent
// (which serves them and parses their params with these schemas) and the
// extension (which calls them and checks each answer with these schemas),
// the way webview/protocol.ts is shared by the host and the panel.
//
// Imports zod only: the agent core, the adapters and the extension all
// bundle it; it must pull in neither `vscode` nor the ACP SDK.
import { z } from 'zod';

/** Where `initialize` lists the methods: `agentCapabilities._meta["accord/methods"]` = { name: schema version }. */
export const METHODS_META_KEY = 'accord/methods';

/** The older capability flag for the review methods; clients that predate the method list look for it. */
export const CHANGES_CAPABILITY = { accord: { changes: 1 } } as const;

const sessionId = z.string().min(1);

/** Relative to the top of the session's work tree, `/`-separated, never absolute or with `..`. */
const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'must be relative to the work tree, without ".."');

const workspaceMode = z.enum(['git-clone', 'shadow-copy', 'in-place']);

const sandboxStatus = z.discriminatedUnion('state', [
  z.object({ state: z.literal('sandboxed'), platform: z.enum(['linux', 'macos']), warnings: z.array(z.string()) }),
  z.object({ state: z.literal('unsandboxed'), reason: z.string() }),
]);

const changedFile = z.object({
  /** Relative to the top of the session's work tree. Hostile until checked: the copy is written by sandboxed commands. */
  path: z.string(),
  /** For renames: where the file was in the base. */
  oldPath: z.string().optional(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  /** Line counts; 0 for binary files. */
  additions: z.number(),
  deletions: z.number(),
  binary: z.boolean(),
});

/** Agent → client requests the extension calls. */
export const accordRequests = {
  '_accord/workspace/status': {
    version: 1,
    params: z.object({ sessionId }),
    result: z.object({
      mode: workspaceMode,
      /** Where the agent works (its tool calls name paths under it). */
      root: z.string(),
      /** The folder in the person's project the relative paths refer to. */
      applyTo: z.string(),
      /** The commit (or snapshot) the copy started from; empty in place. */
      base: z.string(),
      sandbox: sandboxStatus,
      /** Build inputs linked read-only into the copy, relative paths. */
      linkedReadOnly: z.array(z.string()),
    }),
  },
  '_accord/changes/list': {
    version: 1,
    params: z.object({ sessionId }),
    result: z.object({ changes: z.array(changedFile) }),
  },
  '_accord/changes/file': {
    version: 1,
    params: z.object({ sessionId, path: relativePath }),
    result: z.object({
      path: z.string(),
      /** null: the file does not exist on that side, or has no text to show (binary, link, too large). */
      baseText: z.string().nullable(),
      currentText: z.string().nullable(),
      binary: z.boolean(),
      /** "too large (N MB)": neither side was sent. */
      tooLarge: z.string().optional(),
      /** The agent's side is a symbolic link to this target (never followed). */
      link: z.string().optional(),
    }),
  },
  '_accord/changes/discard': {
    version: 1,
    params: z.object({ sessionId, paths: z.array(relativePath).optional() }),
    result: z.object({ discarded: z.array(z.string()) }),
  },
} as const;

/** Agent → client notifications (the daemon tells the clients that share a session). */
export const accordNotifications = {
  /** A turn another client's prompt started in a session this client watches. */
  '_accord/turn_started': { version: 1, params: z.object({ sessionId }) },
  /** That turn ended. */
  '_accord/turn_ended': { version: 1, params: z.object({ sessionId, stopReason: z.string() }) },
  /** An approval this client was asked was answered elsewhere (or timed out); the request is withdrawn. */
  '_accord/permission_settled': {
    version: 1,
    params: z.object({
      sessionId,
      toolCallId: z.string(),
      outcome: z.union([z.enum(['allow', 'reject', 'cancelled']), z.object({ deferred: z.string() })]),
    }),
  },
} as const;

export type AccordRequestMethod = keyof typeof accordRequests;
export type AccordNotificationMethod = keyof typeof accordNotifications;
export type AccordParams<M extends AccordRequestMethod> = z.infer<(typeof accordRequests)[M]['params']>;
export type AccordResult<M extends AccordRequestMethod> = z.infer<(typeof accordRequests)[M]['result']>;
export type AccordNotificationParams<M extends AccordNotificationMethod> = z.infer<(typeof accordNotifications)[M]['params']>;

/** Every method with its schema version, as `initialize` lists it. */
export function methodVersions(): Record<string, number> {
  const versions: Record<string, number> = {};
  for (const [name, spec] of [...Object.entries(accordRequests), ...Object.entries(accordNotifications)]) versions[name] = spec.version;
  return versions;
}

/** The `agentCapabilities._meta` an agent serving every method advertises. */
export function methodsCapability(): Record<string, unknown> {
  return { ...CHANGES_CAPABILITY, [METHODS_META_KEY]: methodVersions() };
}

/**
 * The method list an agent advertised, or undefined when it sent none. An
 * agent is untrusted: anything but `{ name: positive integer }` is dropped.
 */
export function advertisedMethods(meta: unknown): Map<string, number> | undefined {
  if (meta === null || typeof meta !== 'object') return undefined;
  const list = (meta as Record<string, unknown>)[METHODS_META_KEY];
  if (list === null || typeof list !== 'object' || Array.isArray(list)) return undefined;
  const found = new Map<string, number>();
  for (const [name, version] of Object.entries(list as Record<string, unknown>)) {
    if (name.startsWith('_accord/') && Number.isInteger(version) && (version as number) > 0) found.set(name, version as number);
  }
  return found;
}

/** Thrown by `checkResult` for an answer that is not what the schema says. */
export class AccordAnswerError extends Error {}

/** The agent's answer to `method`, checked against its schema (unknown fields dropped), or AccordAnswerError. */
export function checkResult<M extends AccordRequestMethod>(method: M, answer: unknown): AccordResult<M> {
  const parsed = accordRequests[method].result.safeParse(answer);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new AccordAnswerError(`The agent's answer to ${method} is not what Accord expects (${issue?.message ?? 'invalid'}${where}); update the agent and Accord together.`);
  }
  return parsed.data as AccordResult<M>;
}
