// What of the data directory commands may read, computed without a sandbox:
// the session's own copy always, the project only when it is inside the data
// directory and holds none of Accord's state, never another session.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { commandReadView } from '../../../agent/session/commandView';
import type { IsolatedWorkspace, WorkspaceMode } from '../../../agent/session/isolated';
import { isWithin } from '../../../agent/workspace/containment';

let dir = '';
before(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'accord-view-')));
});
after(() => rm(dir, { recursive: true, force: true }));

async function workspaceAt(data: string, id: string, mode: WorkspaceMode, source: string, borrowed?: string): Promise<IsolatedWorkspace> {
  const session = path.join(data, 'sessions', id);
  const gitDir = path.join(session, mode === 'in-place' ? 'snapshots.git' : 'git');
  await mkdir(path.join(gitDir, 'objects', 'info'), { recursive: true });
  if (borrowed) await writeFile(path.join(gitDir, 'objects', 'info', 'alternates'), `${borrowed}\n`);
  const workTree = mode === 'in-place' ? source : path.join(session, 'ws');
  return { sessionId: id, mode, source, workTree, root: workTree, gitDir, applyTo: source, base: '', tmp: path.join(session, 'tmp'), privateDir: path.join(data, 'private', id), linkedReadOnly: [] };
}

describe('commandReadView', () => {
  test('a project outside the data directory: the data directory hidden, only the own copy and its objects readable', async () => {
    const data = path.join(dir, 'd1');
    const ws = await workspaceAt(data, 'A', 'git-clone', path.join(dir, 'proj'), path.join(dir, 'proj', '.git', 'objects'));
    const view = await commandReadView(ws, data);
    assert.ok(view.hidden.includes(data));
    assert.deepEqual(view.readable.sort(), [ws.workTree, ws.tmp, path.join(ws.gitDir, 'objects')].sort());
  });

  test('a project inside the data directory is readable again, with the objects it lends', async () => {
    const data = path.join(dir, 'd2');
    const project = path.join(data, 'code', 'p');
    const ws = await workspaceAt(data, 'A', 'git-clone', project, path.join(project, '.git', 'objects'));
    const view = await commandReadView(ws, data);
    assert.ok(view.readable.includes(project));
    assert.ok(view.readable.includes(path.join(project, '.git', 'objects')));
  });

  test('attack: a project that is the data directory, or names another session, gives back nothing of it', async () => {
    const data = path.join(dir, 'd3');
    for (const source of [data, path.join(data, 'sessions'), path.join(data, 'sessions', 'B', 'ws'), path.join(data, 'private')]) {
      const ws = await workspaceAt(data, 'A', 'git-clone', source, path.join(data, 'sessions', 'B', 'git', 'objects'));
      const view = await commandReadView(ws, data);
      assert.deepEqual(view.readable.sort(), [ws.workTree, ws.tmp, path.join(ws.gitDir, 'objects')].sort(), source);
    }
  });

  test('attack: in place on the data directory or inside its sessions is refused', async () => {
    const data = path.join(dir, 'd4');
    for (const source of [data, path.join(data, 'sessions'), path.join(data, 'sessions', 'B', 'ws'), path.join(data, 'private', 'B')]) {
      await mkdir(source, { recursive: true });
      await assert.rejects(commandReadView(await workspaceAt(data, 'A', 'in-place', source), data), /holds Accord's own session data/, source);
    }
  });

  test('property: nothing readable lies in another session or in private/, or is the data directory or above it (but an in-place work tree)', async () => {
    const data = path.join(dir, 'd5');
    await mkdir(data, { recursive: true });
    const places = ['', 'sessions', 'sessions/B', 'sessions/B/ws', 'sessions/B/git/objects', 'private', 'private/A', 'code', 'code/p', 'code/p/.git/objects', '..', '../elsewhere', '../elsewhere/.git/objects'];
    const place = fc.constantFrom(...places).map((p) => path.join(data, p));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<WorkspaceMode>('git-clone', 'shadow-copy', 'in-place'), place, place, async (mode, source, borrowed) => {
        const ws = await workspaceAt(data, 'A', mode, source, mode === 'in-place' ? undefined : borrowed);
        const own = path.join(data, 'sessions', 'A');
        const view = await commandReadView(ws, data).catch(() => undefined);
        if (!view) return;
        for (const readable of view.readable) {
          if (isWithin(own, readable)) continue;
          // In place in a project holding the data directory: srt keeps a deny nested in an allowed path (dataDirHidden.test.ts runs it).
          if (mode === 'in-place' && readable === ws.workTree) continue;
          assert.ok(!isWithin(readable, data), readable);
          assert.ok(!isWithin(path.join(data, 'sessions'), readable) && !isWithin(path.join(data, 'private'), readable), readable);
        }
      }),
      { numRuns: 200 },
    );
  });
});
