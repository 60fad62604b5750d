// The Get Started walkthrough: every step has its page in the VSIX's media,
// and every button in it runs a command that exists (contributed, or a view's
// built-in focus command).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const nls: Record<string, string> = JSON.parse(readFileSync('package.nls.json', 'utf8'));
/** A manifest string as shown: `%key%` resolved through package.nls.json. */
const shown = (text: string) => text.replace(/^%(.+)%$/, (_, key: string) => {
  assert.ok(key in nls, `package.nls.json has ${key}`);
  return nls[key]!;
});
const contributes = manifest.contributes;

test('the walkthrough covers the model setup, the first prompt and the first review', () => {
  const [walkthrough] = contributes.walkthroughs;
  assert.ok(walkthrough, 'contributes.walkthroughs has the Get Started walkthrough');
  assert.deepEqual(walkthrough.steps.map((s: { id: string }) => s.id), ['useCopilot', 'setApiKey', 'useLocal', 'firstPrompt', 'firstReview']);
  const commands = new Set<string>(contributes.commands.map((c: { command: string }) => c.command));
  const views = Object.values(contributes.views as Record<string, Array<{ id: string }>>).flat().map((v) => v.id);
  for (const view of views) commands.add(`${view}.focus`);
  for (const step of walkthrough.steps) {
    assert.ok(existsSync(step.media.markdown), `${step.id}: ${step.media.markdown} exists`);
    assert.match(step.media.markdown, /^media\/walkthrough\//, 'inside media/, which the VSIX includes');
    assert.ok(shown(step.title).length > 0);
    const links = [...shown(String(step.description)).matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]!);
    assert.ok(links.length > 0, `${step.id} has a button`);
    for (const command of links) assert.ok(commands.has(command), `${step.id}: command ${command} is contributed`);
    assert.ok(step.completionEvents?.length > 0, `${step.id} knows when it is done`);
  }
});
