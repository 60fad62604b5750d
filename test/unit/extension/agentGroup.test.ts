// A third-party agent is stopped as a process group (extension/agents/agentGroup.ts):
// real agents are launchers whose second process outlived a SIGTERM to the first
// (codex-acp's npm bin runs the native binary with spawnSync; that binary ignores
// the end of its stdin too). Real processes; gone-ness is polled, never timed.
import { describe, test } from 'node:test';
import { pidAlive } from '../../support/pidAlive';
import assert from 'node:assert/strict';
import { spawnInGroup } from '../../../extension/agents/agentGroup';

const skip = process.platform === 'win32' ? 'process groups are POSIX' : false;

/** A launcher that starts `grandchild` (Node code), prints its pid, and stays until signalled. */
function launcher(grandchild: string, launcherExitsAtOnce = false): string {
  return `
    const { spawn } = require('node:child_process');
    const c = spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'ignore' });
    console.log(c.pid);
    ${launcherExitsAtOnce ? 'process.exit(0);' : 'setInterval(() => {}, 1000);'}
  `;
}

async function gone(pid: number): Promise<void> {
  while (pidAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
}

function start(code: string) {
  const child = spawnInGroup(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'pipe'] }, { graceMs: 50 });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const grandchild = new Promise<number>((resolve) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
  });
  return { child, exited, grandchild };
}

describe('an agent stopped as a process group', { skip }, () => {
  test("stop ends the agent and the process it launched (codex-acp's wrapper and binary)", async () => {
    const { child, exited, grandchild } = start(launcher('setInterval(() => {}, 1000)'));
    const pid = await grandchild;
    assert.ok(pidAlive(pid));
    assert.equal(child.kill(), true);
    await exited;
    await gone(pid);
  });

  test('a launched process that ignores SIGTERM is killed after the grace', async () => {
    const { child, exited, grandchild } = start(launcher("process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"));
    const pid = await grandchild;
    child.kill();
    await exited;
    await gone(pid);
  });

  test('attack: a launcher that exits at once, leaving its process behind, does not take it out of reach', async () => {
    const { child, exited, grandchild } = start(launcher("process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)", true));
    const pid = await grandchild;
    await exited; // the leader is gone; its group is not
    assert.ok(pidAlive(pid));
    child.kill();
    await gone(pid);
  });

  test('stopping twice, or after everything ended, is harmless', async () => {
    const { child, exited } = start('process.exit(0)');
    await exited;
    child.kill();
    child.kill('SIGKILL');
  });
});
