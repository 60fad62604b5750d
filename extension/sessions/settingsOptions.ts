// The model, reasoning-effort and (bundled agent only) mode settings, and
// the config option of a session that would carry each.
import type { SessionConfigOption } from '@agentclientprotocol/sdk/unstable';
import { bundledAgentMode, modelSetting, reasoningEffort } from '../settings/settings';
import type { CurrentSession } from './sessionTypes';

/** [config option category, value] for each setting that asks for something. */
export function wantedSettings(session: CurrentSession): [string, string][] {
  const wanted: [string, string][] = [];
  const model = modelSetting();
  const effort = reasoningEffort();
  if (model) wanted.push(['model', model]);
  if (effort !== 'default') wanted.push(['thought_level', effort]);
  // Only the bundled agent: another agent's "auto" may mean something else entirely (e.g. approve every command).
  if (session.host.definition === 'bundled') wanted.push(['mode', bundledAgentMode()]);
  return wanted;
}

/** The id of the session's option to set to `value`; undefined when none offers it or it is already so. */
export function optionToSet(session: CurrentSession, category: string, value: string): string | undefined {
  const option = session.configOptions.find((o) => o.category === category && o.type === 'select');
  return option && selectValues(option).includes(value) && option.currentValue !== value ? option.id : undefined;
}

function selectValues(option: SessionConfigOption): string[] {
  return option.type === 'select' ? option.options.flatMap((o) => ('options' in o ? o.options : [o])).map((o) => o.value) : [];
}
