import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('Accord', { log: true });
  context.subscriptions.push(output);
}

export function deactivate(): void {}
