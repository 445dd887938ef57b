import { type IdleCandidate, idleCandidates } from '../actions/idle-status.js';
import { collectorsFeeding } from '../collectors/index.js';
import { podSamples, pods } from '../db/schema.js';
import { gaugeTable } from './account-series.js';
import type { MetricsContext } from './source.js';

/**
 * The Pods the idle ladder holds (`idleCandidates`), set on every tick (where the ladder moves)
 * and Pod poll (where a Pod may vanish), so the durations are as of then.
 */
export function registerIdleMetrics(context: MetricsContext): void {
  const { registry, source, config } = context;
  const pod = (c: IdleCandidate) => ({ account: c.account, pod_id: c.podId });
  const fill = gaugeTable<IdleCandidate & { now: number }>(registry, [
    {
      name: 'podwarden_pod_idle',
      help: 'Always 1 for a Pod the idle ladder holds now, with its idle rule and ladder phase (notified, warned, stop_due, decided); absent for a Pod that is not idle.',
      labelNames: ['account', 'pod_id', 'rule', 'phase'],
      series: (c, set) => set({ ...pod(c), rule: c.rule, phase: c.phase }, 1),
    },
    {
      name: 'podwarden_pod_idle_seconds',
      help: 'How long the Pod has been idle at the latest evaluation, from the start of its idle evidence; absent for a Pod that is not idle.',
      labelNames: ['account', 'pod_id'],
      series: (c, set) => set(pod(c), Math.max(0, c.now - c.idleSince) / 1000),
    },
    {
      name: 'podwarden_pod_planned_stop_seconds',
      help: 'Seconds from the latest evaluation until the idle ladder stops the idle Pod (0 when due), dry_run telling whether the stop will only be recorded; absent when no stop is planned.',
      labelNames: ['account', 'pod_id', 'dry_run'],
      series: (c, set) => {
        if (c.msToStop !== null) set({ ...pod(c), dry_run: String(c.dryRun) }, c.msToStop / 1000);
      },
    },
    {
      name: 'podwarden_pod_idle_saving_dollars_per_hour',
      help: 'What stopping the idle Pod saves per hour: its cost minus what its volume still costs while stopped; absent for a Pod that is not idle.',
      labelNames: ['account', 'pod_id'],
      series: (c, set) => set(pod(c), c.savingPerHr),
    },
  ]);

  if (config.idle.rules.length === 0) return;
  context.refreshOn(['tick', ...collectorsFeeding(pods, podSamples)], async ({ now }) => {
    fill((await idleCandidates(source.db, config, now)).map((candidate) => ({ ...candidate, now })));
  });
}
