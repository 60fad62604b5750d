// The environment a command starts with, sandboxed or not: built from an
// allowlist of the agent's own variables (where programs are, who and where
// the person is, language and terminal), plus the names the project policy
// passes, plus the call's approved additions. Never a denylist: a secret
// under a name nobody thought of (PGPASSWORD, CI_JOB_JWT, STRIPE_SK) simply
// is not on the list. Model keys reach the agent so it can call providers;
// they must never reach a program the model chose.

/** Passed when the agent has them. */
const passedNames = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TERM', 'COLORTERM', 'TZ',
  'TMPDIR', 'TMP', 'TEMP', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'COLUMNS', 'LINES',
  'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME',
  'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS',
  // Windows needs these to start most programs at all.
  'SYSTEMROOT', 'SYSTEMDRIVE', 'WINDIR', 'COMSPEC', 'PATHEXT', 'USERPROFILE', 'USERNAME', 'APPDATA', 'LOCALAPPDATA',
  'PROGRAMDATA', 'PROGRAMFILES', 'PROGRAMFILES(X86)', 'PROGRAMW6432', 'COMMONPROGRAMFILES', 'NUMBER_OF_PROCESSORS', 'PROCESSOR_ARCHITECTURE', 'OS',
]);

/** Locale variables: LC_ALL, LC_CTYPE, ... */
const passedPattern = /^LC_[A-Z]+$/;

/** A name the policy may pass: `NAME` or a prefix pattern `NAME_*`. */
export const passPattern = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

function isPassed(name: string, policyNames: readonly string[]): boolean {
  const upper = name.toUpperCase();
  if (passedNames.has(process.platform === 'win32' ? upper : name) || passedPattern.test(name)) return true;
  return policyNames.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

export interface CommandEnvironment {
  env: Record<string, string>;
  /** Names of the agent's variables left out, for the person ("N variables not passed"). */
  removed: string[];
}

export interface EnvironmentOptions {
  /** Names (or `PREFIX_*` patterns) `.accord/policy.json` passes on top of the built-in list. */
  pass?: readonly string[];
  /** The call's approved additions (shown to the person, so kept as given); they win over everything. */
  additions?: Readonly<Record<string, string>>;
}

/** The environment for a command: allowlisted variables of `base`, the policy's, then `additions`. */
export function commandEnvironment(base: NodeJS.ProcessEnv, options: EnvironmentOptions = {}): CommandEnvironment {
  const env: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (isPassed(name, options.pass ?? [])) env[name] = value;
    else removed.push(name);
  }
  return { env: { ...env, ...options.additions }, removed: removed.sort() };
}
