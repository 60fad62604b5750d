// `/compact [focus]`: compacts the whole history now, between turns. The turn
// ends `end_turn` whether it worked or not; a failure keeps the history and
// the client is told why (compaction_update failed, or a message).
import type { Session } from './session';
import { compact } from './compaction';
import { modelTools, type TurnDeps } from './turn';
import type { StopReason } from './updates';

export async function runCompactCommand(session: Session, instructions: string, deps: TurnDeps): Promise<StopReason> {
  const signal = session.beginTurn();
  const say = (text: string) => session.updates.emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  try {
    if (session.history.length === 0) {
      await say('There is nothing to compact yet: the conversation is empty.');
      return 'end_turn';
    }
    let model;
    try {
      model = await deps.model(session);
    } catch (error) {
      await say(`Cannot compact: ${error instanceof Error ? error.message : String(error)}`);
      return 'end_turn';
    }
    const outcome = await compact(session, {
      model,
      tools: await modelTools(deps.tools),
      signal,
      keepFrom: session.history.length,
      maxRetries: deps.maxRetries,
      ...(instructions ? { instructions } : {}),
      ...(deps.observer ? { onUsage: deps.observer.usage.bind(deps.observer) } : {}),
    });
    if (!outcome.ok && outcome.cancelled) return 'cancelled';
    return 'end_turn';
  } finally {
    session.endTurn();
  }
}
