// An esbuild plugin for dist/agent-core.js: the ACP SDK's generated zod
// schemas (dist/v1/unstable/schema/zod.gen.js, and v2's) are each built on
// first use instead of all at load. Evaluating the v1 module built ~250
// schemas, ~19 ms of every `accord acp --no-daemon` start before
// `initialize` could be answered, though initialize needs one of them.
//
// Each `export const zName = <expression>;` becomes a function that builds
// the schema once, on its first call, and references between schemas call
// those functions, so a schema built on demand is the very object the SDK
// would have built. What the module exports is a stand-in that builds the
// schema when first touched and then forwards every property to it (a
// Proxy: the SDK reads `.shape` of some, calls `.parse` or `.and` on others),
// marked pure: esbuild drops those no one imports. A statement or token this
// transform does not expect fails the build, so a new SDK version cannot
// silently change what the agent validates.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The generated schema modules of the SDK versions the agent bundles. */
export const SDK_SCHEMA_FILES = /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v[12][\\/]unstable[\\/]schema[\\/](zod|guards)\.gen\.js$/;
/** What the core must transform (v1: what every editor's messages are validated with). */
const REQUIRED = ['dist/v1/unstable/schema/zod.gen.js', 'dist/v1/unstable/schema/guards.gen.js'];
/**
 * v1 schemas whose stand-in's `parse` first tries a parser of ours that
 * answers the common params without building the schema (a fresh process's
 * session/new built and ran it: ~4 ms of ~13 on a quiet machine); the schema
 * parses what it declines. Each returns exactly what the schema would
 * (agent/acp/fastParams.ts, and its test). Not initialize's: its parse is
 * the process's first zod parse, and what it warms the first prompt needs
 * (with it skipped, initialize was ~4 ms sooner but the first chunk ~6-14 ms
 * later, interleaved, load ~2.4).
 */
export const FAST_PARSERS = {
  module: resolve('agent/acp/fastParams.ts'),
  file: /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v1[\\/]unstable[\\/]schema[\\/]zod\.gen\.js$/,
  parsers: { zNewSessionRequest: 'fastNewSession', zPromptRequest: 'fastPrompt' },
};

export function lazySdkSchemas() {
  return {
    name: 'accord-lazy-sdk-schemas',
    setup(build) {
      const transformed = new Set();
      build.onLoad({ filter: SDK_SCHEMA_FILES }, (args) => {
        const fast = FAST_PARSERS.file.test(args.path) ? FAST_PARSERS : undefined;
        const contents = lazySchemaModule(readFileSync(args.path, 'utf8'), args.path, fast);
        transformed.add(args.path);
        return { contents, loader: 'js' };
      });
      build.onEnd((result) => {
        if (result.errors.length > 0) return;
        for (const required of REQUIRED) {
          if (![...transformed].some((path) => path.replaceAll('\\', '/').endsWith(`/@agentclientprotocol/sdk/${required}`))) {
            throw new Error(`lazySdkSchemas: the ACP SDK's v1 schema module ${required} was not bundled; the plugin's expectation of the SDK is out of date`);
          }
        }
      });
    },
  };
}

const fail = (where, message) => {
  throw new Error(`lazySdkSchemas: ${where}: ${message}`);
};

/**
 * The module's source with every schema built on first use; throws on
 * anything it does not expect. A top-level `[export] const zName = ...;` is a
 * schema (the SDK's zod.gen.js exports them; its guards.gen.js keeps its own
 * unexported); any other statement (a function, an object of guard
 * functions) stays, its references to schemas made calls of their builders.
 */
export function lazySchemaModule(source, where = 'zod.gen.js', fast = undefined) {
  const tokens = tokenize(source, where);
  const statements = splitStatements(tokens, source, where);
  const schemas = [];
  const others = [];
  for (const statement of statements) {
    const code = statement.filter((t) => t.kind !== 'trivia');
    const exported = code[0]?.text === 'export';
    const head = exported ? code.slice(1) : code;
    const isSchema = head[0]?.text === 'const' && head[1]?.kind === 'name' && /^z[A-Z]\w*$/.test(head[1].text) && head[2]?.text === '=';
    if (isSchema) {
      const from = statement.indexOf(head[2]) + 1;
      schemas.push({ name: head[1].text, exported, expression: statement.slice(from, statement.length - 1) });
    } else {
      // What else the generated modules hold: imports, helper functions, and exported objects of guard functions.
      const guardObject = exported && head[0]?.text === 'const' && head[1]?.kind === 'name' && head[2]?.text === '=' && head[3]?.text === '{';
      if (code[0]?.text !== 'import' && code[0]?.text !== 'function' && !guardObject) {
        fail(where, `a top-level statement that is not \`export const zName = ...;\` at offset ${code[0]?.start}: ${source.slice(code[0]?.start, code[0]?.start + 60)}`);
      }
      others.push(statement);
    }
  }
  if (schemas.length === 0) fail(where, 'no `export const zName = ...;` statements');
  const names = new Set(schemas.map((s) => s.name));
  if (names.size !== schemas.length) fail(where, 'a schema name is declared twice');
  const builder = (name) => `${name}$build`;
  // The builders' state first: any other statement may call a builder as it runs.
  const out = [STAND_IN];
  const fastOf = new Map(Object.entries(fast?.parsers ?? {}));
  for (const [name, parser] of fastOf) {
    if (!schemas.some((s) => s.name === name && s.exported)) fail(where, `no exported schema ${name} for the fast parser ${parser}`);
    out.push(`import { ${parser} as ${name}$fast } from ${JSON.stringify(fast.module)};`);
  }
  for (const { name, expression } of schemas) {
    out.push(`let ${name}$value;`, `function ${builder(name)}() { return ${name}$value ??= (${rewrite(expression, names, builder, where, name, true).trim()}); }`);
  }
  for (const statement of others) out.push(rewrite(statement, names, builder, where, 'a top-level statement'));
  for (const { name, exported } of schemas) {
    if (exported) out.push(`export const ${name} = /* @__PURE__ */ lazySchema$(${builder(name)}, () => ${name}$value !== undefined${fastOf.has(name) ? `, ${name}$fast` : ''});`);
  }
  return `${out.join('\n')}\n`;
}

/** The statements' tokens: an import or other statement up to its ";", a function declaration up to its closing brace. */
function splitStatements(tokens, source, where) {
  const statements = [];
  let current = [];
  let depth = 0;
  let isFunction = false;
  let opened = false;
  for (const t of tokens) {
    if (current.length === 0 && t.kind === 'trivia') continue;
    if (current.every((c) => c.kind === 'trivia') && t.kind !== 'trivia') isFunction = t.text === 'function' || t.text === 'async';
    current.push(t);
    if (t.kind === 'punct' && '([{'.includes(t.text)) {
      depth++;
      if (t.text === '{') opened = true;
    }
    if (t.kind === 'punct' && ')]}'.includes(t.text)) depth--;
    if (depth < 0) fail(where, `unbalanced brackets at offset ${t.start}`);
    const ends = depth === 0 && (t.text === ';' || (isFunction && opened && t.text === '}'));
    if (ends) {
      statements.push(current);
      current = [];
      opened = false;
    }
  }
  const rest = current.filter((t) => t.kind !== 'trivia');
  if (rest.length > 0) fail(where, `a statement does not end with ";" at offset ${rest[0].start}: ${source.slice(rest[0].start, rest[0].start + 60)}`);
  return statements;
}

/** `tokens`' text with each reference to a schema made a call of its builder (comments dropped when `dropComments`). */
function rewrite(tokens, names, builder, where, what, dropComments = false) {
  let text = '';
  const brackets = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (t.kind === 'punct' && '([{'.includes(t.text)) brackets.push(t.text);
    if (t.kind === 'punct' && ')]}'.includes(t.text)) brackets.pop();
    if (t.kind === 'name' && names.has(t.text)) {
      const before = previousCode(tokens, k);
      const after = nextCode(tokens, k);
      if (before?.text === '.') {
        text += t.text; // a property named like a schema, not a reference
        continue;
      }
      const inObject = brackets.at(-1) === '{' && (before?.text === '{' || before?.text === ',');
      if (inObject && (after?.text === ':' || after?.text === ',' || after?.text === '}')) fail(where, `${what} uses ${t.text} as an object key; this transform only rewrites references`);
      text += `${builder(t.text)}()`;
      continue;
    }
    text += dropComments && t.kind === 'trivia' && t.text.startsWith('/') ? '' : t.text;
  }
  return text;
}

/**
 * The exported stand-in: every operation on it builds the schema (once) and
 * acts on the schema itself. Properties are reported configurable, as a Proxy
 * of an empty object must. `Symbol.for('accord.lazySchema.built')` tells,
 * without building, whether it was built (for tests).
 */
const STAND_IN = `const lazySchema$ = (build, built, fast) => {
  const parse = fast && ((value, params) => fast(value) ?? build().parse(value, params));
  return new Proxy({}, {
  get: (_, key) => (key === Symbol.for('accord.lazySchema.built') ? built() : parse && key === 'parse' ? parse : Reflect.get(build(), key)),
  set: (_, key, value) => Reflect.set(build(), key, value),
  has: (_, key) => Reflect.has(build(), key),
  deleteProperty: (_, key) => Reflect.deleteProperty(build(), key),
  ownKeys: () => Reflect.ownKeys(build()),
  getOwnPropertyDescriptor: (_, key) => {
    const descriptor = Reflect.getOwnPropertyDescriptor(build(), key);
    return descriptor && { ...descriptor, configurable: true };
  },
  defineProperty: (_, key, descriptor) => Reflect.defineProperty(build(), key, descriptor),
  getPrototypeOf: () => Reflect.getPrototypeOf(build()),
  });
};`;

const previousCode = (tokens, k) => {
  for (let j = k - 1; j >= 0; j--) if (tokens[j].kind !== 'trivia') return tokens[j];
  return undefined;
};
const nextCode = (tokens, k) => {
  for (let j = k + 1; j < tokens.length; j++) if (tokens[j].kind !== 'trivia') return tokens[j];
  return undefined;
};

/**
 * The JavaScript tokens of generated code: comments and whitespace
 * ("trivia"), strings, numbers, names and punctuation. Template literals with
 * substitutions, regular expression literals and division are not expected
 * in a schema module and fail.
 */
function tokenize(source, where) {
  const tokens = [];
  let at = 0;
  const push = (kind, end) => {
    tokens.push({ kind, text: source.slice(at, end), start: at, end });
    at = end;
  };
  while (at < source.length) {
    const c = source[at];
    const rest = source.slice(at, at + 2);
    if (/\s/.test(c)) {
      let end = at + 1;
      while (end < source.length && /\s/.test(source[end])) end++;
      push('trivia', end);
    } else if (rest === '//') {
      const end = source.indexOf('\n', at);
      push('trivia', end === -1 ? source.length : end);
    } else if (rest === '/*') {
      const end = source.indexOf('*/', at + 2);
      if (end === -1) fail(where, 'an unterminated comment');
      push('trivia', end + 2);
    } else if (c === '"' || c === "'" || c === '`') {
      let end = at + 1;
      while (end < source.length && source[end] !== c) {
        if (source[end] === '\\') end++;
        else if (c === '`' && source[end] === '$' && source[end + 1] === '{') fail(where, `a template literal with a substitution at offset ${at}`);
        else if (c !== '`' && source[end] === '\n') fail(where, `an unterminated string at offset ${at}`);
        end++;
      }
      if (end >= source.length) fail(where, `an unterminated string at offset ${at}`);
      push('string', end + 1);
    } else if (/[A-Za-z_$]/.test(c)) {
      let end = at + 1;
      while (end < source.length && /[\w$]/.test(source[end])) end++;
      push('name', end);
    } else if (/[0-9]/.test(c)) {
      let end = at + 1;
      while (end < source.length && /[\w.]/.test(source[end])) end++;
      push('number', end);
    } else if (c === '/') {
      fail(where, `a "/" outside a comment at offset ${at} (a regular expression or a division)`);
    } else if (rest === '=>' || rest === '??' || rest === '?.' || rest === '...' || rest === '==' || rest === '!=' || rest === '||' || rest === '&&') {
      push('punct', source.startsWith('...', at) || source.startsWith('===', at) || source.startsWith('!==', at) ? at + 3 : at + 2);
    } else if ('()[]{},;:.=?!<>+-*%&|^~'.includes(c)) {
      push('punct', at + 1);
    } else {
      fail(where, `an unexpected character ${JSON.stringify(c)} at offset ${at}`);
    }
  }
  return tokens;
}
