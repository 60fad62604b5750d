// session/set_config_option and session/set_mode: the two ways a client
// changes a session's settings. Either change answers with (and announces)
// the whole set, and a mode change is announced both ways, so a v1 client
// that reads only `modes` and one that reads only config options agree.
import { methods, RequestError, type AgentApp, type AgentContext, type SessionModeState } from '@agentclientprotocol/sdk/unstable';
import { ModeError, MODES, modeOf, parseMode } from '../core/modes';
import type { Session } from '../core/session';
import type { ClientModelHost } from '../models/clientModel';
import type { Env } from '../models/credentials';
import { applyConfigOption, ConfigValueError, configOptionsFor, readConfigOptionChange } from './configOptions';

export interface SettingsDeps {
  env: Env;
  /** The session by id, or RequestError.sessionNotFound. */
  sessionOf(sessionId: string): Session;
  /** The models the calling client lends (vscode.lm), offered beside the agent's own; none for a client that lends none. */
  modelsOf(client: AgentContext | undefined): ClientModelHost | undefined;
  /** The session log records the new settings. */
  changed?(session: Session): void;
}

/** v1's `modes` for session/new, load and resume responses. */
export function modeStateOf(session: Session): SessionModeState {
  return { currentModeId: modeOf(session.settings), availableModes: MODES.map(({ id, name, description }) => ({ id, name, description })) };
}

export function registerSettingsMethods(app: AgentApp, deps: SettingsDeps): AgentApp {
  /** Records and announces a change; the mode's own announcement only when the mode moved. */
  const announce = async (session: Session, modeBefore: string, models: ClientModelHost | undefined) => {
    deps.changed?.(session);
    const configOptions = await configOptionsFor(session, deps.env, models);
    await session.updates.emit({ sessionUpdate: 'config_option_update', configOptions });
    const mode = modeOf(session.settings);
    if (mode !== modeBefore) await session.updates.emit({ sessionUpdate: 'current_mode_update', currentModeId: mode });
    return configOptions;
  };

  return app
    .onRequest(
      methods.agent.session.setConfigOption,
      // Accord's own reading of the params: the SDK's would refuse `{"value": "..."}` and a bare boolean without naming the option.
      (params: unknown) => {
        try {
          return readConfigOptionChange(params);
        } catch (error) {
          throw RequestError.invalidParams({}, error instanceof Error ? error.message : String(error));
        }
      },
      async ({ params, client }) => {
        const session = deps.sessionOf(params.sessionId);
        const modeBefore = modeOf(session.settings);
        const models = deps.modelsOf(client);
        try {
          await applyConfigOption(session, deps.env, params.configId, params.value, models);
        } catch (error) {
          if (error instanceof ConfigValueError || error instanceof ModeError) throw RequestError.invalidParams({ configId: params.configId }, error.message);
          throw error;
        }
        return { configOptions: await announce(session, modeBefore, models) };
      },
    )
    .onRequest(methods.agent.session.setMode, async ({ params, client }) => {
      const session = deps.sessionOf(params.sessionId);
      const modeBefore = modeOf(session.settings);
      try {
        session.settings = { ...session.settings, mode: parseMode(params.modeId) };
      } catch (error) {
        if (error instanceof ModeError) throw RequestError.invalidParams({ modeId: params.modeId }, error.message);
        throw error;
      }
      await announce(session, modeBefore, deps.modelsOf(client));
      return {};
    });
}

