// What a session log's recorded config means when the session is loaded
// again: the settings it runs with and the flags its creator granted. The
// config is read from disk, so every field is checked, never trusted.
import type { ReasoningEffort, SessionSettings } from '../core/session';
import { isModeId } from '../core/modes';
import type { Env } from '../models/credentials';
import { defaultModelId } from '../models/resolve';
import { FLAGS_CONFIG_KEY, type SessionFlags } from './sharing';

const efforts: ReasoningEffort[] = ['off', 'low', 'medium', 'high'];

/** The flags the session's creator granted, as its log recorded them; anything but `true` grants nothing. */
export function flagsFromConfig(config: Record<string, unknown> | undefined): SessionFlags {
  const raw = config?.[FLAGS_CONFIG_KEY];
  if (raw === null || typeof raw !== 'object') return {};
  const { alwaysApprove, durableRequests } = raw as Record<string, unknown>;
  return { ...(alwaysApprove === true ? { alwaysApprove } : {}), ...(durableRequests === true ? { durableRequests } : {}) };
}

/** The settings a loaded session runs with: the recorded ones where they are valid, the defaults otherwise. */
export async function settingsFrom(config: Record<string, unknown>, env: Env): Promise<SessionSettings> {
  const model = typeof config.model === 'string' ? config.model : await defaultModelId(env);
  const effort = efforts.find((e) => e === config.reasoningEffort) ?? 'medium';
  return { model, reasoningEffort: effort, ...(isModeId(config.mode) ? { mode: config.mode } : {}) };
}
