// The ACP agents Accord knows how to add in one click: how each starts, where
// it comes from, and how a person signs in to it. Pure data (no vscode
// import), so the unit tests and the opt-in `npm run test:agents` suite read
// the same entries the "Add Agent" command writes.
//
// Launch lines as each project documents them (checked against the npm
// registry's `bin` fields; the opt-in suite starts the real packages).

/** Which wire format a model endpoint speaks: the fake model server serves each (test/fakeModelServer). */
export type ModelProtocol = 'anthropic' | 'openai-chat' | 'openai-responses';

export interface CatalogueAgent {
  /** Stable key (tests, telemetry-free logs). */
  id: 'gemini' | 'claude' | 'codex' | 'qwen' | 'opencode' | 'goose';
  /** The `name` the `accord.agents` entry gets. */
  name: string;
  /** The program on PATH once installed. */
  command: string;
  /** Arguments that make it speak ACP on stdio. */
  args: string[];
  /** Its npm package, where it has one (offered for `npm install -g` with consent; also runnable with npx). */
  npm?: string;
  /** Where to get it when it is not on npm. */
  installPage?: string;
  /** How a person signs in, for the confirmation after adding it (Accord never hands it stored keys). */
  auth: string;
  /** Environment variables holding an API key that the agent reads (put them in the entry's `env`). */
  keyEnv: string[];
  /**
   * How to point it at another model endpoint, where it can be: the variable
   * naming the base URL and the protocol it speaks there. The opt-in suite
   * uses this to drive a turn against the fake model server.
   */
  endpoint?: {
    baseUrlEnv: string;
    keyEnv: string;
    protocol: ModelProtocol;
    extraEnv?: Record<string, string>;
    /** The auth method a person with an API key picks when the agent asks for a sign-in. */
    keyMethod?: string;
  };
}

export const CATALOGUE: readonly CatalogueAgent[] = [
  {
    id: 'gemini',
    name: 'Gemini CLI',
    command: 'gemini',
    args: ['--acp'],
    npm: '@google/gemini-cli',
    auth: 'Sign in with Google, or set GEMINI_API_KEY in the entry\'s env; the agent offers both when it starts.',
    keyEnv: ['GEMINI_API_KEY'],
  },
  {
    id: 'claude',
    name: 'Claude Code',
    command: 'claude-agent-acp',
    args: [],
    npm: '@agentclientprotocol/claude-agent-acp',
    auth: 'Log in with your Claude account in a terminal (the agent offers it), or set ANTHROPIC_API_KEY in the entry\'s env.',
    keyEnv: ['ANTHROPIC_API_KEY'],
    endpoint: { baseUrlEnv: 'ANTHROPIC_BASE_URL', keyEnv: 'ANTHROPIC_API_KEY', protocol: 'anthropic' },
  },
  {
    id: 'codex',
    name: 'Codex',
    command: 'codex-acp',
    args: [],
    npm: '@agentclientprotocol/codex-acp',
    auth: 'Sign in with ChatGPT (the agent offers it), or set OPENAI_API_KEY (or CODEX_API_KEY) in the entry\'s env.',
    keyEnv: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
    endpoint: { baseUrlEnv: 'OPENAI_BASE_URL', keyEnv: 'OPENAI_API_KEY', protocol: 'openai-responses', keyMethod: 'api-key' },
  },
  {
    id: 'qwen',
    name: 'Qwen Code',
    command: 'qwen',
    args: ['--acp'],
    npm: '@qwen-code/qwen-code',
    auth: 'Sign in with Qwen OAuth, or use an OpenAI-compatible key: OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL in the entry\'s env.',
    keyEnv: ['OPENAI_API_KEY'],
    endpoint: { baseUrlEnv: 'OPENAI_BASE_URL', keyEnv: 'OPENAI_API_KEY', protocol: 'openai-chat', extraEnv: { OPENAI_MODEL: 'fake-model' } },
  },
  {
    id: 'opencode',
    name: 'OpenCode',
    command: 'opencode',
    args: ['acp'],
    npm: 'opencode-ai',
    auth: 'Run "opencode auth login" (the agent offers it as a terminal sign-in) to choose a provider and store its key.',
    keyEnv: [],
  },
  {
    id: 'goose',
    name: 'Goose',
    command: 'goose',
    args: ['acp'],
    installPage: 'https://block.github.io/goose/docs/getting-started/installation',
    auth: 'Run "goose configure" in a terminal once to choose a provider and store its key.',
    keyEnv: [],
  },
];

/** The `accord.agents` entry for a catalogue agent, started from PATH or (not installed globally) through npx. */
export function agentEntry(agent: CatalogueAgent, via: 'path' | 'npx'): { name: string; command: string; args: string[] } {
  if (via === 'npx' && agent.npm) return { name: agent.name, command: 'npx', args: ['--yes', agent.npm, ...agent.args] };
  return { name: agent.name, command: agent.command, args: [...agent.args] };
}

/** The argv of the consented global install (no shell: the package name is ours, but nothing is ever spliced into a shell line). */
export function installCommand(agent: CatalogueAgent): { command: string; args: string[] } | undefined {
  if (!agent.npm) return undefined;
  return { command: process.platform === 'win32' ? 'npm.cmd' : 'npm', args: ['install', '--global', agent.npm] };
}
