import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { link, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isWithin, PathError, protectedPathReason, resolveInside, resolveWritable } from '../../../agent/workspace/containment';
import { makeSandbox, type Sandbox } from './fixtures';

describe('resolveInside', () => {
  let box: Sandbox;
  before(async () => {
    box = await makeSandbox();
    await mkdir(path.join(box.root, 'src'));
    await writeFile(path.join(box.root, 'src', 'a.ts'), 'a');
    await writeFile(path.join(box.outside, 'secret'), 'secret');
    await symlink(box.outside, path.join(box.root, 'outlink'));
    await symlink(path.join(box.outside, 'secret'), path.join(box.root, 'secretlink'));
    await symlink(path.join(box.root, 'src'), path.join(box.root, 'srclink'));
    await symlink(path.join(box.outside, 'missing'), path.join(box.root, 'dangling'));
    await mkdir(path.join(box.base, 'ws-evil'));
  });
  after(() => box.cleanup());

  const refuses = async (requested: string, pattern: RegExp) => {
    await assert.rejects(resolveInside(box.root, requested), (error: unknown) => {
      assert.ok(error instanceof PathError, `expected PathError for ${JSON.stringify(requested)}`);
      assert.match(error.message, pattern);
      return true;
    });
  };

  test('plain relative, nested and absolute-inside paths resolve', async () => {
    assert.equal(await resolveInside(box.root, 'src/a.ts'), path.join(box.root, 'src', 'a.ts'));
    assert.equal(await resolveInside(box.root, './src/../src/a.ts'), path.join(box.root, 'src', 'a.ts'));
    assert.equal(await resolveInside(box.root, path.join(box.root, 'src/a.ts')), path.join(box.root, 'src', 'a.ts'));
    assert.equal(await resolveInside(box.root, 'new/dir/file.txt'), path.join(box.root, 'new', 'dir', 'file.txt'));
    assert.equal(await resolveInside(box.root, '.'), box.root);
  });

  test('.. traversal is refused, naming the resolved path and root', async () => {
    await refuses('../outside/secret', new RegExp(`${path.join(box.outside, 'secret')}.*outside the workspace ${box.root}`));
    await refuses('src/../../outside/secret', /outside the workspace/);
    await refuses('./././../x', /outside the workspace/);
    // Nothing decodes URLs: an encoded `..` is an ordinary name that stays inside.
    assert.equal(await resolveInside(box.root, '%2e%2e/x'), path.join(box.root, '%2e%2e', 'x'));
    await refuses('..', /outside the workspace/);
  });

  test('absolute paths outside and prefix confusion are refused', async () => {
    await refuses('/etc/passwd', /outside the workspace/);
    await refuses(path.join(box.base, 'ws-evil', 'f'), /outside the workspace/);
    await refuses(`${box.root}-evil/f`, /outside the workspace/);
    await refuses(`${box.root}/../ws-evil/f`, /outside the workspace/);
  });

  test('home, URI, NUL, Windows drive, UNC and backslash forms are refused before I/O', async () => {
    await refuses('~/.bashrc', /home directory/);
    await refuses('file:///etc/passwd', /URI/);
    await refuses('src/a.ts\0.png', /NUL/);
    await refuses('', /empty/);
    await refuses('\\\\attacker.example\\share\\f', /network or device/);
    await refuses('\\\\?\\C:\\x', /network or device/);
    if (process.platform !== 'win32') {
      await refuses('C:\\Windows\\System32\\x', /drive path/);
      await refuses('..\\..\\x', /backslash/);
    }
  });

  test('symlinks: a file or directory pointing out is refused; pointing in is followed', async () => {
    await refuses('outlink/secret', /symlink.*outside the workspace/);
    await refuses('outlink/new-file', /symlink.*outside the workspace/);
    await refuses('secretlink', /outside the workspace/);
    await refuses('dangling', /symlink.*does not exist/);
    assert.equal(await resolveInside(box.root, 'srclink/a.ts'), path.join(box.root, 'src', 'a.ts'));
    assert.equal(await resolveInside(box.root, 'srclink/new/x'), path.join(box.root, 'src', 'new', 'x'));
  });

  test('a symlinked ancestor several levels up that points outside is refused', async () => {
    await refuses('outlink/deep/er/new.txt', /outside the workspace/);
  });

  test('a root that is itself a symlink works; results are spelled under the root as given', async () => {
    const linkRoot = path.join(box.base, 'ws-link');
    await symlink(box.root, linkRoot);
    assert.equal(await resolveInside(linkRoot, 'src/a.ts'), path.join(linkRoot, 'src', 'a.ts'));
    assert.equal(await resolveInside(linkRoot, path.join(box.root, 'src/a.ts')), path.join(linkRoot, 'src', 'a.ts'));
    assert.equal(await resolveInside(linkRoot, 'srclink/new'), path.join(linkRoot, 'src', 'new'));
    await assert.rejects(resolveInside(linkRoot, 'outlink/secret'), /outside the workspace/);
    await assert.rejects(resolveInside(linkRoot, '../outside/secret'), /outside the workspace/);
  });

  test('isWithin compares components, not prefixes, and folds case on request', () => {
    assert.equal(isWithin('/w/proj', '/w/proj'), true);
    assert.equal(isWithin('/w/proj', '/w/proj/a'), true);
    assert.equal(isWithin('/w/proj', '/w/proj-evil/a'), false);
    assert.equal(isWithin('/w/proj', '/w/projX'), false);
    assert.equal(isWithin('/w/proj', '/w/..proj'), false);
    assert.equal(isWithin('/w/proj', '/w/proj/..foo'), true);
    assert.equal(isWithin('/w/Proj', '/w/proj/a', true), true);
    assert.equal(isWithin('/w/Proj', '/w/proj/a', false), false);
  });
});

describe('protected paths', () => {
  const root = '/w/proj';
  const reason = (relative: string) => protectedPathReason(root, path.join(root, relative));

  test('.git (any depth, hooks), .accord, .vscode and shell rc files are protected', () => {
    for (const relative of [
      '.git', '.git/config', '.git/hooks/pre-commit', 'sub/.git/config', 'vendor/lib/.git',
      '.accord/policy.json', '.accord', '.vscode/settings.json', '.vscode/tasks.json',
      '.bashrc', '.zshrc', '.profile', 'home/.bash_profile', '.envrc', '.gitconfig',
    ]) {
      assert.ok(reason(relative), `${relative} should be protected`);
    }
  });

  test('case, trailing dot/space, NTFS stream, NFD and 8.3 spellings are still protected', () => {
    for (const relative of ['.GIT/config', '.VSCode/settings.json', '.Accord/POLICY.json', '.git./config', '.git /config', '.vscode::$DATA/x', 'GIT~1/config', '.ZSHRC']) {
      assert.ok(reason(relative), `${relative} should be protected`);
    }
    assert.ok(reason('.accord'.normalize('NFD') + '/policy.json'));
  });

  test('attack: code points HFS+ ignores in names (as git\'s core.protectHFS lists them) still spell the protected name', () => {
    // On HFS+ ".g\u200Cit" opens ".git": a write there would land in the person's hooks.
    for (const relative of ['.g\u200Cit/hooks/pre-commit', '.vs\u200Dcode/tasks.json', '\uFEFF.accord/policy.json', '.bash\u206Arc', '.git\u200E\u200F/config', 'sub/.\u202Egit/config']) {
      assert.ok(reason(relative), `${JSON.stringify(relative)} should be protected`);
    }
    assert.equal(reason('gi\u200Ct.txt'), null);
  });

  test('ordinary files, including .env and .gitignore, are not protected', () => {
    for (const relative of ['src/a.ts', '.env', '.env.local', '.gitignore', '.github/workflows/ci.yml', 'git/x', 'my.git.txt', 'README.md']) {
      assert.equal(reason(relative), null, relative);
    }
  });

  test('resolveWritable refuses protected paths, also when reached through a symlink', async () => {
    const box = await makeSandbox();
    try {
      await mkdir(path.join(box.root, '.git', 'hooks'), { recursive: true });
      await symlink(path.join(box.root, '.git'), path.join(box.root, 'innocent'));
      await assert.rejects(resolveWritable(box.root, '.git/hooks/pre-commit'), /may never change/);
      await assert.rejects(resolveWritable(box.root, 'innocent/hooks/pre-commit'), /may never change/);
      await assert.rejects(resolveWritable(box.root, 'src/../.accord/policy.json'), /may never change/);
      assert.equal(await resolveWritable(box.root, 'src/ok.ts'), path.join(box.root, 'src', 'ok.ts'));
    } finally {
      await box.cleanup();
    }
  });

  test('a hard link is resolvable (the editing tools refuse it by link count)', async () => {
    const box = await makeSandbox();
    try {
      await writeFile(path.join(box.outside, 'secret'), 's');
      await link(path.join(box.outside, 'secret'), path.join(box.root, 'hl'));
      assert.equal(await resolveInside(box.root, 'hl'), path.join(box.root, 'hl'));
    } finally {
      await box.cleanup();
    }
  });
});
