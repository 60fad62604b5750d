import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { builtinTools } from '../../../agent/tools/index';
import { plan } from '../../../agent/tools/plan';
import { call, context, makeSandbox } from './fixtures';

test('builtinTools: nine uniquely named tools with ACP kinds and JSON-schema-able inputs', () => {
  const tools = builtinTools();
  assert.deepEqual(
    tools.map((tool) => [tool.name, tool.kind]),
    [
      ['read_file', 'read'], ['list_files', 'read'], ['search', 'search'], ['edit_file', 'edit'], ['write_file', 'edit'],
      ['delete_file', 'delete'], ['move_file', 'move'], ['run_command', 'execute'], ['plan', 'think'],
    ],
  );
  for (const tool of tools) {
    assert.match(tool.name, /^[a-z_]+$/);
    assert.ok(tool.description.length > 40, tool.name);
    const schema = z.toJSONSchema(tool.input) as { type?: string };
    assert.equal(schema.type, 'object', tool.name);
  }
});

test('plan replaces the whole plan through ctx.setPlan and needs no approval', async () => {
  const box = await makeSandbox();
  try {
    const { ctx, plans } = context(box.root);
    const entries = [
      { content: 'Read the failing test', priority: 'high', status: 'completed' },
      { content: 'Fix the parser', priority: 'high', status: 'in_progress' },
      { content: 'Run the suite', priority: 'medium', status: 'pending' },
    ] as const;
    const input = plan.input.parse({ entries });
    assert.deepEqual(await plan.effect(input, ctx), { type: 'plan' });
    assert.equal(plan.describe(input, ctx).title, 'Plan: Fix the parser');
    const result = await plan.run(input, ctx, { type: 'plan' });
    assert.equal(result.forModel, 'Plan updated: 3 steps, 1 completed.');
    assert.deepEqual(plans, [entries]);
    assert.throws(() => plan.input.parse({ entries: [{ content: 'x', priority: 'urgent', status: 'pending' }] }));
    await call(plan, { entries: [] }, ctx);
    assert.deepEqual(plans.at(-1), []);
  } finally {
    await box.cleanup();
  }
});

test('an aborted turn: every tool rethrows the abort instead of returning a result', async () => {
  const box = await makeSandbox();
  try {
    await writeFile(path.join(box.root, 'a.txt'), 'hello\n');
    const { ctx, controller } = context(box.root);
    controller.abort();
    const calls: [string, unknown][] = [
      ['read_file', { path: 'a.txt' }],
      ['list_files', {}],
      ['search', { pattern: 'hello' }],
      ['run_command', { argv: [process.execPath, '-e', ''] }],
      ['edit_file', { path: 'a.txt', old_string: 'hello', new_string: 'bye' }],
    ];
    for (const [name, input] of calls) {
      const tool = builtinTools().find((candidate) => candidate.name === name)!;
      await assert.rejects(call(tool, input, ctx), (error: Error) => error.name === 'AbortError', name);
    }
  } finally {
    await box.cleanup();
  }
});
