// Every model the bundled agent could use, known without a session: the
// keyed providers whose key is set (SecretStorage or the environment), the
// models VS Code lends (GitHub Copilot and other `vscode.lm` providers), and
// the local servers answering on their usual ports. The panel's setup card and
// its model picker before a session both read this.
import { KEYED_PROVIDERS, PROVIDER_KEY_ENV, PROVIDER_LABELS, PROVIDER_MODELS, localServerName } from '../../agent/models/catalog';
import { detectLocalServers, type LocalServer } from '../../agent/models/detect';
import { vendorLabel } from '../../agent/models/modelId';
import type { LmModelInfo } from '../../protocol/accordMethods';
import type { ModelSetup } from '../../webview/protocol';

export interface CatalogInputs {
  /** `accord.model` ('' when unset). */
  setting: string;
  /** Keys stored with "Set API Key", by variable name. */
  storedKeys: Record<string, string>;
  /** The extension host's environment (the bundled agent inherits its provider variables). */
  env: Record<string, string | undefined>;
  vscodeModels: LmModelInfo[];
  localServers: LocalServer[];
}

/** Probes the local servers as the agent does (`ACCORD_LOCAL_SERVERS` overrides the default ports). */
export function findLocalServers(env: Record<string, string | undefined>): Promise<LocalServer[]> {
  return detectLocalServers(env);
}

const MAX_MODELS_PER_GROUP = 500;
const short = (text: string) => (text.length > 200 ? `${text.slice(0, 199)}…` : text);

export function modelSetup(inputs: CatalogInputs): ModelSetup {
  const { setting, storedKeys, env } = inputs;
  const keyed = KEYED_PROVIDERS.filter((p) => storedKeys[PROVIDER_KEY_ENV[p]] || env[PROVIDER_KEY_ENV[p]]);
  const current = setting || env.ACCORD_MODEL || undefined;
  const groups: ModelSetup['groups'] = keyed.map((p) => ({
    name: PROVIDER_LABELS[p],
    models: PROVIDER_MODELS[p].map((m) => ({ value: `${p}:${m}`, name: m })),
  }));
  const byVendor = new Map<string, LmModelInfo[]>();
  for (const m of inputs.vscodeModels) byVendor.set(m.vendor, [...(byVendor.get(m.vendor) ?? []), m]);
  for (const [vendor, models] of byVendor) {
    groups.push({ name: short(vendorLabel(vendor)), models: models.slice(0, MAX_MODELS_PER_GROUP).map((m) => ({ value: `vscode-lm:${m.vendor}/${m.id}`, name: short(m.name) })) });
  }
  for (const server of inputs.localServers.slice(0, 10)) {
    groups.push({
      name: short(`${localServerName(server.baseUrl)} (${new URL(server.baseUrl).host})`),
      // A name too long to be a real model id is left out rather than cut: a cut id would name another model.
      models: server.models.filter((m) => m.length <= 200).slice(0, MAX_MODELS_PER_GROUP).map((m) => ({ value: `openai-compatible:${server.baseUrl}#${m}`, name: m })),
    });
  }
  return {
    needsModel: !current && keyed.length === 0,
    ...(current ? { current: short(current) } : {}),
    groups: groups.slice(0, 50),
    vscodeModels: inputs.vscodeModels.length,
    localServers: inputs.localServers.slice(0, 10).map((s) => ({ name: short(localServerName(s.baseUrl)), baseUrl: short(s.baseUrl), models: s.models.length })),
  };
}
