// A scripted chat model provider (vendor "accord-fake") for Accord's tests in
// real VS Code. Each request takes the next script entry: a list of steps
// ({ text }, { toolCall: { callId, name, input } }, { waitForCancel: true }).
// The test reads what VS Code delivered (messages, tools, cancellations).
const vscode = require('vscode');

function activate(context) {
  const state = { script: [], requests: [], cancelled: 0, models: [
    { id: 'fake-coder', name: 'Fake Coder', family: 'fake', version: '1', maxInputTokens: 32000, maxOutputTokens: 4000, capabilities: { toolCalling: true } },
    { id: 'fake-mini', name: 'Fake Mini', family: 'fake', version: '1', maxInputTokens: 8000, maxOutputTokens: 1000, capabilities: { toolCalling: true } },
  ] };
  const describePart = (part) => {
    if (part instanceof vscode.LanguageModelTextPart) return { type: 'text', text: part.value };
    if (part instanceof vscode.LanguageModelToolCallPart) return { type: 'tool_call', callId: part.callId, name: part.name, input: part.input };
    if (part instanceof vscode.LanguageModelToolResultPart) {
      return { type: 'tool_result', callId: part.callId, text: part.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : '')).join('') };
    }
    return { type: 'other' };
  };
  const provider = {
    provideLanguageModelChatInformation: () => state.models,
    async provideLanguageModelChatResponse(model, messages, options, progress, token) {
      state.requests.push({
        model: model.id,
        messages: messages.map((m) => ({ role: m.role === vscode.LanguageModelChatMessageRole.User ? 'user' : 'assistant', content: m.content.map(describePart) })),
        tools: (options.tools || []).map((t) => t.name),
        toolMode: options.toolMode,
      });
      const steps = state.script.shift() || [{ text: '(unscripted)' }];
      for (const step of steps) {
        if (token.isCancellationRequested) break;
        if (step.text !== undefined) progress.report(new vscode.LanguageModelTextPart(step.text));
        else if (step.toolCall) progress.report(new vscode.LanguageModelToolCallPart(step.toolCall.callId, step.toolCall.name, step.toolCall.input));
        else if (step.waitForCancel) {
          await new Promise((resolve) => {
            if (token.isCancellationRequested) return resolve();
            token.onCancellationRequested(() => resolve());
          });
        }
      }
      if (token.isCancellationRequested) state.cancelled++;
    },
    provideTokenCount: async (_model, text) => {
      const value = typeof text === 'string' ? text : text.content.map((p) => JSON.stringify(describePart(p))).join('');
      return Math.ceil(value.length / 4);
    },
  };
  context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider('accord-fake', provider));
  return state;
}

module.exports = { activate, deactivate() {} };
