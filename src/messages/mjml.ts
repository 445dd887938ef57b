import { createRequire } from 'node:module';
import type mjml2htmlType from 'mjml';

/**
 * MJML, loaded lean. `require('mjml')` costs about 0.45 s of CPU (0.6 s and more under tsx's
 * hooks), most of it modules our messages never call:
 * - mjml-core requires juice, html-minifier (with uglify-js and clean-css), js-beautify and cheerio
 *   at its top, yet calls them only for inline `mj-style`, the deprecated `minify` and `beautify`
 *   options, and `mj-html-attributes`, none of which html.ts writes or passes;
 * - mjml-preset-core registers all 31 components, where html.ts uses 12.
 * So mjml-core is loaded with a stand-in for each of those four modules that requires the real one
 * the first time it is called (a template that starts using one still renders exactly as before,
 * only paying for the module then), and only the components below are registered, with all of
 * MJML's validation rules. test/messages/mjml-lean.test.ts holds every message equal, byte for
 * byte, to what the whole `mjml` package renders.
 */

/** The components html.ts writes (an mj-all sits inside mj-attributes, which mjml-head-attributes reads). */
const COMPONENTS = [
  'mjml-body',
  'mjml-head',
  'mjml-head-attributes',
  'mjml-head-preview',
  'mjml-head-style',
  'mjml-head-title',
  'mjml-section',
  'mjml-column',
  'mjml-text',
  'mjml-button',
  'mjml-table',
  'mjml-divider',
];

type Fn = (...args: unknown[]) => unknown;
type Load = () => unknown;

/** Each stand-in exposes what mjml-core and mjml-migrate take from the module, and nothing more. */
const DEFERRED: Record<string, (load: Load) => unknown> = {
  juice: (load) => {
    const juice = (...args: unknown[]) => (load() as Fn)(...args);
    // mjml-core writes its preserved tags into juice.codeBlocks before calling it.
    return Object.defineProperty(juice, 'codeBlocks', { get: () => (load() as { codeBlocks: unknown }).codeBlocks });
  },
  'html-minifier': (load) => ({ minify: (...args: unknown[]) => (load() as { minify: Fn }).minify(...args) }),
  'js-beautify': (load) => ({ html: (...args: unknown[]) => (load() as { html: Fn }).html(...args) }),
  cheerio: (load) => ({ load: (...args: unknown[]) => (load() as { load: Fn }).load(...args) }),
};

type Mjml2Html = typeof mjml2htmlType;

interface MjmlCore {
  default: Mjml2Html;
  components: Record<string, unknown>;
  assignComponents: (to: Record<string, unknown>, components: unknown[]) => void;
}
interface MjmlValidator {
  dependencies: Record<string, unknown>;
  assignDependencies: (to: Record<string, unknown>, dependencies: unknown) => void;
}

export function loadLeanMjml(): Mjml2Html {
  const fromMjml = createRequire(createRequire(import.meta.url).resolve('mjml'));
  const corePath = fromMjml.resolve('mjml-core');
  const fromCore = createRequire(corePath);
  const placed: string[] = [];
  // Placed in require's cache only while mjml-core loads, so any later require of these modules
  // (ours or another library's) gets the real one.
  const cache = fromCore.cache;
  try {
    for (const [name, stand] of Object.entries(DEFERRED)) {
      const path = fromCore.resolve(name);
      if (cache[path] !== undefined) continue;
      let real: unknown;
      const load: Load = () => {
        real ??= fromCore(name);
        return real;
      };
      cache[path] = { id: path, filename: path, loaded: true, exports: stand(load) } as unknown as NodeJS.Module;
      placed.push(path);
    }
    const core = fromMjml('mjml-core') as MjmlCore;
    const validator = fromMjml('mjml-validator') as MjmlValidator;
    const fromPreset = createRequire(fromMjml.resolve('mjml-preset-core'));
    // Each component package sets module.exports to its class.
    const components = COMPONENTS.map((name) => fromPreset(name) as unknown);
    core.assignComponents(core.components, components);
    // The whole preset's rules of which tag may hold which: only ours are ever looked up.
    validator.assignDependencies(validator.dependencies, fromMjml('mjml-preset-core/lib/dependencies.js'));
    return core.default;
  } finally {
    for (const path of placed) delete cache[path];
  }
}
