// Points the bundled agent at the fake model server: the agent gets the
// extension host's ACCORD_* and provider variables at spawn (agents/agentEnv.ts), so the test sets it there and puts
// everything back afterwards.
import * as vscode from 'vscode';

const KEYS = ['ANTHROPIC_API_KEY', 'ACCORD_ANTHROPIC_BASE_URL', 'ACCORD_HOME', 'ACCORD_CONFIG_DIR', 'ACCORD_LOCAL_SERVERS'] as const;

/** Returns a function that restores the environment and the model setting. */
export async function useFakeModel(baseUrl: string, home: string): Promise<() => Promise<void>> {
  const saved = Object.fromEntries(KEYS.map((key) => [key, process.env[key]]));
  Object.assign(process.env, { ANTHROPIC_API_KEY: 'test-key', ACCORD_ANTHROPIC_BASE_URL: baseUrl, ACCORD_HOME: home, ACCORD_CONFIG_DIR: home, ACCORD_LOCAL_SERVERS: '' });
  await vscode.workspace.getConfiguration('accord').update('model', 'anthropic:claude-sonnet-4-5', vscode.ConfigurationTarget.Global);
  return async () => {
    for (const key of KEYS) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
    await vscode.workspace.getConfiguration('accord').update('model', undefined, vscode.ConfigurationTarget.Global);
  };
}
