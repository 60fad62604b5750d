// A reviewed change never lands through a symbolic link in the person's tree
// (extension/review/noLinks.ts, called by EditorTree before every write).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LinkedPathError, refuseLinks } from '../../../extension/review/noLinks';

let top = '';
let outside = '';
before(async () => {
  top = await mkdtemp(join(tmpdir(), 'accord-nolinks-'));
  outside = await mkdtemp(join(tmpdir(), 'accord-nolinks-outside-'));
  await mkdir(join(top, 'src'));
  await writeFile(join(top, 'src', 'a.txt'), 'a\n');
  await writeFile(join(outside, 'bashrc'), 'PERSON\n');
  await symlink(join(outside, 'bashrc'), join(top, 'src', 'notes.txt'));
  await symlink(outside, join(top, 'linked'));
});
after(async () => {
  await rm(top, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

test('plain files, new files and new folders may be written', async () => {
  await refuseLinks(top, join(top, 'src', 'a.txt'));
  await refuseLinks(top, join(top, 'src', 'new.txt'));
  await refuseLinks(top, join(top, 'new', 'deeper', 'file.txt'));
  await refuseLinks(top, join(outside, 'bashrc'));
});

test('attack: a file that is a link, or a folder on the way that is one, is refused and the target is untouched', async () => {
  await assert.rejects(refuseLinks(top, join(top, 'src', 'notes.txt')), (error: unknown) => error instanceof LinkedPathError && /notes\.txt is a symbolic link; Accord never writes through links/.test(error.message));
  await assert.rejects(refuseLinks(top, join(top, 'linked', 'bashrc')), (error: unknown) => error instanceof LinkedPathError && /is below .*linked, which is a symbolic link/.test(error.message));
  await assert.rejects(refuseLinks(top, join(top, 'linked', 'new', 'file.txt')), LinkedPathError);
  // Outside every workspace folder the file itself is still checked.
  await assert.rejects(refuseLinks(join(top, 'src', 'notes.txt'), join(top, 'src', 'notes.txt')), LinkedPathError);
  assert.equal(await readFile(join(outside, 'bashrc'), 'utf8'), 'PERSON\n');
});
