// `Accord: Set API Key`: provider keys live in VS Code's SecretStorage and
// reach only the bundled agent's environment, at spawn. They are never sent
// over ACP, never shown, and third-party agents never receive them.
import * as vscode from 'vscode';
import { KEYED_PROVIDERS, PROVIDER_KEY_ENV, PROVIDER_LABELS } from '../../agent/models/catalog';

/** Exactly the providers the bundled agent reaches with a key (agent/models/catalog.ts), under the variable it reads. */
export const PROVIDERS = KEYED_PROVIDERS.map((p) => ({ label: PROVIDER_LABELS[p], env: PROVIDER_KEY_ENV[p] }));

const secretKey = (env: string) => `accord.apiKey.${env}`;

export class ApiKeys {
  private cached: Record<string, string> = {};

  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** The environment the bundled agent is spawned with. */
  async environment(): Promise<Record<string, string>> {
    // All at once: in a remote or web window each read is a round trip, and the agent's start waits for them.
    const values = await Promise.all(PROVIDERS.map((p) => this.secrets.get(secretKey(p.env))));
    const env: Record<string, string> = {};
    PROVIDERS.forEach((p, i) => {
      const value = values[i];
      if (value) env[p.env] = value;
    });
    this.cached = env;
    return env;
  }

  /** Stored values, for redaction in the traffic log. */
  knownValues(): string[] {
    return Object.values(this.cached);
  }

  /** Asks for a provider and key; returns true when a key was stored or removed. */
  async prompt(): Promise<boolean> {
    const pick = await vscode.window.showQuickPick(
      PROVIDERS.map((p) => ({ label: p.label, description: p.env, provider: p })),
      { title: vscode.l10n.t('Accord: Set API Key'), placeHolder: vscode.l10n.t('Which provider is the key for?') },
    );
    if (!pick) return false;
    const value = await vscode.window.showInputBox({
      title: vscode.l10n.t('{0} API key', pick.label),
      prompt: vscode.l10n.t("Stored in VS Code's secret storage and given only to the bundled agent. Leave empty to remove the stored key."),
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() && /\s/.test(v.trim()) ? vscode.l10n.t('An API key has no spaces.') : undefined),
    });
    if (value === undefined) return false;
    if (value.trim()) await this.secrets.store(secretKey(pick.provider.env), value.trim());
    else await this.secrets.delete(secretKey(pick.provider.env));
    await this.environment();
    return true;
  }
}
