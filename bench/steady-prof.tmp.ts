// Profiles only the steady hours of a replay (after the first virtual hour): copy into your tree's bench/ as
// bench/steady-prof.tmp.ts (do not commit it) and run
//   node --import tsx bench/steady-prof.tmp.ts small-team 24h /tmp/<branch>-steady
//   node --import tsx bench/steady-prof.tmp.ts large 3h /tmp/<branch>-steadyL
// then node /tmp/replay-tools/incl.mjs <dir> 60 src/   and   node /tmp/replay-tools/prof.mjs <dir> 40
import { Session } from 'node:inspector/promises';
import { writeFileSync, mkdirSync } from 'node:fs';
import { resolveScenario } from '../src/cli/scenario-option.js';
import { parseDuration } from '../src/duration.js';
import { silentLogger } from '../src/log.js';
import { replay } from '../src/replay/replay.js';
import { loadScenario } from '../src/simulator/scenario.js';
const [name = 'small-team', span = '24h', out = '/tmp/steady'] = process.argv.slice(2);
const session = new Session(); session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 500 });
let n = 0; const t0 = performance.now(); let tStart = 0;
const onProgress = async () => { n++; if (n === 1) { tStart = performance.now(); await session.post('Profiler.start'); } };
const scenario = loadScenario(resolveScenario(name));
await replay({ scenario, durationMs: parseDuration(span), log: silentLogger(), onProgress: () => { void onProgress(); } });
const { profile } = await session.post('Profiler.stop');
mkdirSync(out, { recursive: true });
writeFileSync(`${out}/steady.cpuprofile`, JSON.stringify(profile));
console.log(`steady ${(performance.now() - tStart).toFixed(0)} ms over ${n - 1} hours; total ${(performance.now() - t0).toFixed(0)}`);
