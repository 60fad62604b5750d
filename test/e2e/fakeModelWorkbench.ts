// The set-up the panel-layout and reload suites share: a code-server with the
// packaged Accord, its bundled agent answering from the fake model server (in
// Anthropic's streaming format, sandbox off, no local model servers), and a
// window on test-workspace.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbench, root, startServer, type VscodeServer, vsixPath, type Workbench } from '../../scripts/vscode-harness.mjs';
import { startFakeModelServer, type FakeModelServer } from '../fakeModelServer/index';

export interface FakeModelWorkbench {
  model: FakeModelServer;
  server: VscodeServer;
  workbench: Workbench;
  page: Page;
}

/** `config`: the agent's config dir; `home`: its data dir (default: the agent's own default under HOME). */
export async function workbenchOnFakeModel(dirs: { config: string; home?: string }): Promise<FakeModelWorkbench> {
  assert.ok(existsSync(vsixPath), `${vsixPath} not found; run \`npm run package\` first`);
  const model = await startFakeModelServer();
  const server = await startServer({
    vsix: vsixPath,
    env: {
      ANTHROPIC_API_KEY: 'test-key',
      ACCORD_ANTHROPIC_BASE_URL: model.baseUrl,
      ACCORD_MODEL: 'anthropic:claude-sonnet-4-5',
      ACCORD_CONFIG_DIR: dirs.config,
      ...(dirs.home ? { ACCORD_HOME: dirs.home } : {}),
      ACCORD_LOCAL_SERVERS: '',
      ACCORD_SANDBOX: 'off',
    },
  });
  const workbench = await openWorkbench(server, { folder: join(root, 'test-workspace'), onLog: () => {} });
  return { model, server, workbench, page: workbench.page };
}
