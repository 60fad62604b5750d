// The one message protocol between the extension and the chat webview. Both
// sides validate every message they receive against these schemas.
//
// Envelopes are strict (a malformed message is dropped whole); ACP payloads
// relayed verbatim are lenient (only the discriminant is checked here, the
// webview's reducer reads the fields it knows and ignores the rest), so a newer
// agent never breaks the panel.
//
// Epochs: the extension bumps `epoch` each time the panel switches session
// (new, load). Session-scoped messages in both directions carry the epoch they
// belong to; a receiver drops a message whose epoch is not its current one.
//
// zod/mini keeps this file's share of the webview bundle small.
import * as z from 'zod/mini';

export { PROTOCOL_VERSION } from './protocolVersion';

const MAX_TEXT = 4_000_000;
const text = z.string().check(z.maxLength(MAX_TEXT));
const shortText = z.string().check(z.maxLength(4096));
const id = z.string().check(z.minLength(1), z.maxLength(512));
const epoch = z.number().check(z.int(), z.nonnegative());

/** Agent process state, shown in the panel header. */
export const AgentStatus = z.object({
  state: z.enum(['starting', 'connected', 'restarting', 'stopped', 'error', 'untrusted']),
  agentName: z.optional(shortText),
  agentVersion: z.optional(shortText),
  message: z.optional(shortText),
});
export type AgentStatus = z.infer<typeof AgentStatus>;

/** An ACP `session/update` `update` object, relayed verbatim. */
export const AcpSessionUpdate = z.looseObject({ sessionUpdate: z.string() });
export type AcpSessionUpdate = z.infer<typeof AcpSessionUpdate>;

/** An ACP ToolCallUpdate (lenient: only the id is required). */
export const AcpToolCallPatch = z.looseObject({ toolCallId: id });
export type AcpToolCallPatch = z.infer<typeof AcpToolCallPatch>;

/** Only once-only choices ever reach the panel; the extension filters the rest. */
export const ApprovalOption = z.object({
  optionId: id,
  name: shortText,
  kind: z.enum(['allow_once', 'reject_once']),
});
export type ApprovalOption = z.infer<typeof ApprovalOption>;

export const SessionSummary = z.object({
  sessionId: id,
  title: z.optional(z.nullable(shortText)),
  updatedAt: z.optional(z.nullable(shortText)),
  cwd: z.optional(shortText),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/** ACP SessionConfigOption[] (lenient; options of unknown `type` are ignored by the panel). */
export const AcpConfigOptions = z.array(z.looseObject({ id, name: shortText, type: z.string() }));
export type AcpConfigOptions = z.infer<typeof AcpConfigOptions>;

/** ACP AvailableCommand[]. */
export const AcpAvailableCommands = z.array(
  z.looseObject({ name: shortText, description: z.optional(shortText) }),
);
export type AcpAvailableCommands = z.infer<typeof AcpAvailableCommands>;

export const PromptCapabilities = z.object({
  image: z.optional(z.boolean()),
  audio: z.optional(z.boolean()),
  embeddedContext: z.optional(z.boolean()),
});
export type PromptCapabilities = z.infer<typeof PromptCapabilities>;

/** A way to sign in that the agent offered in `initialize` (its words: hostile text). */
export const AuthChoice = z.object({
  methodId: id,
  name: shortText,
  description: z.optional(shortText),
  /** Runs in a VS Code terminal (ACP terminal auth) rather than through `authenticate`. */
  terminal: z.boolean(),
});
export type AuthChoice = z.infer<typeof AuthChoice>;

/** Where talking to an agent went wrong: the panel says so, with the agent's name and ways to look further. */
export const AgentFailure = z.object({
  agentName: shortText,
  stage: z.enum(['start', 'initialize', 'session/new', 'session/load', 'session/prompt', 'exit', 'authenticate']),
  /** The error as the agent or the system gave it (hostile text: the panel shows it quoted). */
  message: shortText,
  /** The agent needs a sign-in first: the ways it offered, shown as buttons. */
  authMethods: z.optional(z.array(AuthChoice).check(z.maxLength(20))),
});
export type AgentFailure = z.infer<typeof AgentFailure>;

export const FailureAction = z.enum(['showLog', 'showTraffic', 'editSettings', 'dismiss']);
export type FailureAction = z.infer<typeof FailureAction>;

// `waiting`: Accord's bundled agent (--durable-requests) ended the turn on an approval that outlives it.
export const StopReason = z.enum(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled', 'error', 'waiting']);
export type StopReason = z.infer<typeof StopReason>;

export const DiffReviewState = z.enum(['pending', 'accepted', 'rejected', 'partial']);
export type DiffReviewState = z.infer<typeof DiffReviewState>;

/** One file of a session's changes under review (the panel's "Changes" list). */
export const ReviewedFile = z.object({
  /** The review's id (session, turn and absolute path, so longer than other ids). */
  fileId: shortText,
  path: shortText,
  kind: z.enum(['added', 'modified', 'deleted', 'moved']),
  added: z.number().check(z.int(), z.nonnegative()),
  removed: z.number().check(z.int(), z.nonnegative()),
  binary: z.boolean(),
  state: DiffReviewState,
  /** Why the last decision could not land (the person's own edits touch the same lines). */
  conflict: z.optional(shortText),
  /** The agent did not show what the file held before (a call first seen finished): Reject leaves it as it is. */
  unknownBase: z.optional(z.boolean()),
});
export type ReviewedFile = z.infer<typeof ReviewedFile>;

/** 1-based inclusive lines of an editor selection. */
export const LineRange = z.object({
  startLine: z.number().check(z.int(), z.positive()),
  endLine: z.number().check(z.int(), z.positive()),
});
export type LineRange = z.infer<typeof LineRange>;

export const FileCompletion = z.object({
  /** Absolute path of the file (or folder). */
  path: shortText,
  /** A selection's lines in that file. */
  range: z.optional(LineRange),
  label: shortText,
  detail: z.optional(shortText),
  kind: z.enum(['file', 'folder', 'selection']),
});
export type FileCompletion = z.infer<typeof FileCompletion>;

/** Models the bundled agent can use, known before any session exists: the setup card and the model picker. */
export const ModelSetup = z.object({
  /** No model is configured (no `accord.model`, no key): the panel offers the setup card before the first prompt. */
  needsModel: z.boolean(),
  /** `accord.model`, when set. */
  current: z.optional(shortText),
  /** Every model, grouped by provider (Anthropic, …, GitHub Copilot, each local server). */
  groups: z.array(z.object({
    name: shortText,
    models: z.array(z.object({ value: shortText, name: shortText })).check(z.maxLength(500)),
  })).check(z.maxLength(50)),
  /** How many models VS Code's Language Model API offers (GitHub Copilot and other providers). */
  vscodeModels: z.number().check(z.int(), z.nonnegative()),
  /** Local OpenAI-compatible servers found on their default ports. */
  localServers: z.array(z.object({ name: shortText, baseUrl: shortText, models: z.number().check(z.int(), z.nonnegative()) })).check(z.maxLength(10)),
});
export type ModelSetup = z.infer<typeof ModelSetup>;

export const SetupAction = z.enum(['useVscodeModels', 'setApiKey', 'useLocalModel']);
export type SetupAction = z.infer<typeof SetupAction>;

/** Extension → webview. */
export const HostMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), version: z.number(), epoch }),
  z.object({ type: z.literal('agentStatus'), status: AgentStatus }),
  /** The agent in view failed (null: the failure is over); not tied to a session epoch, since it may have none. */
  z.object({ type: z.literal('agentFailure'), failure: z.nullable(AgentFailure) }),
  z.object({ type: z.literal('settings'), hideThoughts: z.boolean() }),
  z.object({ type: z.literal('modelSetup'), setup: ModelSetup }),
  z.object({
    type: z.literal('sessionList'),
    sessions: z.array(SessionSummary),
    currentSessionId: z.optional(id),
  }),
  /** A new or loaded session becomes the panel's session; clears the transcript. */
  z.object({
    type: z.literal('sessionStarted'),
    epoch,
    sessionId: id,
    origin: z.enum(['new', 'load']),
    title: z.optional(shortText),
  }),
  /** Between replayBegin and replayEnd, updates are history from `session/load`. */
  z.object({ type: z.literal('replayBegin'), epoch }),
  z.object({ type: z.literal('replayEnd'), epoch }),
  /** `sessionId` may be a child (subagent) session of the panel's session. */
  z.object({ type: z.literal('sessionUpdate'), epoch, sessionId: id, update: AcpSessionUpdate }),
  z.object({ type: z.literal('turnStarted'), epoch }),
  z.object({
    type: z.literal('turnEnded'),
    epoch,
    stopReason: StopReason,
    /** For stopReason 'error': what happened, for a person. */
    error: z.optional(shortText),
  }),
  z.object({
    type: z.literal('approvalPending'),
    epoch,
    requestId: id,
    toolCall: AcpToolCallPatch,
    options: z.array(ApprovalOption),
    /** Who asks: the panel shows it in Accord's voice, apart from the agent's words. */
    agentName: z.optional(shortText),
  }),
  z.object({
    type: z.literal('approvalResolved'),
    epoch,
    requestId: id,
    outcome: z.enum(['selected', 'cancelled']),
    optionId: z.optional(id),
  }),
  /**
   * A client-owned terminal (ACP terminal/create) the panel session's agent runs: its output so far
   * (the end of it, raw) and how it exited. Sent as it changes; the tool card naming it draws it.
   */
  z.object({
    type: z.literal('terminalOutput'),
    epoch,
    terminalId: id,
    output: text,
    dropped: z.boolean(),
    exit: z.optional(z.object({ exitCode: z.nullable(z.number().check(z.int())), signal: z.nullable(shortText) })),
  }),
  z.object({ type: z.literal('configOptions'), epoch, configOptions: AcpConfigOptions }),
  z.object({ type: z.literal('availableCommands'), epoch, commands: AcpAvailableCommands }),
  z.object({ type: z.literal('promptCapabilities'), epoch, capabilities: PromptCapabilities }),
  z.object({
    type: z.literal('fileCompletions'),
    query: shortText,
    items: z.array(FileCompletion).check(z.maxLength(500)),
  }),
  z.object({
    type: z.literal('diffReview'),
    epoch,
    toolCallId: id,
    path: shortText,
    state: DiffReviewState,
    /** The reviewed change as the Changes list counts it (the agent's own diff may claim a new file that existed). */
    kind: z.optional(ReviewedFile.shape.kind),
    added: z.optional(z.number().check(z.int(), z.nonnegative())),
    removed: z.optional(z.number().check(z.int(), z.nonnegative())),
    unknownBase: z.optional(z.boolean()),
  }),
  /** The panel session's changed files per turn, with line counts and review state; `pending` files wait for a decision. */
  z.object({
    type: z.literal('reviewChanges'),
    epoch,
    pending: z.number().check(z.int(), z.nonnegative()),
    turns: z.array(z.object({ turnId: id, undone: z.boolean(), files: z.array(ReviewedFile).check(z.maxLength(2000)) })).check(z.maxLength(1000)),
  }),
]);
export type HostMessage = z.infer<typeof HostMessage>;
export type HostMessageOf<T extends HostMessage['type']> = Extract<HostMessage, { type: T }>;

export const PromptMention = z.object({
  /** Absolute path of the file (or folder). */
  path: shortText,
  /** A selection's lines in that file. */
  range: z.optional(LineRange),
  name: shortText,
  kind: z.enum(['file', 'folder', 'selection']),
});
export type PromptMention = z.infer<typeof PromptMention>;

export const PromptImage = z.object({
  mimeType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
  /** base64 */
  data: z.string().check(z.maxLength(20_000_000)),
  name: z.optional(shortText),
});
export type PromptImage = z.infer<typeof PromptImage>;

/** A time in the panel's boot, in ms: unknown (-1) or within a minute. */
const bootMs = z.number().check(z.minimum(-1), z.maximum(60_000));

/** Webview → extension. */
export const WebviewMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ready'),
    version: z.number(),
    /** When the panel's bundle was requested, had loaded and began to run, ms since its document began to load (the startup marks). */
    boot: z.optional(z.object({ requested: bootMs, loaded: bootMs, ran: bootMs, ready: bootMs })),
  }),
  /** The extension turns mentions into resource links or embedded resources per the agent's prompt capabilities. */
  z.object({
    type: z.literal('sendPrompt'),
    epoch,
    text,
    mentions: z.array(PromptMention).check(z.maxLength(100)),
    images: z.array(PromptImage).check(z.maxLength(10)),
  }),
  z.object({ type: z.literal('cancelTurn'), epoch }),
  /** A button on the panel's failure notice. */
  z.object({ type: z.literal('failureAction'), action: FailureAction }),
  /** Sign in to the agent in view with one of the methods it offered (the extension checks it did). */
  z.object({ type: z.literal('authenticate'), methodId: id }),
  z.object({ type: z.literal('answerApproval'), epoch, requestId: id, optionId: id }),
  z.object({
    type: z.literal('openLocation'),
    path: shortText,
    line: z.optional(z.number().check(z.int(), z.positive())),
  }),
  /** A link the person clicked; the extension validates the scheme and confirms before opening. */
  z.object({ type: z.literal('openLink'), href: shortText }),
  z.object({ type: z.literal('reviewDiff'), epoch, toolCallId: id, path: shortText }),
  /** Open one file of the "Changes" list in the review diff editor, or (`inFile`) review it inside the file with Keep/Undo. */
  z.object({ type: z.literal('reviewFile'), epoch, fileId: shortText, inFile: z.optional(z.boolean()) }),
  z.object({
    type: z.literal('setConfigOption'),
    epoch,
    configId: id,
    value: z.union([shortText, z.boolean()]),
  }),
  /** A button of the setup card (`baseUrl`: which local server). */
  z.object({ type: z.literal('setupAction'), action: SetupAction, baseUrl: z.optional(shortText) }),
  /** A model picked before a session exists: it becomes `accord.model`. */
  z.object({ type: z.literal('pickModel'), value: shortText }),
  z.object({ type: z.literal('newSession') }),
  z.object({ type: z.literal('loadSession'), sessionId: id }),
  z.object({ type: z.literal('requestFileCompletions'), query: shortText }),
  z.object({ type: z.literal('copyText'), text }),
  /** Diagnostics from the panel (e.g. an ignored unknown update kind) for the output channel. */
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warn', 'error']), message: shortText }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessage>;
export type WebviewMessageOf<T extends WebviewMessage['type']> = Extract<WebviewMessage, { type: T }>;

export type Parsed<T> = { ok: true; message: T } | { ok: false; error: string };

function parseWith<T>(schema: z.ZodMiniType<T>, raw: unknown, from: string): Parsed<T> {
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, message: result.data };
  const kind = typeof raw === 'object' && raw !== null && 'type' in raw ? String(raw.type).slice(0, 64) : typeof raw;
  const where = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(message)'}: ${issue.code}`)
    .join('; ');
  return { ok: false, error: `Dropped an invalid ${from} message (${kind}): ${where}` };
}

/** Validate a message received by the webview. */
export function parseHostMessage(raw: unknown): Parsed<HostMessage> {
  return parseWith(HostMessage, raw, 'extension');
}

/** Validate a message received by the extension. */
export function parseWebviewMessage(raw: unknown): Parsed<WebviewMessage> {
  return parseWith(WebviewMessage, raw, 'webview');
}
