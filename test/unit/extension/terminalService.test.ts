// ACP terminal/create from a hostile agent, run by the real TerminalService
// (real child processes) with a stand-in for the `vscode` module: an agent
// that opens terminal after terminal must not fill the machine with processes
// and the editor with terminals.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { installVscodeStub, StubEventEmitter } from '../../support/vscodeStub';

let terminalsShown = 0;
// The `vscode` module the service imports: an event emitter and a terminal factory are all it needs.
installVscodeStub({ EventEmitter: StubEventEmitter, window: { createTerminal: () => (terminalsShown++, { dispose: () => undefined }) } });

type Terminals = typeof import('../../../extension/terminal/terminalService');

describe('attack: an agent that opens terminals without end', () => {
  let MAX_RUNNING_TERMINALS = 0;
  let MAX_KEPT_TERMINALS = 0;
  let service: InstanceType<Terminals['TerminalService']>;
  before(async () => {
    const terminals: Terminals = await import('../../../extension/terminal/terminalService');
    ({ MAX_RUNNING_TERMINALS, MAX_KEPT_TERMINALS } = terminals);
    service = new terminals.TerminalService(() => process.cwd());
  });
  after(() => service.dispose());

  test('at most MAX_RUNNING_TERMINALS run at once per agent; another agent is not held by it; releasing makes room', { timeout: 60_000 }, async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_RUNNING_TERMINALS; i++) ids.push(service.create({ sessionId: 's', command: 'sleep', args: ['30'] } as never, 'hostile').terminalId);
    assert.throws(() => service.create({ sessionId: 's', command: 'sleep', args: ['30'] } as never, 'hostile'), /at most \d+ terminals/);
    assert.equal(terminalsShown, MAX_RUNNING_TERMINALS, 'a refused terminal was shown anyway');
    const other = service.create({ sessionId: 'o', command: 'true' } as never, 'other').terminalId;
    await service.waitForExit(other);
    service.release(ids.shift()!);
    const again = service.create({ sessionId: 's', command: 'true' } as never, 'hostile').terminalId;
    await service.waitForExit(again);
    for (const id of [...ids, again, other]) service.release(id);
  });

  test('finished terminals the agent never releases are let go oldest first past MAX_KEPT_TERMINALS, never refused', { timeout: 120_000 }, async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_KEPT_TERMINALS + 5; i++) {
      const { terminalId } = service.create({ sessionId: 's', command: 'true' } as never, 'sloppy');
      await service.waitForExit(terminalId);
      ids.push(terminalId);
    }
    assert.throws(() => service.output(ids[0]!), /No terminal/);
    assert.equal(service.output(ids.at(-1)!).exitStatus?.exitCode, 0);
  });
});
