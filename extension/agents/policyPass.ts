// The `environment.pass` list of the project's `.accord/policy.json`: the
// variables the person's reviewed policy lets the bundled agent's commands
// see. The extension hands exactly those to the agent process (which starts
// from a minimal environment), so the policy means the same in VS Code as in
// a terminal. Read with a size bound, regular files only; anything malformed passes nothing (the
// agent itself reports an invalid policy).
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';

const MAX_POLICY_BYTES = 256 * 1024;

export async function policyPassList(projectRoot: string | undefined): Promise<string[]> {
  if (!projectRoot) return [];
  let text: string;
  try {
    // The file comes with the project: O_NONBLOCK so a fifo nobody writes cannot hold the agent's start.
    const handle = await open(path.join(projectRoot, '.accord', 'policy.json'), constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!(await handle.stat()).isFile()) return [];
      const buffer = Buffer.alloc(MAX_POLICY_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_POLICY_BYTES) return [];
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return [];
  }
  try {
    const pass = (JSON.parse(text) as { environment?: { pass?: unknown } } | null)?.environment?.pass;
    return Array.isArray(pass) ? pass.filter((entry): entry is string => typeof entry === 'string') : [];
  } catch {
    return [];
  }
}
