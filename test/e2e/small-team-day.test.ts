import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { silentLogger } from '../../src/log.js';
import { packagePath } from '../../src/package-root.js';
import { replay } from '../../src/replay/replay.js';
import type { ReplayReport } from '../../src/replay/report.js';
import { parseScenario } from '../../src/simulator/scenario.js';

/**
 * The figures of issue 13 on the bundled small-team day, default configuration, on the virtual
 * clock: at most 15 emails, every subject at most 80 characters, no resolve that the next minutes
 * contradict, nothing mailed about a flapping alert after its notice; and a restart and a
 * 20-minute Pod-list outage change no email.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;

function smallTeam(extraFaults: object[] = []) {
  const raw = parseYaml(readFileSync(packagePath('config/scenarios/small-team.yaml'), 'utf8'));
  raw.faults = [...(raw.faults ?? []), ...extraFaults];
  return parseScenario(raw, 'small-team');
}

const ruleOf = (key: string) => key.split(':')[0] ?? '';
const isResolvedNotice = (email: ReplayReport['emails'][number]) =>
  email.reason === 'all_resolved' || email.reason === 'new_resolved';
/** What an email is about, whenever it was written: the reason and the alerts it announces. */
const identity = (email: ReplayReport['emails'][number]) => `${email.reason} ${[...email.alertKeys].sort().join(',')}`;

let day: ReplayReport | undefined;

describe('the small-team day (podwarden simulate --scenario small-team --until 24h)', () => {
  it('mails at most 15 times, each subject short, no false resolve, no repeat of a flapping alert', async () => {
    day = await replay({ scenario: smallTeam(), durationMs: 24 * HOUR, log: silentLogger() });
    const byRule: Record<string, number> = {};
    for (const email of day.emails) {
      const rules = new Set(email.alertKeys.map(ruleOf));
      for (const rule of rules) byRule[rule] = (byRule[rule] ?? 0) + 1;
    }
    console.info(`small-team day: ${day.emails.length} emails, by rule ${JSON.stringify(byRule)}`);
    expect(day.emails.length).toBeGreaterThan(0);
    expect(day.emails.length).toBeLessThanOrEqual(15);
    for (const email of day.emails) expect(email.subject.length, email.subject).toBeLessThanOrEqual(80);

    // A resolve the data contradicts at once (the key fires again within idle's resolveAfter)
    // is a false one: what stale polls and restarts used to produce.
    const firings = day.alerts.filter((a) => a.state === 'firing');
    for (const resolved of day.alerts.filter((a) => a.state === 'resolved')) {
      const at = Date.parse(resolved.at);
      const refired = firings.find(
        (f) => f.key === resolved.key && Date.parse(f.at) > at && Date.parse(f.at) - at < 15 * MIN,
      );
      expect(refired, `${resolved.key} resolved at ${resolved.at} and fired again at ${refired?.at}`).toBeUndefined();
    }
    // Idle sends no resolved notice by default; those that go out are judged ends of waste/budget/health.
    expect(day.emails.filter(isResolvedNotice).flatMap((e) => e.alertKeys.map(ruleOf))).not.toContain('idle');

    // After a key's flapping notice, nothing more about it until it settles.
    const flaps = day.emails.filter((e) => e.reason === 'flapping');
    expect(flaps.length).toBeGreaterThan(0);
    for (const flap of flaps) {
      const key = flap.alertKeys[0] ?? '';
      const later = day.emails.filter((e) => e.at > flap.at && e.alertKeys.includes(key));
      expect(later, `mail about flapping ${key} after its notice`).toEqual([]);
    }
  }, 600_000);

  it('sends the same emails through a 20-minute Pod-list outage and through a restart', async () => {
    if (!day) throw new Error('the day above did not run');
    const emailsBefore = (report: ReplayReport, hours: number) =>
      report.emails.filter((e) => Date.parse(e.at) < Date.parse(report.virtualStart) + hours * HOUR).map(identity);
    const outage = await replay({
      scenario: smallTeam([{ from: '4h', to: '4h20m', match: '/v2/pods', kind: 'status', status: 503 }]),
      durationMs: 8 * HOUR,
      log: silentLogger(),
    });
    expect(outage.collectors.pods?.error).toBeGreaterThanOrEqual(20);
    // The outage is a gap in nb-bob's idle evidence: its idle spell restarts after it, and the
    // new spell's stop warning is mailed on its own (a stop needs the warning of its own spell).
    // Everything else goes out as on the day without the outage.
    const BOB_WARN = 'idle:sim:nb-bob:warn';
    const withoutBobWarning = (list: string[]) =>
      list.flatMap((line) => {
        const [reason, keys = ''] = line.split(' ');
        const rest = keys.split(',').filter((key) => key !== BOB_WARN);
        return rest.length === 0 ? [] : [`${reason} ${rest.join(',')}`];
      });
    expect(withoutBobWarning(emailsBefore(outage, 8))).toEqual(withoutBobWarning(emailsBefore(day, 8)));
    const afterOutage = outage.emails.filter(
      (e) =>
        Date.parse(e.at) >= Date.parse(outage.virtualStart) + 4 * HOUR + 20 * MIN && e.alertKeys.includes(BOB_WARN),
    );
    expect(afterOutage.length).toBeGreaterThan(0);
    const restarted = await replay({
      scenario: smallTeam(),
      durationMs: 8 * HOUR,
      restarts: [{ atMs: 4 * HOUR, downMs: 10 * MIN }],
      log: silentLogger(),
    });
    // Ten minutes down are a gap too: the same as through the outage.
    expect(withoutBobWarning(emailsBefore(restarted, 8))).toEqual(withoutBobWarning(emailsBefore(day, 8)));
    expect(
      restarted.emails.some(
        (e) =>
          Date.parse(e.at) >= Date.parse(restarted.virtualStart) + 4 * HOUR + 10 * MIN &&
          e.alertKeys.includes(BOB_WARN),
      ),
    ).toBe(true);
  }, 600_000);
});
