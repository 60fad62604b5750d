// The paths a third-party agent names in fs/read_text_file and fs/write_text_file.
// VS Code's Uri.file keeps ".." segments, and getWorkspaceFolder matches a URI's
// segments against the folder's: "<ws>/../.ssh/authorized_keys" counts as inside
// the workspace, and accepting the staged write would land it outside. Every
// path is made canonical (absolute, no "." or "..") before any such check.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { agentPath } from '../../../extension/client/agentPaths';

describe('agent paths', () => {
  test('attack: ".." and "." segments are resolved before the workspace check sees the path', () => {
    assert.equal(agentPath('/home/p/proj/../.ssh/authorized_keys'), '/home/p/.ssh/authorized_keys');
    assert.equal(agentPath('/home/p/proj/src/../../../../etc/passwd'), '/etc/passwd');
    assert.equal(agentPath('/home/p/proj/./src//a.ts'), '/home/p/proj/src/a.ts');
    assert.equal(agentPath('/home/p/proj/src/'), '/home/p/proj/src');
  });

  test('relative paths, NUL and empty strings are refused with the reason', () => {
    for (const bad of ['src/a.ts', './a', '', 'proj/../../x', '/home/p/proj/a\u0000.ts']) {
      assert.throws(() => agentPath(bad), /absolute|NUL/, JSON.stringify(bad));
    }
  });

  test('happy: a plain absolute path comes back as it was; a Windows drive path keeps its drive', () => {
    assert.equal(agentPath('/home/p/proj/src/a.ts'), '/home/p/proj/src/a.ts');
    assert.equal(agentPath('C:\\Users\\p\\proj\\..\\x.txt', 'win32'), 'C:\\Users\\p\\x.txt');
  });
});
