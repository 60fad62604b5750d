// Loads dist/agent-core.js with V8's code cache: compiling the 6 MB bundle was
// about 40% of a cold `acp --no-daemon` start. Node ≥ 22.1 has a built-in
// compile cache (module.enableCompileCache); older runtimes (VS Code's
// Electron, Node 20) get the same from vm.Script's cachedData.
//
// The cache lives in the agent's own data directory (0700, never /tmp, which
// other users can write, and never a place sandboxed commands can write).
// V8 rejects a cache made for other source, another V8 or other flags; a
// rejected or unreadable cache costs a normal compile, never a failure.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';

/** When to write the cache: after start-up work has compiled the functions a session uses. */
const WRITE_AFTER_MS = 3000;

export function requireWithCompileCache(path: string, cacheDir: string | undefined): unknown {
  if (!cacheDir || process.env.ACCORD_COMPILE_CACHE === 'off') return createRequire(path)(path);
  const builtIn = (Module as unknown as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (typeof builtIn === 'function') {
    try {
      if (ensurePrivateDir(cacheDir)) builtIn.call(Module, cacheDir);
    } catch {
      // No cache: a normal compile.
    }
    return createRequire(path)(path);
  }
  try {
    return loadWithCachedData(path, cacheDir);
  } catch (error) {
    // Only failures of the cache machinery itself land here before the module ran; a module error is rethrown.
    if ((error as { accordModuleError?: boolean }).accordModuleError) throw (error as { cause: unknown }).cause;
    return createRequire(path)(path);
  }
}

function loadWithCachedData(path: string, cacheDir: string): unknown {
  const source = readFileSync(path, 'utf8');
  const { size, mtimeMs } = statSync(path);
  // One file per build and runtime: a new bundle or Node never reads an old cache.
  const cacheFile = join(cacheDir, `agent-core-${size}-${Math.round(mtimeMs)}-${process.version}-${process.arch}.v8cache`);
  let cachedData: Buffer | undefined;
  try {
    // Read only from a directory no one else can write: a planted cache would be code.
    cachedData = ensurePrivateDir(cacheDir) ? readFileSync(cacheFile) : undefined;
  } catch {
    cachedData = undefined;
  }
  const dynamicImport = (vm as unknown as { constants?: { USE_MAIN_CONTEXT_DEFAULT_LOADER?: unknown } }).constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  const script = new vm.Script(Module.wrap(source), {
    filename: path,
    ...(cachedData ? { cachedData } : {}),
    ...(dynamicImport ? { importModuleDynamically: dynamicImport as never } : {}),
  });
  const mod = new Module(path, undefined) as Module & { filename: string; paths: string[]; loaded: boolean };
  mod.filename = path;
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(path));
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  try {
    wrapper.call(mod.exports, mod.exports, createRequire(path), mod, path, dirname(path));
  } catch (cause) {
    throw Object.assign(new Error('agent core failed to load'), { accordModuleError: true, cause });
  }
  mod.loaded = true;
  if (!cachedData || script.cachedDataRejected) {
    // Once, a few seconds in or at exit, whichever comes first (an editor's short session still leaves a cache).
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      writeCache(script, cacheDir, cacheFile);
    };
    setTimeout(write, WRITE_AFTER_MS).unref();
    process.once('exit', write);
  }
  return mod.exports;
}

function writeCache(script: vm.Script, cacheDir: string, cacheFile: string): void {
  try {
    if (!ensurePrivateDir(cacheDir)) return;
    const data = script.createCachedData();
    // Written whole and renamed: a concurrent start never reads half a cache.
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, cacheFile);
    // Earlier builds' caches are dead weight.
    for (const name of readdirSync(cacheDir)) {
      if (name.startsWith('agent-core-') && join(cacheDir, name) !== cacheFile && !name.endsWith('.tmp')) rmSync(join(cacheDir, name), { force: true });
    }
  } catch {
    // A full disk or a read-only data dir: the next start compiles again.
  }
}

/** The cache directory, created 0700; false when it is not a private directory of this user. */
function ensurePrivateDir(dir: string): boolean {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stats = statSync(dir);
  if (!stats.isDirectory()) return false;
  if (process.platform === 'win32') return true;
  return stats.uid === process.getuid?.() && (stats.mode & 0o077) === 0;
}
