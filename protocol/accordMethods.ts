// Accord's ACP extension methods, schema first: every `_accord/*` method's
// name, direction, schema version and zod shapes, in one module shared by the
// agent (which serves its methods and parses their params with these schemas)
// and the extension (which calls them and checks each answer with these
// schemas), the way webview/protocol.ts is shared by the host and the panel.
//
//   client → agent requests        accordRequests            (the review methods)
//   agent → client notifications   accordNotifications       (a shared session's news)
//   agent → client requests        accordClientRequests      (`_accord/lm/*`: the editor lends its models)
//   client → agent notifications   accordClientNotifications (`_accord/lm/parts`: a lent model's stream)
//
// Imports zod/mini only (it keeps the extension's bundle small): the agent
// core, the adapters and the extension all bundle it; it must pull in neither
// `vscode` nor the ACP SDK.
import * as z from 'zod/mini';

/** Where `initialize` lists the methods: `agentCapabilities._meta["accord/methods"]` = { name: schema version }. */
export const METHODS_META_KEY = 'accord/methods';

/** The older capability flag for the review methods; clients that predate the method list look for it. */
export const CHANGES_CAPABILITY = { accord: { changes: 1 } } as const;

// Every schema here is built on first use: building them all at load cost
// ~3 ms of each agent start before `initialize` could be answered (issue 17),
// and `initialize` lists only the names and versions. A method's `params` and
// `result` are getters; an exported schema is a z.lazy of its builder.

/** `build`'s value, built on the first call. */
function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

/** A request method: its schema version, and its schemas built when first read. */
function request<const V extends number, P, R>(version: V, params: () => P, result: () => R): { readonly version: V; readonly params: P; readonly result: R } {
  const builtParams = once(params);
  const builtResult = once(result);
  return {
    version,
    get params() {
      return builtParams();
    },
    get result() {
      return builtResult();
    },
  };
}

/** A notification method: its schema version, and its params schema built when first read. */
function notification<const V extends number, P>(version: V, params: () => P): { readonly version: V; readonly params: P } {
  const builtParams = once(params);
  return {
    version,
    get params() {
      return builtParams();
    },
  };
}

const sessionId = once(() => z.string().check(z.minLength(1)));

/** Relative to the top of the session's work tree, `/`-separated, never absolute or with `..`. */
const relativePath = once(() =>
  z.string().check(z.minLength(1), z.refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'must be relative to the work tree, without ".."')),
);

const workspaceMode = once(() => z.enum(['git-clone', 'shadow-copy', 'in-place']));

const sandboxStatus = once(() =>
  z.discriminatedUnion('state', [
    z.object({ state: z.literal('sandboxed'), platform: z.enum(['linux', 'macos']), warnings: z.array(z.string()) }),
    z.object({ state: z.literal('unsandboxed'), reason: z.string() }),
  ]),
);

const changedFile = once(() =>
  z.object({
    /** Relative to the top of the session's work tree. Hostile until checked: the copy is written by sandboxed commands. */
    path: z.string(),
    /** For renames: where the file was in the base. */
    oldPath: z.optional(z.string()),
    status: z.enum(['added', 'modified', 'deleted', 'renamed']),
    /** Line counts; 0 for binary files. */
    additions: z.number(),
    deletions: z.number(),
    binary: z.boolean(),
  }),
);

/** Client → agent requests: the extension calls them, the agent serves them. */
export const accordRequests = {
  '_accord/workspace/status': request(
    1,
    () => z.object({ sessionId: sessionId() }),
    () =>
      z.object({
        mode: workspaceMode(),
        /** Where the agent works (its tool calls name paths under it). */
        root: z.string(),
        /** The folder in the person's project the relative paths refer to. */
        applyTo: z.string(),
        /** The commit (or snapshot) the copy started from; empty in place. */
        base: z.string(),
        sandbox: sandboxStatus(),
        /** Build inputs linked read-only into the copy, relative paths. */
        linkedReadOnly: z.array(z.string()),
      }),
  ),
  '_accord/changes/list': request(
    1,
    () => z.object({ sessionId: sessionId() }),
    () => z.object({ changes: z.array(changedFile()) }),
  ),
  '_accord/changes/file': request(
    1,
    () => z.object({ sessionId: sessionId(), path: relativePath() }),
    () =>
      z.object({
        path: z.string(),
        /** null: the file does not exist on that side, or has no text to show (binary, link, too large). */
        baseText: z.nullable(z.string()),
        currentText: z.nullable(z.string()),
        binary: z.boolean(),
        /** "too large (N MB)": neither side was sent. */
        tooLarge: z.optional(z.string()),
        /** The agent's side is a symbolic link to this target (never followed). */
        link: z.optional(z.string()),
      }),
  ),
  '_accord/changes/discard': request(
    1,
    () => z.object({ sessionId: sessionId(), paths: z.optional(z.array(relativePath())) }),
    () => z.object({ discarded: z.array(z.string()) }),
  ),
  /**
   * Stops one running tool call (ACP v2's `tool_call/cancel`): it ends failed, the model is told
   * the person cancelled it, and the turn goes on. -32602 when no call with that id is running.
   */
  '_accord/tool_call/cancel': request(
    1,
    () => z.object({ sessionId: sessionId(), toolCallId: z.string().check(z.minLength(1), z.maxLength(256)) }),
    () => z.object({}),
  ),
} as const;

/** `session/prompt` `_meta` key: a token (a short string) asks for `_accord/prompt_started` with it. */
export const PROMPT_STARTED_META = 'accord/promptStarted';
const PROMPT_TOKEN_MAX = 128;

/** The token a prompt's `_meta` asks `_accord/prompt_started` with, if it is one (a client's `_meta` is untrusted). */
export function promptStartedToken(meta: unknown): string | undefined {
  if (meta === null || typeof meta !== 'object') return undefined;
  const token = (meta as Record<string, unknown>)[PROMPT_STARTED_META];
  return typeof token === 'string' && token.length > 0 && token.length <= PROMPT_TOKEN_MAX ? token : undefined;
}

/** Agent → client notifications (the daemon tells the clients that share a session). */
export const accordNotifications = {
  /** A turn another client's prompt started in a session this client watches. */
  '_accord/turn_started': notification(1, () => z.object({ sessionId: sessionId() })),
  /** That turn ended. */
  '_accord/turn_ended': notification(1, () => z.object({ sessionId: sessionId(), stopReason: z.string() })),
  /**
   * A prompt of this client entered the conversation (sent only for a prompt whose
   * `_meta[PROMPT_STARTED_META]` names a token; before any update of its turn). `offset`:
   * its log record's, the cursor a resume can continue after; absent without a log. A prompt
   * that never starts (cancelled while queued or waiting for its workspace, refused) gets none.
   */
  '_accord/prompt_started': notification(1, () =>
    z.object({ sessionId: sessionId(), token: z.string().check(z.minLength(1), z.maxLength(PROMPT_TOKEN_MAX)), offset: z.optional(z.number().check(z.int(), z.nonnegative())) }),
  ),
  /** An approval this client was asked was answered elsewhere (or timed out); the request is withdrawn. */
  '_accord/permission_settled': notification(1, () =>
    z.object({
      sessionId: sessionId(),
      toolCallId: z.string(),
      outcome: z.union([z.enum(['allow', 'reject', 'cancelled']), z.object({ deferred: z.string() })]),
    }),
  ),
} as const;

/** `clientCapabilities._meta` key a client sets when it serves `_accord/lm/*`. */
export const LM_CAPABILITY_KEY = 'accord/languageModels';

/**
 * The language models the client (Accord in VS Code) lends the agent:
 * `vscode.lm` models (GitHub Copilot and others), which only the editor's
 * process can call. Cancelling `_accord/lm/chat` (`$/cancel_request`) cancels
 * VS Code's request. The chat result counts the parts sent, so the agent never
 * finishes a response before every part has arrived.
 */
export const LM_METHODS = {
  models: '_accord/lm/models',
  chat: '_accord/lm/chat',
  parts: '_accord/lm/parts',
} as const;

/** Bounds that keep a confused or hostile peer from making the other side allocate without limit. */
export const LM_LIMITS = {
  models: 200,
  name: 200,
  messages: 5000,
  partsPerNotification: 1000,
  text: 4 * 1024 * 1024,
  tools: 256,
} as const;

const lmName = once(() => z.string().check(z.minLength(1), z.maxLength(LM_LIMITS.name)));
const lmText = once(() => z.string().check(z.maxLength(LM_LIMITS.text)));
const jsonObject = once(() => z.record(z.string(), z.unknown()));
const count = once(() => z.number().check(z.int(), z.nonnegative()));

const buildModelInfo = once(() =>
  z.object({
    /** VS Code's model id (`LanguageModelChat.id`). */
    id: lmName(),
    vendor: lmName(),
    name: lmName(),
    family: z.string().check(z.maxLength(LM_LIMITS.name)),
    /** Prompt tokens the model accepts: the context gauge's size. */
    maxInputTokens: z.optional(z.number().check(z.int(), z.positive())),
  }),
);
export const lmModelInfo = z.lazy(buildModelInfo);
export type LmModelInfo = z.infer<typeof lmModelInfo>;

const buildModelsResult = once(() => z.object({ models: z.array(buildModelInfo()).check(z.maxLength(LM_LIMITS.models)) }));
export const lmModelsResult = z.lazy(buildModelsResult);
export type LmModelsResult = z.infer<typeof lmModelsResult>;

const buildMessagePart = once(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: lmText() }),
    z.object({ type: z.literal('tool_call'), callId: lmName(), name: lmName(), input: jsonObject() }),
    z.object({ type: z.literal('tool_result'), callId: lmName(), text: lmText(), isError: z.optional(z.boolean()) }),
  ]),
);
export const lmMessagePart = z.lazy(buildMessagePart);
export type LmMessagePart = z.infer<typeof lmMessagePart>;

const buildMessage = once(() => z.object({ role: z.enum(['user', 'assistant']), content: z.array(buildMessagePart()) }));
export const lmMessage = z.lazy(buildMessage);
export type LmMessage = z.infer<typeof lmMessage>;

const buildTool = once(() => z.object({ name: lmName(), description: z.string().check(z.maxLength(64 * 1024)), inputSchema: jsonObject() }));
export const lmTool = z.lazy(buildTool);
export type LmTool = z.infer<typeof lmTool>;

const buildChatParams = once(() =>
  z.object({
    /** Chosen by the agent; tags the `_accord/lm/parts` notifications of this request. */
    streamId: lmName(),
    vendor: lmName(),
    model: lmName(),
    messages: z.array(buildMessage()).check(z.minLength(1), z.maxLength(LM_LIMITS.messages)),
    tools: z.array(buildTool()).check(z.maxLength(LM_LIMITS.tools)),
    /** `required`: the model must call a tool (VS Code's LanguageModelChatToolMode.Required). */
    toolMode: z.enum(['auto', 'required']),
  }),
);
export const lmChatParams = z.lazy(buildChatParams);
export type LmChatParams = z.infer<typeof lmChatParams>;

/** What the model streams back. */
const buildStreamPart = once(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: lmText() }),
    z.object({ type: z.literal('tool_call'), callId: lmName(), name: lmName(), input: jsonObject() }),
  ]),
);
export const lmStreamPart = z.lazy(buildStreamPart);
export type LmStreamPart = z.infer<typeof lmStreamPart>;

const buildPartsNotification = once(() =>
  z.object({ streamId: lmName(), parts: z.array(buildStreamPart()).check(z.minLength(1), z.maxLength(LM_LIMITS.partsPerNotification)) }),
);
export const lmPartsNotification = z.lazy(buildPartsNotification);
export type LmPartsNotification = z.infer<typeof lmPartsNotification>;

const buildChatResult = once(() =>
  z.object({
    /** How many parts the client sent for this request, over all its notifications. */
    parts: count(),
    usage: z.object({ inputTokens: count(), outputTokens: count() }),
    /** True when the counts are the client's estimate (VS Code's API reports no usage; `countTokens` estimates it). */
    estimated: z.boolean(),
  }),
);
export const lmChatResult = z.lazy(buildChatResult);
export type LmChatResult = z.infer<typeof lmChatResult>;

/** Agent → client requests: the agent calls them, a client that set LM_CAPABILITY_KEY serves them. */
export const accordClientRequests = {
  [LM_METHODS.models]: request(1, () => z.object({}), buildModelsResult),
  [LM_METHODS.chat]: request(1, buildChatParams, buildChatResult),
} as const;

/** Client → agent notifications: zero or more parts of an open `_accord/lm/chat`, before its answer. */
export const accordClientNotifications = {
  [LM_METHODS.parts]: notification(1, buildPartsNotification),
} as const;

/** True when the client's `initialize` capabilities say it serves `_accord/lm/*`. */
export function offersLanguageModels(meta: unknown): boolean {
  if (meta === null || typeof meta !== 'object') return false;
  const value = (meta as Record<string, unknown>)[LM_CAPABILITY_KEY];
  return value !== undefined && value !== null && value !== false;
}

export type AccordRequestMethod = keyof typeof accordRequests;
export type AccordNotificationMethod = keyof typeof accordNotifications;
export type AccordParams<M extends AccordRequestMethod> = z.infer<(typeof accordRequests)[M]['params']>;
export type AccordResult<M extends AccordRequestMethod> = z.infer<(typeof accordRequests)[M]['result']>;
export type AccordNotificationParams<M extends AccordNotificationMethod> = z.infer<(typeof accordNotifications)[M]['params']>;

/** What an agent serves beyond the methods every Accord agent has (lent models, shared-session news). */
export interface ServedMethods {
  /** Sessions have workspaces the agent manages (a copy, or in place): `_accord/workspace/status` and the review methods. */
  workspaces: boolean;
}

/** The methods that need isolated workspaces: the workspace's status and the review of its changes. */
const WORKSPACE_METHODS: ReadonlySet<string> = new Set(['_accord/workspace/status', '_accord/changes/list', '_accord/changes/file', '_accord/changes/discard']);

/** Every method in both directions with its schema version, as `initialize` lists it; `served` leaves out what the agent does not serve. */
export function methodVersions(served: ServedMethods = { workspaces: true }): Record<string, number> {
  const versions: Record<string, number> = {};
  for (const [name, spec] of [
    ...Object.entries(accordRequests),
    ...Object.entries(accordNotifications),
    ...Object.entries(accordClientRequests),
    ...Object.entries(accordClientNotifications),
  ]) {
    if (!served.workspaces && WORKSPACE_METHODS.has(name)) continue;
    versions[name] = spec.version;
  }
  return versions;
}

/** The `agentCapabilities._meta` an agent advertises: exactly the methods it serves (the older review flag only with them). */
export function methodsCapability(served: ServedMethods = { workspaces: true }): Record<string, unknown> {
  return { ...(served.workspaces ? CHANGES_CAPABILITY : {}), [METHODS_META_KEY]: methodVersions(served) };
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
