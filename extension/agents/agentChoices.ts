// What "Add Agent" offers for each catalogue agent, given what is installed
// and what is already configured. Pure (no vscode import): the command turns
// these into quick-pick items, the unit tests check them directly.
import type { CatalogueAgent } from './catalogue';
import type { Presence } from './detect';

export type AgentChoice =
  | { agent: CatalogueAgent; action: 'add'; via: 'path' | 'npx'; where: string }
  | { agent: CatalogueAgent; action: 'install' }
  | { agent: CatalogueAgent; action: 'manual'; page: string }
  | { agent: CatalogueAgent; action: 'configured'; as: string };

/**
 * One choice per catalogue agent. An agent counts as configured when an
 * `accord.agents` entry has its name or runs its program (whatever it was named).
 */
export function agentChoices(
  catalogue: readonly CatalogueAgent[],
  presence: (agent: CatalogueAgent) => Presence,
  configured: readonly { name: string; command: string; args: readonly string[] }[],
): AgentChoice[] {
  return catalogue.map((agent): AgentChoice => {
    const existing = configured.find((c) => c.name === agent.name || runsAgent(c, agent));
    if (existing) return { agent, action: 'configured', as: existing.name };
    const found = presence(agent);
    if (found.state !== 'missing') return { agent, action: 'add', via: found.state, where: found.path };
    if (agent.npm) return { agent, action: 'install' };
    return { agent, action: 'manual', page: agent.installPage ?? '' };
  });
}

function runsAgent(entry: { command: string; args: readonly string[] }, agent: CatalogueAgent): boolean {
  const program = entry.command.split(/[\\/]/).pop()?.replace(/\.(cmd|exe|bat)$/i, '');
  if (program === agent.command) return true;
  return program === 'npx' && agent.npm !== undefined && entry.args.includes(agent.npm);
}
