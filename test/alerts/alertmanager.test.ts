import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertmanagerConfig } from '../../src/config/sections/alertmanager.js';
import { queuedDeliveries } from '../../src/db/alertmanager-outbox.js';
import { firingAlerts } from '../../src/db/alerts.js';
import { alertDescription, alertSummary } from '../../src/messages/summary.js';
import { freePort } from '../e2e/support/prometheus.js';
import {
  type AlertmanagerPeer,
  type ListedAlert,
  startAlertmanager,
  startWebhook,
  type Webhook,
} from '../helpers/alertmanager.js';
import { hasPeer } from '../helpers/peers.js';
import { openAlerts, rowsOf } from '../helpers/store.js';
import { type AlertBench, alertBench, budgetFinding, finding, MINUTE } from './support.js';

const peer =
  hasPeer('prometheus-alertmanager', 'prometheus-alertmanager') && hasPeer('amtool', 'prometheus-alertmanager');

let bench: AlertBench | undefined;
let alertmanager: AlertmanagerPeer | undefined;
let webhook: Webhook | undefined;
let dir: string | undefined;
afterEach(async () => {
  bench?.close();
  await alertmanager?.stop();
  await webhook?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  bench = alertmanager = webhook = dir = undefined;
});

/**
 * Alertmanager keeps real time: an alert whose `endsAt` is past is resolved to it. So the
 * virtual clock starts `ago` before the real now, and firing alerts end far enough ahead.
 */
function benchFor(url: string, ago: number, section: Partial<AlertmanagerConfig> = {}): AlertBench {
  return alertBench(
    (config) => {
      config.http.publicUrl = 'https://podwarden.example.com';
      config.alerts.alertmanager = {
        urls: [url],
        timeoutMs: 5_000,
        resendIntervalMs: 10 * MINUTE,
        runbookUrls: { budget: 'https://wiki.example.com/runbooks/budget' },
        ...section,
      };
    },
    Math.floor((Date.now() - ago) / MINUTE) * MINUTE,
  );
}

const idleFinding = (podId: string) =>
  finding(`idle:sim:${podId}`, {
    rule: 'idle',
    severity: 'info',
    summary: `Pod ${podId} idle for 45m at $0.69/h`,
    labels: { rule: 'idle', account: 'sim', pod_id: podId },
  });

const wasteFinding = (volumeId: string) =>
  finding(`waste:sim:${volumeId}`, {
    rule: 'waste',
    summary: `Volume ${volumeId} unattached for 3d at $0.10/h`,
    labels: { rule: 'waste', account: 'sim', check: 'unattached-volume', volume_id: volumeId },
  });

const named = (name: string) => (alert: { labels: Record<string, string> }) => alert.labels.alertname === name;

async function started(): Promise<{ am: AlertmanagerPeer; hook: Webhook }> {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-am-'));
  webhook = await startWebhook();
  alertmanager = await startAlertmanager({ dir, webhookUrl: webhook.url });
  return { am: alertmanager, hook: webhook };
}

describe.skipIf(!peer)('Alertmanager, the real one', () => {
  it('a budget alert fires: the webhook gets its labels and annotations, amtool lists it active', async () => {
    const { am, hook } = await started();
    bench = benchFor(am.url, 5 * MINUTE);
    const budget = budgetFinding('monthly', 'actual', 80);
    await bench.tick([budget]);
    const firedAt = bench.clock.now();

    const notification = await hook.waitFor('budget alert notified', (n) => n.alerts.some(named('PodwardenBudget')));
    const alert = notification.alerts.find(named('PodwardenBudget'));
    expect(alert?.status).toBe('firing');
    expect(alert?.labels).toEqual({
      alertname: 'PodwardenBudget',
      severity: 'warning',
      account: 'sim',
      rule: 'budget',
      budget: 'monthly',
      figure: 'actual',
      threshold: '80',
    });
    // The email's words, from the alert as recorded.
    const [recorded] = await firingAlerts(bench.db);
    if (recorded === undefined) throw new Error('the budget alert is not recorded as firing');
    const notified = { ...recorded, firedAt, recipients: [] };
    expect(alert?.annotations.summary).toBe(alertSummary(notified));
    expect(alert?.annotations.summary).toContain('monthly');
    expect(alert?.annotations.description).toBe(alertDescription(notified, firedAt, 'UTC'));
    expect(alert?.annotations.runbook_url).toBe('https://wiki.example.com/runbooks/budget');
    expect(alert?.generatorURL).toBe('https://podwarden.example.com/');
    expect(Date.parse(alert?.startsAt ?? '')).toBe(firedAt);

    const listed = JSON.parse(
      await am.amtool(['alert', 'query', '--output=json', 'alertname=PodwardenBudget']),
    ) as ListedAlert[];
    expect(listed.map((a) => [a.labels.budget, a.status.state])).toEqual([['monthly', 'active']]);
    // A webhook shows no endsAt for firing alerts; Alertmanager's own record has the one posted.
    expect(Date.parse(listed[0]?.endsAt ?? '')).toBe(firedAt + 4 * 10 * MINUTE);
  });

  it('it resolves: the webhook gets the resolved notification, endsAt the resolve time', async () => {
    const { am, hook } = await started();
    bench = benchFor(am.url, 5 * MINUTE);
    await bench.tick([budgetFinding('monthly', 'actual', 80)]);
    await hook.waitFor('firing', (n) => n.alerts.some((a) => named('PodwardenBudget')(a) && a.status === 'firing'));
    await bench.clock.advanceBy(MINUTE);
    await bench.tick([]);
    const resolvedAt = bench.clock.now();

    const notification = await hook.waitFor('resolved', (n) =>
      n.alerts.some((a) => named('PodwardenBudget')(a) && a.status === 'resolved'),
    );
    expect(notification.status).toBe('resolved');
    expect(Date.parse(notification.alerts[0]?.endsAt ?? '')).toBe(resolvedAt);
    expect(await am.alerts()).toEqual([]);
    expect((await rowsOf(bench.db, ['alertmanager'])).map((row) => [row.state, row.finishedAt])).toEqual([
      ['resolved', resolvedAt],
    ]);
  });

  it('down for 30 virtual minutes, then up: nothing lost, nothing twice in /api/v2/alerts', async () => {
    const { am, hook } = await started();
    const port = am.port;
    // Started 35 minutes ago, so the alerts' endsAt (40 minutes after each post) is still ahead of Alertmanager's clock.
    bench = benchFor(am.url, 35 * MINUTE);
    const budget = budgetFinding('monthly', 'actual', 80);
    const idle = idleFinding('pod-1');
    const waste = wasteFinding('vol-1');
    const start = bench.clock.now();
    await bench.tick([budget, idle]);
    await hook.waitFor('both firing', (n) => n.alerts.filter((a) => a.status === 'firing').length === 2);
    await am.stop();
    alertmanager = undefined;

    // Down: the budget keeps firing (its resend is due at 10m), the idle Pod resolves at 10m, waste fires at 20m.
    const findingsAt = (now: number) => {
      const elapsed = now - start;
      return [budget, ...(elapsed < 10 * MINUTE ? [idle] : []), ...(elapsed >= 20 * MINUTE ? [waste] : [])];
    };
    await bench.clock.advanceBy(MINUTE);
    await bench.run(30 * MINUTE, findingsAt);
    const waiting = await rowsOf(bench.db, ['alertmanager']);
    expect(waiting.map((row) => row.state)).toEqual(['firing', 'resolved', 'firing']);
    expect(waiting.every((row) => row.finishedAt === null && row.attempts > 0)).toBe(true);
    expect(waiting[0]?.lastError).toMatch(/ECONNREFUSED/);
    expect((await queuedDeliveries(bench.db)).map((row) => row.queued)).toEqual([3]);

    alertmanager = await startAlertmanager({ dir: dir as string, webhookUrl: hook.url, port });
    const up = hook.received.length;
    // Tick until the backoff lets the outbox through (the retries double up to 16 minutes here).
    for (let i = 0; i < 30 && (await queuedDeliveries(bench.db)).length > 0; i++) {
      await bench.tick(findingsAt(bench.clock.now()));
      await bench.clock.advanceBy(MINUTE);
    }
    expect(await queuedDeliveries(bench.db)).toEqual([]);

    const listed = await alertmanager.alerts();
    const fired = await openAlerts(bench.db);
    expect(listed.map((a) => a.labels.alertname).sort()).toEqual(['PodwardenBudget', 'PodwardenWaste']);
    expect(new Set(listed.map((a) => a.fingerprint)).size).toBe(listed.length);
    expect(listed.map((a) => [a.labels.alertname, Date.parse(a.startsAt)]).sort()).toEqual(
      fired.map((a) => [a.rule === 'budget' ? 'PodwardenBudget' : 'PodwardenWaste', a.firedAt]).sort(),
    );
    // The idle Pod's resolution reached it too: its notification log knew the alert as firing.
    const resolved = await hook.waitFor('idle resolved after the outage', (n) =>
      n.alerts.some((a) => named('PodwardenIdle')(a) && a.status === 'resolved'),
    );
    expect(hook.received.indexOf(resolved)).toBeGreaterThanOrEqual(up);
    // Alertmanager may send the waste alert in a notification of its own, after the idle one.
    await hook.waitFor('waste firing after the outage', (n) =>
      n.alerts.some((a) => named('PodwardenWaste')(a) && a.status === 'firing'),
    );
    const wasteFirings = hook.received.flatMap((n) =>
      n.alerts.filter((a) => named('PodwardenWaste')(a) && a.status === 'firing'),
    );
    expect(new Set(wasteFirings.map((a) => a.startsAt)).size).toBe(1);
  });

  it('a silence made with amtool mutes it there, while podwarden keeps sending', async () => {
    const { am, hook } = await started();
    bench = benchFor(am.url, 12 * MINUTE, { resendIntervalMs: 5 * MINUTE });
    const silenceId = (
      await am.amtool([
        'silence',
        'add',
        'alertname=PodwardenIdle',
        '--comment=maintenance',
        '--author=test',
        '--duration=2h',
      ])
    ).trim();
    const idle = idleFinding('pod-1');
    const budget = budgetFinding('monthly', 'actual', 80);
    await bench.run(11 * MINUTE, () => [idle, budget]);

    const rows = await rowsOf(bench.db, ['alertmanager']);
    expect(rows).toHaveLength(2);
    // Posted at 0, 5 and 10 minutes: podwarden does not know of the silence and keeps Alertmanager current.
    expect(rows.map((row) => row.lastDeliveredAt)).toEqual(
      [rows[0]?.createdAt, rows[1]?.createdAt].map((t) => (t ?? 0) + 10 * MINUTE),
    );

    const notification = await hook.waitFor('budget notified', (n) => n.alerts.some(named('PodwardenBudget')));
    expect(notification.alerts.map((a) => a.labels.alertname)).toEqual(['PodwardenBudget']);
    expect(hook.received.flatMap((n) => n.alerts).filter(named('PodwardenIdle'))).toEqual([]);
    const listed = await am.alerts();
    const silenced = listed.find(named('PodwardenIdle'));
    expect(silenced?.status.state).toBe('suppressed');
    expect(silenced?.status.silencedBy).toEqual([silenceId]);
    expect(listed.find(named('PodwardenBudget'))?.status.state).toBe('active');
  });

  it('every URL of an HA set gets every alert; one down does not hold back the other', async () => {
    const { am, hook } = await started();
    const down = `http://127.0.0.1:${await freePort()}`;
    bench = benchFor(am.url, 5 * MINUTE, { urls: [down, am.url] });
    await bench.tick([budgetFinding('monthly', 'actual', 80)]);
    await hook.waitFor('notified through the one up', (n) => n.alerts.some(named('PodwardenBudget')));
    const rows = await rowsOf(bench.db, ['alertmanager']);
    expect(rows.map((row) => [row.target, row.lastDeliveredAt !== null, row.attempts])).toEqual([
      [down, false, 1],
      [am.url, true, 0],
    ]);
  });
});
