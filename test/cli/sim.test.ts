import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/cli/scenario-option.js';
import { RealClock } from '../../src/clock.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { rawJsonLines } from '../demo/output.js';
import { runCli, spawnCli } from '../helpers/cli.js';

/** Collects a child's stdout until `pattern` appears in it. */
async function readUntil(stream: NodeJS.ReadableStream, pattern: RegExp): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    if (pattern.test(text)) return text;
  }
  throw new Error(`output ended before ${pattern}: ${text}`);
}

describe('podwarden sim', () => {
  it('serves the bundled demo scenario, prints its URLs and key, and exits 0 on SIGTERM', async () => {
    const child = spawnCli(['sim', '--scenario', 'demo', '--port', '0', '--speed', '10']);
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = once(child, 'exit');
    try {
      const out = await readUntil(child.stdout, /Ground truth:.*\n/);
      const rest = /^REST v2:\s+(\S+)$/m.exec(out)?.[1];
      const graphql = /^GraphQL:\s+(\S+)$/m.exec(out)?.[1];
      const key = /^API key:\s+(\S+)$/m.exec(out)?.[1];
      expect(rest).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);
      expect(graphql).toBe(rest?.replace(/\/v2$/, '/graphql'));
      const pods = await fetch(`${rest}/pods`, { headers: { Authorization: `Bearer ${key}` } });
      expect(pods.status).toBe(200);
      expect(Array.isArray(((await pods.json()) as { pods: unknown }).pods)).toBe(true);
      const gql = await fetch(`${graphql}?api_key=${key}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: '{ gpuTypes { id } }' }),
      });
      expect(gql.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // Its log lines are one-liners for a person, like the lines it prints, never raw JSON.
    expect(rawJsonLines(stderr)).toEqual([]);
    expect(stderr).toMatch(/simulator listening/);
  });

  it('exits 2 naming the bundled scenarios when the scenario is neither a file nor bundled', async () => {
    const result = await runCli(['sim', '--scenario', 'no-such-scenario']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--scenario: no file "no-such-scenario".*bundled: .*demo/);
  });

  it('exits 2 on a speed that is not a positive number', async () => {
    const result = await runCli(['sim', '--scenario', 'demo', '--speed', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--speed: expected a positive number/);
  });

  it('plays the scenario from the wall clock with --start now, so a live stack sees current times', async () => {
    const wall = new RealClock();
    const before = Math.floor(wall.now() / 1000) * 1000;
    const child = spawnCli(['sim', '--scenario', 'demo', '--start', 'now', '--port', '0']);
    const exited = once(child, 'exit');
    try {
      const out = await readUntil(child.stdout, /Ground truth:.*\n/);
      const after = wall.now();
      const from = Date.parse(/scenario demo from (\S+)/.exec(out)?.[1] ?? '');
      expect(from).toBeGreaterThanOrEqual(before);
      expect(from).toBeLessThanOrEqual(after);
      expect(from).not.toBe(loadScenario(resolveScenario('demo')).startMs);
    } finally {
      child.kill('SIGTERM');
    }
    expect((await exited)[0]).toBe(0);
  });

  it('exits 2 on a --start that is neither a time nor now', async () => {
    const result = await runCli(['sim', '--scenario', 'demo', '--start', 'tomorrow']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--start: expected an ISO 8601 time .* or "now", got "tomorrow"/);
  });
});
