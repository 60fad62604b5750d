// The top of the git repository holding the project folder: the bundled
// agent's change paths are relative to it (the person may have opened a
// subfolder). No repository, or no git: the folder itself.
import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
// The same pinned git as the agent's host-side runs: no global config, nothing it could start.
import { gitArgv, gitEnvironment } from '../../agent/session/isolatedGit';

export function projectTop(folder: string): Promise<string> {
  return new Promise((resolve) => {
    execFile('git', gitArgv(['rev-parse', '--show-toplevel'], {}), { cwd: folder, timeout: 10_000, env: gitEnvironment() }, (error, stdout) => {
      const top = stdout.trim();
      if (error || !top) return resolve(folder);
      // git prints the resolved path; the project folder may be reached through a symlink.
      void Promise.all([realpath(folder), realpath(top)]).then(
        ([real, realTop]) => resolve(real === realTop ? folder : real.startsWith(realTop) ? folder.slice(0, folder.length - (real.length - realTop.length)) : top),
        () => resolve(top),
      );
    });
  });
}
