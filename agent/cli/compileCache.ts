// Loads the agent's bundles (dist/agent-core.js, and its lazy parts such as
// dist/agent-openai.js) with V8's code cache: compiling the 6 MB bundle was about
// 40% of a cold `acp --no-daemon` start. Node ≥ 22.1 has a built-in
// compile cache (module.enableCompileCache); older runtimes (VS Code's
// Electron, Node 20) get the same from vm.Script's cachedData.
//
// The cache lives in the agent's own data directory (0700, never /tmp, which
// other users can write, and never a place sandboxed commands can write).
// V8 rejects a cache made for other source, another V8 or other flags; a
// rejected or unreadable cache costs a normal compile, never a failure.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import vm from 'node:vm';
import { currentV8Flags, v8FlagsTag, withV8Flags, type V8Flags } from './heapFlags';

/**
 * When to write the cache: once start-up work (initialize, session/new and
 * what it starts in the background) has compiled the functions a start
 * needs, and before a turn compiles its own. V8 deserializes every function
 * in the cache at each start: a cache written after a turn (1.28 instead of
 * 1.08 MB) cost the next start ~9 ms more CPU before `initialize` was
 * answered, while the turn compiles its functions in ~4 ms. Whichever comes
 * first: the first prompt (startUpEnded), WRITE_AFTER_MS, or exit.
 */
const WRITE_AFTER_MS = 3000;

/** Caches not written yet, shared by every copy of this module in the process (the entry's and the core's). */
const PENDING = Symbol.for('accord.pendingCompileCaches');
const pending = (): Set<() => void> => ((globalThis as Record<symbol, unknown>)[PENDING] ??= new Set()) as Set<() => void>;

/** Start-up is over (a session's first prompt): every cache not written yet is written now, without the turn's functions. */
export function startUpEnded(): void {
  for (const write of [...pending()]) write();
}

/** Other builds of a bundle whose caches are kept beside this one's (the most recently written). */
const OTHER_BUILDS_KEPT = 2;

/**
 * Modules a lazy bundle takes from the bundle that loads it instead of
 * carrying its own copy (one zod, one provider-utils per process), by the
 * specifier the lazy bundle requires them with.
 */
export type SharedModules = Readonly<Record<string, unknown>>;

export function requireWithCompileCache(path: string, cacheDir: string | undefined, shared?: SharedModules): unknown {
  const plain = () => (shared ? requireSharing(path, shared) : createRequire(path)(path));
  if (!cacheDir || process.env.ACCORD_COMPILE_CACHE === 'off') return plain();
  const builtIn = (Module as unknown as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (typeof builtIn === 'function') {
    try {
      if (ensurePrivateDir(cacheDir)) builtIn.call(Module, cacheDir);
    } catch {
      // No cache: a normal compile.
    }
    return plain();
  }
  try {
    return loadWithCachedData(path, cacheDir, shared);
  } catch (error) {
    // Only failures of the cache machinery itself land here before the module ran; a module error is rethrown.
    if ((error as { accordModuleError?: boolean }).accordModuleError) throw (error as { cause: unknown }).cause;
    return plain();
  }
}

/** `require` for a bundle's code: shared specifiers answered from `shared`, the rest as usual. */
function sharingRequire(base: NodeJS.Require, shared: SharedModules | undefined): NodeJS.Require {
  if (!shared) return base;
  const require = ((id: string) => (Object.hasOwn(shared, id) ? shared[id] : base(id))) as NodeJS.Require;
  return Object.assign(require, { resolve: base.resolve, cache: base.cache, main: base.main, extensions: base.extensions });
}

/** Like require, but the module's own `require` answers shared specifiers first (Node's loader, so its built-in compile cache applies). */
function requireSharing(path: string, shared: SharedModules): unknown {
  const cached = (Module as unknown as { _cache: Record<string, Module> })._cache[path];
  if (cached) return cached.exports;
  const mod = new Module(path, undefined) as Module & { filename: string; paths: string[]; loaded: boolean; _compile(source: string, filename: string): void };
  mod.filename = path;
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(path));
  const own = mod.require.bind(mod);
  // The wrapper's `require` calls module.require: answer shared specifiers there.
  mod.require = ((id: string) => (Object.hasOwn(shared, id) ? shared[id] : own(id))) as NodeJS.Require;
  mod._compile(readFileSync(path, 'utf8'), path);
  mod.loaded = true;
  (Module as unknown as { _cache: Record<string, Module> })._cache[path] = mod;
  return mod.exports;
}

/** The cache file's name starts with the bundle's name ("agent-core"), so each bundle keeps its own. */
const stemOf = (path: string) => basename(path).replace(/\.[cm]?js$/, '');

/**
 * The bundle's text. esbuild writes ASCII (it escapes the rest), and ASCII
 * read as latin1 skips UTF-8 decoding: ~1.9 instead of ~3.4 ms for the
 * 1.5 MB core. Any other byte (a hand-edited or foreign file) reads as UTF-8.
 */
function readSource(path: string): string {
  const bytes = readFileSync(path);
  return isAscii?.(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

function loadWithCachedData(path: string, cacheDir: string, shared: SharedModules | undefined): unknown {
  const source = readSource(path);
  const { size, mtimeMs } = statSync(path);
  const stem = stemOf(path);
  // One file per bundle, build and runtime: a new bundle or Node never reads an old cache.
  const build = `${size}-${Math.round(mtimeMs)}`;
  // The flags this compile runs under: the cache is named by them and, written later, made under them again.
  const flags = currentV8Flags();
  const cacheFile = join(cacheDir, `${stem}-${build}-${process.version}-${process.arch}${v8FlagsTag()}.v8cache`);
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
    wrapper.call(mod.exports, mod.exports, sharingRequire(createRequire(path), shared), mod, path, dirname(path));
  } catch (cause) {
    throw Object.assign(new Error('agent core failed to load'), { accordModuleError: true, cause });
  }
  mod.loaded = true;
  if (!cachedData || script.cachedDataRejected) {
    // Once: when start-up ends, a few seconds in or at exit, whichever comes first (an editor's short session still leaves a cache).
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      pending().delete(write);
      writeCache(script, flags, cacheDir, cacheFile, stem, build);
    };
    pending().add(write);
    setTimeout(write, WRITE_AFTER_MS).unref();
    process.once('exit', write);
  }
  return mod.exports;
}

function writeCache(script: vm.Script, flags: V8Flags, cacheDir: string, cacheFile: string, stem: string, build: string): void {
  try {
    if (!ensurePrivateDir(cacheDir)) return;
    // The core is compiled before the agent sets its flags (heapFlags.ts) and its cache made after.
    const data = withV8Flags(flags, () => script.createCachedData());
    // Written whole and renamed: a concurrent start never reads half a cache.
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, cacheFile);
    // Older builds' caches of this bundle are dead weight ("agent-openai-1-…" is not "agent-openai-compatible-1-…"),
    // but not the few latest: two installs that share a data directory (the extension's agent and a
    // CLI of another version) would otherwise delete each other's, and every start would compile cold.
    // This build's for another Node or other V8 flags (the daemon's) are kept.
    const ours = new RegExp(`^${stem.replace(/[^\w]/g, '\\$&')}-(\\d+-\\d+)-v`);
    const others = new Map<string, { names: string[]; newest: number }>();
    for (const name of readdirSync(cacheDir)) {
      const match = ours.exec(name);
      if (!match || match[1] === build || name.endsWith('.tmp')) continue;
      const entry = others.get(match[1]!) ?? { names: [], newest: 0 };
      entry.names.push(name);
      entry.newest = Math.max(entry.newest, statSync(join(cacheDir, name)).mtimeMs);
      others.set(match[1]!, entry);
    }
    const oldestFirst = [...others.values()].sort((a, b) => a.newest - b.newest);
    for (const { names } of oldestFirst.slice(0, Math.max(0, oldestFirst.length - OTHER_BUILDS_KEPT))) {
      for (const name of names) rmSync(join(cacheDir, name), { force: true });
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
