// The environment an agent process starts with. The extension host's own
// environment is whatever the person's shell, desktop session and VS Code put
// there (tokens, sockets, stray flags like IS_SANDBOX=yes): an agent gets a
// documented minimal set instead, plus what belongs to it.
//   - a configured agent: MINIMAL_ENV + its own `env`; with `"inheritEnv": true`
//     the whole host environment instead of the minimal set (its own `env` still wins).
//   - the bundled agent: MINIMAL_ENV + the variables it reads (BUNDLED_ENV) +
//     what the project's policy passes to commands (environment.pass) +
//     the keys from SecretStorage. No other agent ever gets those keys.
// Pure: no vscode import.

/** Variables every agent gets from the host when set: where things are, locale, temp dirs, proxies, CA certificates. */
export const MINIMAL_ENV: readonly string[] = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TMP', 'TEMP',
  'XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME',
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy',
  'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
  // Windows: programs fail to start without these.
  'SYSTEMROOT', 'SYSTEMDRIVE', 'WINDIR', 'COMSPEC', 'PATHEXT', 'USERPROFILE', 'HOMEDRIVE', 'HOMEPATH', 'APPDATA', 'LOCALAPPDATA',
  'PROGRAMDATA', 'PROGRAMFILES', 'PROGRAMFILES(X86)', 'COMMONPROGRAMFILES', 'NUMBER_OF_PROCESSORS', 'PROCESSOR_ARCHITECTURE',
];
/** Prefixes in the minimal set (locale categories). */
export const MINIMAL_PREFIXES: readonly string[] = ['LC_'];

/**
 * What the bundled agent reads besides the minimal set (agent/models/credentials.ts,
 * agent/models/resolve.ts, agent/sandbox, agent/tools): its own ACCORD_* settings and the
 * providers' standard key and endpoint variables, which a person may have set in their shell.
 */
export const BUNDLED_ENV: readonly string[] = [
  'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENROUTER_API_KEY', 'GEMINI_API_KEY',
];
export const BUNDLED_PREFIXES: readonly string[] = ['ACCORD_'];

/** A variable name, or a prefix such as `GRADLE_*` (the agent's policy schema allows the same; a bare `*` is not a prefix). */
const PASS_ENTRY = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

export interface AgentEnvOptions {
  /** The extension host's environment (process.env). */
  host: Readonly<Record<string, string | undefined>>;
  kind: 'bundled' | 'configured';
  /** Configured agents only: start from the whole host environment. */
  inheritEnv?: boolean;
  /** The agent's own variables (a configured agent's `env`, the bundled agent's settings). */
  own?: Readonly<Record<string, string>>;
  /** Keys from SecretStorage; honoured for the bundled agent only. */
  secrets?: Readonly<Record<string, string>>;
  /**
   * Bundled agent only: the names (or `PREFIX_*`) the project's reviewed policy passes to its commands
   * (`environment.pass`). The agent can only pass on what it was given.
   */
  policyPass?: readonly string[];
  platform?: NodeJS.Platform;
}

export function agentEnvironment(options: AgentEnvOptions): Record<string, string> {
  const windows = (options.platform ?? process.platform) === 'win32';
  // Windows variable names are case-insensitive (Path, SystemRoot...).
  const norm = (name: string) => (windows ? name.toUpperCase() : name);
  const bundled = options.kind === 'bundled';
  const pass = bundled ? (options.policyPass ?? []).filter((entry) => PASS_ENTRY.test(entry)) : [];
  const names = new Set((bundled ? [...MINIMAL_ENV, ...BUNDLED_ENV, ...pass.filter((e) => !e.endsWith('*'))] : MINIMAL_ENV).map(norm));
  const prefixes = (bundled ? [...MINIMAL_PREFIXES, ...BUNDLED_PREFIXES, ...pass.filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1))] : MINIMAL_PREFIXES).map(norm);
  const inherit = options.kind === 'configured' && options.inheritEnv === true;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.host)) {
    if (value === undefined) continue;
    const key = norm(name);
    if (inherit || names.has(key) || prefixes.some((p) => key.startsWith(p))) env[name] = value;
  }
  Object.assign(env, options.own ?? {});
  if (options.kind === 'bundled') Object.assign(env, options.secrets ?? {});
  return env;
}
