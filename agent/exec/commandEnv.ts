// The environment a command sees: the agent's own, minus credentials, plus the
// call's approved additions. Model keys reach the agent process so it can call
// providers; they must never reach a command the model chose.

const SECRET_NAME = /(API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY|AUTH)/i;

export function isSecretName(name: string): boolean {
  return name.startsWith('ACCORD_') || SECRET_NAME.test(name);
}

export function commandEnv(base: NodeJS.ProcessEnv, additions: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !isSecretName(name)) env[name] = value;
  }
  return { ...env, ...additions };
}
