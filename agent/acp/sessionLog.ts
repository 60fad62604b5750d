// The Accord agent with the session log behind it: every session is recorded
// from session/new on (sessionLogPersistence.ts), and session/load,
// session/resume, session/list and session/close are served from the logs
// (sessionLogMethods.ts). The recording itself goes through the core's seams
// (update emitter, history append) plus the persistence hooks.
import type { AgentApp } from '@agentclientprotocol/sdk/unstable';
import type { Session } from '../core/session';
import { MemorySessionStore, type SessionStore as LiveSessions } from '../core/sessionStore';
import { builtinCommands } from '../core/slashCommands';
import type { AvailableCommand } from '../core/updates';
import { SessionStore } from '../log';
import { createAccordAgent, type AccordAgentOptions } from './app';
import { ClientFeatureBook } from './clientView';
import { registerLogMethods } from './sessionLogMethods';
import { SessionLogPersistence } from './sessionLogPersistence';

declare const ACCORD_VERSION: string;
const version = typeof ACCORD_VERSION === 'string' ? ACCORD_VERSION : '0.0.0-dev';

/**
 * The Accord agent with every session recorded in `logs` and served back by
 * load/resume/list/close. Call `closeLogs` when the connection ends: it writes
 * and syncs what is still batched and releases the locks.
 */
export function createLoggedAgent(options: AccordAgentOptions, logs: SessionStore = new SessionStore()): { app: AgentApp; closeLogs(): Promise<void> } {
  const live = options.store ?? new MemorySessionStore();
  const persistence = new SessionLogPersistence(logs, version);
  return { app: loggedAgentApp(options, persistence, live), closeLogs: () => persistence.closeAll() };
}

/** One connection's app over sessions and logs that may be shared with other connections (the daemon). */
export function loggedAgentApp(options: AccordAgentOptions, persistence: SessionLogPersistence, live: LiveSessions): AgentApp {
  const clientFeatures = options.clientFeatures ?? new ClientFeatureBook();
  let commandsFor: (session: Session) => AvailableCommand[] = () => [...builtinCommands];
  const app = createAccordAgent({
    ...options,
    commandsFor: (list) => (commandsFor = list),
    clientFeatures,
    store: live,
    persistence,
    extraCapabilities: { loadSession: true, sessionCapabilities: { list: {}, resume: {}, close: {} } },
  });
  return registerLogMethods(persistence, app, live, options.env, {
    ...(options.isolation ? { isolation: options.isolation } : {}),
    ...(options.sharing ? { sharing: options.sharing } : {}),
    ...(options.durable ? { durable: options.durable } : {}),
    features: clientFeatures,
    commandsFor: (session) => commandsFor(session),
  });
}
