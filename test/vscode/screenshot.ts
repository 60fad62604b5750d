// Screenshots from inside the extension host: the harness takes them, the test waits for the file.
import { existsSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { eventually, ui } from './ui';

export async function screenshot(name: string): Promise<void> {
  const file = path.join(vscode.extensions.getExtension('accord-dev.accord')!.extensionPath, 'test-results', `${name}.png`);
  if (existsSync(file)) unlinkSync(file);
  ui({ screenshot: name });
  await eventually(`the screenshot ${name}`, () => existsSync(file));
}
