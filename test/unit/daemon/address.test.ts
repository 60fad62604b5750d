// Where the daemon listens: one socket per data directory, under
// XDG_RUNTIME_DIR when set (ACCORD_HOME keeps it beside its data), and a
// per-user temp directory when the path would be too long for a socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { defaultDaemonAddress, nameTag } from '../../../agent/daemon/address';

test('the daemon address follows the data directory', () => {
  const xdg = defaultDaemonAddress({ XDG_RUNTIME_DIR: '/run/user/1000', HOME: '/home/a' }, 'linux');
  assert.equal(xdg.dir, '/run/user/1000/accord');
  assert.match(xdg.path, /^\/run\/user\/1000\/accord\/daemon-[0-9a-f]{12}\.sock$/);
  const other = defaultDaemonAddress({ XDG_RUNTIME_DIR: '/run/user/1000', XDG_STATE_HOME: '/elsewhere' }, 'linux');
  assert.notEqual(other.path, xdg.path, 'another data directory, another daemon');
  const home = defaultDaemonAddress({ ACCORD_HOME: '/data/accord', XDG_RUNTIME_DIR: '/run/user/1000' }, 'linux');
  assert.deepEqual(home, { path: '/data/accord/run/daemon.sock', dir: '/data/accord/run', lockPath: '/data/accord/run/daemon.lock' });
  const long = defaultDaemonAddress({ ACCORD_HOME: `/data/${'x'.repeat(120)}` }, 'linux');
  assert.ok(long.path.startsWith(join(tmpdir(), 'accord-')), long.path);
  assert.ok(long.path.length <= 100);
  assert.match(defaultDaemonAddress({ ACCORD_HOME: 'C:\\a' }, 'win32').path, /^\\\\\.\\pipe\\accord-[0-9a-f]{12}$/);
  assert.equal(nameTag('/a'), nameTag('/a'));
  assert.notEqual(nameTag('/a'), nameTag('/b'));
});
