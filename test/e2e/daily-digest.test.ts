import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/load.js';
import { outboxMessagesBetween } from '../../src/db/notifications.js';
import { openDatabase } from '../../src/db/open.js';
import { silentLogger } from '../../src/log.js';
import { packagePath } from '../../src/package-root.js';
import { replay } from '../../src/replay/replay.js';
import { loadScenario } from '../../src/simulator/scenario.js';

/**
 * The daily digest on the virtual clock: the small-team day with `alerts.digest` at 02:00 Berlin
 * (01:00 UTC in November), played past the next day's hour, with a restart inside the first
 * digest's hour. One digest a day, at the local hour, listing the open alerts with their cost
 * and the (dry-run) stops with what they would have saved.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;

const dir = mkdtempSync(join(tmpdir(), 'podwarden-digest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the daily digest over a small-team day and a bit', () => {
  it('goes out once a day at the local hour, with open alerts, their costs and the savings', async () => {
    const scenario = loadScenario(packagePath('config/scenarios/small-team.yaml'));
    const config = defaultConfig([{ name: 'placeholder', apiKey: 'x' }]);
    config.alerts.digest = { hour: 2, timeZone: 'Europe/Berlin' };
    const dbPath = join(dir, 'digest.db');
    const report = await replay({
      scenario,
      config,
      durationMs: 25 * HOUR + 30 * MIN,
      dbPath,
      restarts: [{ atMs: HOUR + 20 * MIN, downMs: 5 * MIN }],
      log: silentLogger(),
    });
    const digests = report.emails.filter((email) => email.reason === 'digest');
    const start = scenario.startMs;
    expect(digests.map((email) => (Date.parse(email.at) - start) / MIN)).toEqual([
      expect.any(Number),
      expect.any(Number),
    ]);
    const [first, second] = digests.map((email) => Date.parse(email.at) - start);
    // 02:00 in Berlin is 01:00 UTC: within that hour on each day, after the restart nothing more.
    expect(first).toBeGreaterThanOrEqual(HOUR);
    expect(first).toBeLessThan(2 * HOUR);
    expect(second).toBeGreaterThanOrEqual(25 * HOUR);
    expect(second).toBeLessThan(26 * HOUR);
    for (const email of digests) {
      expect(email.subject).toMatch(/^\[placeholder\] Daily: \d+ open, \$[\d,]+\/day at stake/);
      expect(email.subject.length).toBeLessThanOrEqual(80);
      expect(email.delivered).toBe(true);
    }

    const db = openDatabase(dbPath);
    try {
      const messages = (await outboxMessagesBetween(db, start, start + 26 * HOUR)).filter(
        (message) => message.reason === 'digest',
      );
      expect(messages).toHaveLength(2);
      const [day1, day2] = messages.map((message) => message.text);
      // What fired before 01:00 UTC is listed with what it costs: the stopped Pod's disk, bob's notebook.
      expect(day1).toContain('Stopped Pod carol-a100 disk');
      expect(day1).toMatch(/\$0\.66\/day for/);
      expect(day1).toMatch(/bob-jupyter\s+idle \d+h? ?\d*m?, \$[\d.]+\/h \(\$[\d.]+\/day\)/);
      // The day's dry-run stops of bob-jupyter are counted as what they would have saved.
      expect(day1).toMatch(/bob-jupyter\s+stop decided \(dry run\)/);
      expect(day1).toMatch(/would have saved \$\d+\.\d\d/);
      // One row per idle Pod, however many of its alerts are open.
      expect(day1?.match(/^ {2}bob-jupyter\s+idle/gm)).toHaveLength(1);
      expect(day2).toContain('Since the last digest (Mon 2 Nov, 02:');
      for (const text of [day1, day2]) expect(text).toContain('CET');
      for (const message of messages) expect(message.to.length).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  }, 600_000);
});
