// Commands that exist only while the extension runs under tests, so UI tests
// can reach real VS Code UI before the flows that normally raise it exist.
import * as vscode from 'vscode';

export function registerTestCommands(context: vscode.ExtensionContext): void {
  void vscode.commands.executeCommand('setContext', 'accord.testMode', true);
  context.subscriptions.push(
    // Raises an approval notification and resolves with the button the person clicked.
    vscode.commands.registerCommand('accord.test.raiseApproval', async (title = 'Accord wants to run: npm test') => {
      const answer = await vscode.window.showWarningMessage(String(title), 'Allow once', 'Reject once');
      void vscode.window.showInformationMessage(`Accord approval answer: ${answer ?? 'dismissed'}`);
      return answer ?? 'dismissed';
    }),
  );
}
