// The environment a command starts with, sandboxed or not: the agent's own
// minus anything that grants access somewhere (keys, tokens, cloud and
// registry credentials, agent sockets, URLs with passwords, editor IPC
// handles). Model keys reach the agent so it can call providers; they must
// never reach a program the model chose.

const secretName = /(^|_)(API_?KEY|KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PASSPHRASE|CREDENTIALS?|PRIVATE|AUTH|COOKIE|SESSION|SIGNATURE)(_|$)/i;

const secretPrefixes = [
  'AWS_', 'AZURE_', 'ARM_', 'GOOGLE_', 'GCLOUD_', 'GCP_', 'CLOUDSDK_', 'GITHUB_', 'GH_', 'GITLAB_', 'GL_', 'BITBUCKET_',
  'NPM_CONFIG_', 'YARN_NPM_', 'DOCKER_', 'KUBE', 'VAULT_', 'OP_', 'HEROKU_', 'DIGITALOCEAN_', 'CLOUDFLARE_', 'SENTRY_',
  'ANTHROPIC_', 'OPENAI_', 'OPENROUTER_', 'GEMINI_', 'MISTRAL_', 'GROQ_', 'HF_', 'HUGGING', 'ACCORD_', 'COPILOT_',
  'VSCODE_IPC', 'VSCODE_GIT_', 'ELECTRON_',
];

/** Names that carry no secret in themselves but hand out access (agent sockets, askpass helpers). */
const accessNames = new Set(['SSH_AUTH_SOCK', 'SSH_AGENT_PID', 'GPG_AGENT_INFO', 'GIT_ASKPASS', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'DATABASE_URL', 'REDIS_URL', 'MONGODB_URI', 'NETRC', 'PGPASSFILE']);

/** A value holding `scheme://user:password@host`. */
const urlWithPassword = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;

export function isSecretVariable(name: string, value: string): boolean {
  const upper = name.toUpperCase();
  return secretName.test(upper) || accessNames.has(upper) || secretPrefixes.some((p) => upper.startsWith(p)) || urlWithPassword.test(value);
}

export interface ScrubbedEnvironment {
  env: Record<string, string>;
  /** Names removed, for the approval question ("environment scrubbed of N variables"). */
  removed: string[];
}

/** `base` without secrets, then the call's approved `additions` (shown to the person, so kept as given). */
export function scrubEnvironment(base: NodeJS.ProcessEnv, additions: Readonly<Record<string, string>> = {}): ScrubbedEnvironment {
  const env: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (isSecretVariable(name, value)) removed.push(name);
    else env[name] = value;
  }
  return { env: { ...env, ...additions }, removed: removed.sort() };
}
