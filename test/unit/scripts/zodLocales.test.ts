// scripts/zodLocales.mjs: the agent core carries zod's English messages and
// no other locale. Bundled with the plugin, zod reads the same (English
// errors, `z.locales.en`); another locale is a function that throws a clear
// error; and code that names one fails the build, so no start reaches a stub.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { zodEnglishOnly } from '../../../scripts/zodLocales.mjs';

const root = join(import.meta.dirname, '..', '..', '..');
// Inside the repository, so the entries resolve zod from its node_modules.
const dir = mkdtempSync(join(root, 'test', '.zod-locales-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function bundle(name: string, source: string): Promise<{ outfile: string; bytes: number }> {
  const entry = join(dir, `${name}.mjs`);
  writeFileSync(entry, source);
  const outfile = join(dir, `${name}.cjs`);
  const result = await esbuild.build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', metafile: true, logLevel: 'silent', plugins: [zodEnglishOnly()] });
  return { outfile, bytes: result.metafile.outputs[Object.keys(result.metafile.outputs)[0]!]!.bytes };
}

describe("zod's locales in the agent core: English only", () => {
  test('zod bundled with the plugin: English messages, no other locale\'s text, and another locale throws a clear error when called', async () => {
    const { outfile, bytes } = await bundle(
      'happy',
      `import { z } from 'zod';
const failed = z.object({ n: z.number() }).safeParse({ n: 'x' });
let other;
// Through an alias the build cannot see: the stub itself says what is wrong.
const all = z.locales;
try { all.de(); } catch (error) { other = error.message; }
process.stdout.write(JSON.stringify({ message: failed.error.issues[0].message, en: typeof z.locales.en().localeError, other }));`,
    );
    const result = spawnSync(process.execPath, [outfile], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    const out = JSON.parse(result.stdout) as { message: string; en: string; other: string };
    assert.match(out.message, /expected number, received string/i);
    assert.equal(out.en, 'function');
    assert.match(out.other, /zod locale "de" is not in this build of Accord/);
    // The German text is gone (zod's de.js says "Ungültige Eingabe"); all of zod with every locale is ~750 KB.
    assert.ok(!readFileSync(outfile, 'utf8').includes('Ungültige'));
    assert.ok(bytes < 550_000, `${bytes} bytes`);
  });

  test('attack on the build: code that names a stripped locale fails it, by member or by index', async () => {
    for (const [name, use] of [
      ['member', 'z.config(z.locales.de());'],
      ['spaced', 'z.config(z.locales . fr());'],
      ['index', "z.config(z.locales['ja']());"],
    ]) {
      await assert.rejects(bundle(`use-${name}`, `import { z } from 'zod';\n${use}\n`), /uses zod's locales/, name!);
    }
  });
});
