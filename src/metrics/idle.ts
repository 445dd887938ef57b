import { Gauge } from 'prom-client';
import { type IdleCandidate, idleCandidates } from '../actions/idle-status.js';
import { collectorsFeeding } from '../collectors/index.js';
import { podSamples, pods } from '../db/schema.js';
import type { MetricsContext } from './source.js';

/**
 * The Pods the idle ladder holds, from its own reading of the database (`idleCandidates`): how
 * long each has been idle, where its ladder stands and how long until its planned stop, so a
 * dashboard shows what podwarden is about to do. A Pod that is not idle has no series. Set on
 * every evaluation tick (where the ladder moves) and Pod poll (where a Pod may vanish), so the
 * durations are as of then.
 */
export function registerIdleMetrics(context: MetricsContext): void {
  const { registry, source, config } = context;
  const fills: Array<(candidate: IdleCandidate, now: number) => void> = [];
  const gauges: Array<Gauge<string>> = [];
  const perCandidate = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (gauge: Gauge<string>, candidate: IdleCandidate, now: number) => void,
  ) => {
    const gauge = new Gauge({ name, help, labelNames, registers: [registry] });
    gauges.push(gauge);
    fills.push((candidate, now) => fill(gauge, candidate, now));
  };
  const pod = (c: IdleCandidate) => ({ account: c.account, pod_id: c.podId });

  perCandidate(
    'podwarden_pod_idle',
    'Always 1 for a Pod the idle ladder holds now, with its idle rule and ladder phase (notified, warned, stop_due, decided); absent for a Pod that is not idle.',
    ['account', 'pod_id', 'rule', 'phase'],
    (g, c) => g.set({ ...pod(c), rule: c.rule, phase: c.phase }, 1),
  );
  perCandidate(
    'podwarden_pod_idle_seconds',
    'How long the Pod has been idle at the latest evaluation, from the start of its idle evidence; absent for a Pod that is not idle.',
    ['account', 'pod_id'],
    (g, c, now) => g.set(pod(c), Math.max(0, now - c.idleSince) / 1000),
  );
  perCandidate(
    'podwarden_pod_planned_stop_seconds',
    'Seconds from the latest evaluation until the idle ladder stops the idle Pod (0 when due), dry_run telling whether the stop will only be recorded; absent when no stop is planned.',
    ['account', 'pod_id', 'dry_run'],
    (g, c) => {
      if (c.msToStop !== null) g.set({ ...pod(c), dry_run: String(c.dryRun) }, c.msToStop / 1000);
    },
  );
  perCandidate(
    'podwarden_pod_idle_saving_dollars_per_hour',
    'What stopping the idle Pod saves per hour: its cost minus what its volume still costs while stopped; absent for a Pod that is not idle.',
    ['account', 'pod_id'],
    (g, c) => g.set(pod(c), c.savingPerHr),
  );

  if (config.idle.rules.length === 0) return;
  context.refreshOn(['tick', ...collectorsFeeding(pods, podSamples)], async ({ now }) => {
    const candidates = await idleCandidates(source.db, config, now);
    for (const gauge of gauges) gauge.reset();
    for (const candidate of candidates) for (const fill of fills) fill(candidate, now);
  });
}
