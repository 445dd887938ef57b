import { afterEach, describe, expect, it } from 'vitest';
import { warningDeliveredGuard } from '../../src/actions/guards.js';
import { deliverDue } from '../../src/alerts/deliver.js';
import { alertmanagerDeliverer, queueForAlertmanager } from '../../src/channels/alertmanager.js';
import { VirtualClock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import { deliveriesOf } from '../../src/db/channel-outbox.js';
import { EventBus } from '../../src/events.js';
import { silentLogger } from '../../src/log.js';
import { BARE_COMMAND_LINE } from '../../src/messages/commands.js';
import type { EvaluationEvents } from '../../src/tick/context.js';
import { MINUTE, T0, useTempDatabases } from '../db/support.js';
import { type AlertReceiver, startAlertReceiver } from '../helpers/alert-receiver.js';
import { insertAlert } from '../helpers/store.js';

const temp = useTempDatabases();
const KEY = 'idle:main:nb:warn';
let receiver: AlertReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
});

/**
 * The warning before a stop may go out by any channel: the guard reads the outbox of whichever
 * channel carries it. Here the idle rule is routed to Alertmanager only.
 */
describe('the warning_delivered guard', () => {
  it('counts a warning Alertmanager took, from when it took it, and names its error while it did not', async () => {
    const clock = new VirtualClock(T0);
    receiver = await startAlertReceiver(
      () => clock.now(),
      () => clock.now() >= T0 + 10 * MINUTE,
    );
    const config = defaultConfig([{ name: 'main', apiKey: 'main-key-0001' }]);
    const alertmanager = { urls: [receiver.url], timeoutMs: 5_000, resendIntervalMs: 5 * MINUTE, runbookUrls: {} };
    config.alerts = { ...config.alerts, alertmanager, route: { idle: ['alertmanager'] } } as typeof config.alerts;
    const rule = { ...config.idle.rules[0], stopWithoutDeliveredWarning: false } as (typeof config.idle.rules)[0];
    const db = temp.open();
    await insertAlert(db, {
      key: KEY,
      rule: 'idle',
      account: 'main',
      severity: 'warning',
      summary: 'Pod nb idle for 30m: it will be stopped',
      labels: { rule: 'idle', account: 'main', pod_id: 'nb', stage: 'warn' },
      details: {},
      recipients: null,
      activeSince: T0,
      lastSeenAt: T0,
      firedAt: T0,
    });
    await queueForAlertmanager(db, config, T0);
    const ctx = {
      db,
      config,
      clock,
      log: silentLogger(),
      events: new EventBus<EvaluationEvents>(),
      signal: new AbortController().signal,
      commandLine: BARE_COMMAND_LINE,
    };
    const deliverer = alertmanagerDeliverer(ctx, config.alerts.alertmanager as NonNullable<typeof alertmanager>);
    const guard = async (now: number) =>
      warningDeliveredGuard(rule, (await deliveriesOf(db, new Map([[KEY, T0]]))).get(KEY), now);

    await deliverDue(ctx, deliverer);
    expect(await guard(clock.now())).toMatchObject({ passed: false });
    expect((await guard(clock.now())).detail).toContain('has not been delivered: POST');
    expect((await guard(clock.now())).detail).toContain('HTTP 503');

    await clock.advanceTo(T0 + 10 * MINUTE);
    await deliverDue(ctx, deliverer);
    expect(receiver.posted.map((batch) => batch.at)).toEqual([T0 + 10 * MINUTE]);
    expect(await guard(T0 + 10 * MINUTE + rule.warnLeadMs - 1)).toMatchObject({ passed: false });
    expect(await guard(T0 + 10 * MINUTE + rule.warnLeadMs)).toMatchObject({ passed: true });
  });
});
