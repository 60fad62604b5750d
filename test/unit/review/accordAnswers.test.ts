// The extension's calls to the agent's `_accord/*` methods check every
// answer against the shared schema (protocol/accordMethods.ts): an answer
// of the wrong shape, as a hostile or mismatched agent sends, is a clear
// error naming the method, and nothing reaches the review.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReviewStore, type RealTree } from '../../../extension/review/reviewStore';
import { IsolatedWorkspaceSource, servesChanges, WORKSPACE_METHODS } from '../../../extension/review/isolatedSource';

import { methodsCapability } from '../../../protocol/accordMethods';

const emptyTree: RealTree = { read: async () => null, write: async () => undefined };
const status = { mode: 'shadow-copy', root: '/agent', applyTo: '/project', base: 'abc', sandbox: { state: 'unsandboxed', reason: 'test' }, linkedReadOnly: [] };
const goodList = { changes: [{ path: 'a.txt', status: 'modified', additions: 1, deletions: 1, binary: false }] };
const goodFile = { path: 'a.txt', baseText: 'a\n', currentText: 'b\n', binary: false };

/** A stand-in agent whose answer to `broken` is `answer`; the other methods answer well. */
function agentAnswering(broken: string, answer: unknown) {
  return async (method: string): Promise<unknown> => {
    if (method === broken) return answer;
    if (method === WORKSPACE_METHODS.status) return status;
    if (method === WORKSPACE_METHODS.listChanges) return goodList;
    if (method === WORKSPACE_METHODS.readFile) return goodFile;
    throw new Error(`unexpected ${method}`);
  };
}

describe("the extension checks the agent's answers against the shared schema", () => {
  test('a well-formed agent is reviewed', async () => {
    const store = new ReviewStore(emptyTree);
    await new IsolatedWorkspaceSource(store, agentAnswering('', undefined), '/project').endTurn('s', 't1');
    assert.equal(store.all().length, 1);
  });

  const cases: Array<[string, string, unknown, RegExp]> = [
    ['a status with an unknown mode', WORKSPACE_METHODS.status, { ...status, mode: 'everywhere' }, /_accord\/workspace\/status.*mode/],
    ['a status without its root', WORKSPACE_METHODS.status, { ...status, root: undefined }, /_accord\/workspace\/status.*root/],
    ['a list that is not a list', WORKSPACE_METHODS.listChanges, { changes: 'a.txt' }, /_accord\/changes\/list/],
    ['a change with a numeric path', WORKSPACE_METHODS.listChanges, { changes: [{ ...goodList.changes[0], path: 7 }] }, /_accord\/changes\/list.*changes\.0\.path/],
    ['a file whose text is an object', WORKSPACE_METHODS.readFile, { ...goodFile, currentText: { toString: 'x' } }, /_accord\/changes\/file.*currentText/],
    ['no answer at all', WORKSPACE_METHODS.readFile, null, /_accord\/changes\/file/],
  ];
  for (const [name, method, answer, message] of cases) {
    test(`attack: ${name} is refused by name and nothing is proposed`, async () => {
      const store = new ReviewStore(emptyTree);
      const source = new IsolatedWorkspaceSource(store, agentAnswering(method, answer), '/project');
      await assert.rejects(source.endTurn('s', 't1'), (error: Error) => message.test(error.message) && /update the agent and Accord together/.test(error.message));
      assert.equal(store.all().length, 0);
    });
  }

  test("the review uses an agent's copy only when its method list names every method the review calls (or the older flag)", () => {
    const info = (meta: unknown) => ({ name: 'x', info: { agentCapabilities: { _meta: meta as Record<string, unknown> } } });
    assert.equal(servesChanges(info(methodsCapability()) as never), true);
    assert.equal(servesChanges(info({ 'accord/methods': { '_accord/changes/list': 1 } }) as never), false, 'a partial list is not enough');
    assert.equal(servesChanges(info({ accord: { changes: 1 } }) as never), true, 'an agent older than the list');
    assert.equal(servesChanges(info(undefined) as never), false);
  });
});
