// Preloaded (`node --import`) into the built daemon by bench/backfill.ts, so the daemon itself
// carries no bench code: at exit it writes the process's own resource usage, and the memory
// breakdown at the highest RSS it sampled, to the file PODWARDEN_BENCH_USAGE names. Plain
// JavaScript, so the measured process loads no TypeScript loader.
import { writeFileSync } from 'node:fs';

const file = process.env.PODWARDEN_BENCH_USAGE;
if (file) {
  let atPeak = process.memoryUsage();
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    if (usage.rss > atPeak.rss) atPeak = usage;
  }, 100);
  sampler.unref();
  process.once('exit', () => {
    const { maxRSS, userCPUTime, systemCPUTime } = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ maxRssKb: maxRSS, cpuMs: (userCPUTime + systemCPUTime) / 1000, atPeak }));
  });
}
