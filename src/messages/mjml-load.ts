import Module, { createRequire } from 'node:module';
import type mjml2htmlType from 'mjml';

/**
 * Loading MJML costs about 0.5 s of CPU, paid by the first email a daemon or a replay renders.
 * Half of it is four libraries mjml-core requires when it loads but runs only for what our
 * template never asks for: juice (`<mj-style inline="inline">`), cheerio (`<mj-html-attributes>`),
 * js-beautify and html-minifier (the deprecated `beautify` and `minify` options, and MJML 3
 * migration). mjml-core gets a stand-in for each that loads the real library the first time
 * anything of it is used, so MJML does exactly what it did, only later if ever.
 */
const DEFERRED = ['juice', 'cheerio', 'js-beautify', 'html-minifier'];

export type Mjml2Html = typeof mjml2htmlType;

export function loadMjml(): Mjml2Html {
  const require = createRequire(import.meta.url);
  const fromCore = createRequire(require.resolve('mjml-core'));
  const planted = new Map<string, Module>();
  for (const name of DEFERRED) {
    const file = fromCore.resolve(name);
    // Loaded already (by whom does not matter): nothing left to save.
    if (require.cache[file] !== undefined) continue;
    const standIn = new Module(file);
    standIn.filename = file;
    standIn.loaded = true;
    standIn.exports = deferred(() => {
      if (require.cache[file] === standIn) delete require.cache[file];
      return fromCore(name);
    });
    require.cache[file] = standIn;
    planted.set(file, standIn);
  }
  try {
    return require('mjml') as Mjml2Html;
  } finally {
    // Anyone else who requires these libraries gets the real ones.
    for (const [file, standIn] of planted) if (require.cache[file] === standIn) delete require.cache[file];
  }
}

/**
 * A module's exports that load it on first use: calling it (juice is a function) or reading
 * any property. `__esModule` is answered without loading, as undefined: it is what Babel's
 * interop reads when mjml-core loads, and none of the four sets it to true when imported
 * the way mjml-core imports it (cheerio, which does, is read only through its `load`).
 */
function deferred(load: () => unknown): unknown {
  let real: unknown;
  const module = () => {
    real ??= load();
    return real as Record<PropertyKey, unknown> & ((...args: unknown[]) => unknown);
  };
  return new Proxy(() => undefined, {
    apply: (_target, self, args) => Reflect.apply(module(), self, args),
    get: (_target, property) => (property === '__esModule' ? undefined : module()[property]),
    set: (_target, property, value) => Reflect.set(module(), property, value),
    has: (_target, property) => property in module(),
  });
}
