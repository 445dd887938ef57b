import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import type { DaemonEvents } from '../../src/daemon-events.js';
import { channelOutbox } from '../../src/db/schema.js';
import { EventBus } from '../../src/events.js';
import { createMetrics, type Metrics } from '../../src/metrics/registry.js';
import { MINUTE, T0, useTempDatabases } from '../db/support.js';
import { parseExposition, sampleValue } from './support.js';

/**
 * Slack and webhook messages are counted from the outbox per configured channel, as the emails
 * are: sent, abandoned and waiting; a channel that is not configured has no series.
 */
const temp = useTempDatabases();
let metrics: Metrics | undefined;
afterEach(() => metrics?.close());

describe('podwarden_notifications_total and _queued', () => {
  it('count each configured channel from the outbox, per account, and leave unconfigured ones out', async () => {
    const database = temp.open();
    const clock = new VirtualClock(T0);
    const config = parseConfig(
      {
        accounts: [
          { name: 'main', apiKey: 'main-key-0001' },
          { name: 'lab', apiKey: 'lab-key-00001' },
        ],
        webhook: { destinations: [{ name: 'ops-bot', url: 'https://hooks.example.com/x', secret: 'a'.repeat(32) }] },
      },
      { env: {}, baseDir: '/' },
    );
    const events = new EventBus<DaemonEvents>();
    metrics = createMetrics({
      source: {
        db: database,
        events,
        enabledCollectors: () => [],
        rateLimits: () => [],
        databaseWriteProblem: () => undefined,
      },
      config,
      clock,
    });
    const row = (channel: string, account: string, outcome: 'sent' | 'abandoned' | 'pending') => ({
      channel,
      target: 'ops-bot',
      groupKey: `g-${outcome}`,
      account,
      reason: 'first',
      alertKeys: [],
      payload: {},
      createdAt: T0,
      nextAttemptAt: T0,
      deliveredAt: outcome === 'sent' ? T0 + MINUTE : null,
      abandonedAt: outcome === 'abandoned' ? T0 + MINUTE : null,
      finishedAt: outcome === 'pending' ? null : T0 + MINUTE,
    });
    database.db
      .insert(channelOutbox)
      .values([
        row('webhook', 'main', 'sent'),
        row('webhook', 'main', 'sent'),
        row('webhook', 'main', 'abandoned'),
        row('webhook', 'main', 'pending'),
        row('slack', 'main', 'sent'),
      ])
      .run();
    await clock.advanceTo(T0 + 2 * MINUTE);
    events.emit('evaluation:finished', { at: clock.now(), unjudged: [] });
    await events.settled();

    const samples = parseExposition(await metrics.registry.metrics());
    const total = (labels: Record<string, string>) => sampleValue(samples, 'podwarden_notifications_total', labels);
    expect(total({ channel: 'webhook', account: 'main', outcome: 'sent' })).toBe(2);
    expect(total({ channel: 'webhook', account: 'main', outcome: 'abandoned' })).toBe(1);
    expect(total({ channel: 'webhook', account: 'lab', outcome: 'sent' })).toBe(0);
    expect(sampleValue(samples, 'podwarden_notifications_queued', { channel: 'webhook', account: 'main' })).toBe(1);
    // Slack is not configured: its row is not a series (labels stay bounded by the config).
    expect(samples.filter((sample) => sample.labels.channel === 'slack')).toEqual([]);
  });
});
