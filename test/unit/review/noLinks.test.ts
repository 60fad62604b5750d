// A reviewed change never lands through a symbolic link in the person's tree
// (extension/review/noLinks.ts, called by EditorTree before every write).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LinkedPathError, linkCheckTop, refuseLinks } from '../../../extension/review/noLinks';

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

test('attack: VS Code opened a subfolder of the repository; a change the agent made elsewhere in the repository does not land through a folder link there', async () => {
  // The person opened <repo>/app; the agent's work tree is the whole repository, so its
  // change to docs/x.txt lands at <repo>/docs/x.txt, outside every workspace folder.
  const repo = join(top, 'repo');
  await mkdir(join(repo, 'app'), { recursive: true });
  await symlink(outside, join(repo, 'docs'));
  const folders = [join(repo, 'app')];
  const target = join(repo, 'docs', 'x.txt');
  assert.equal(linkCheckTop(folders, target), repo, 'checked from where the file and the workspace folder meet');
  await assert.rejects(refuseLinks(linkCheckTop(folders, target), target), (error: unknown) => error instanceof LinkedPathError && /is below .*docs, which is a symbolic link/.test(error.message));
  // Inside a folder, the folder bounds the check as before; the folder itself may be reached through a link.
  assert.equal(linkCheckTop(folders, join(repo, 'app', 'src', 'a.ts')), join(repo, 'app'));
  assert.equal(linkCheckTop([], join(repo, 'app', 'a.ts')), join(repo, 'app', 'a.ts'));
});
