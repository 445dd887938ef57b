import type { BucketSize, BucketWindow } from '../buckets.js';
import { accrueMicros, aggregateAmounts, amountsOf, type Micros, type Usage, usageByBucket } from './billing.js';
import { PodLifecycle } from './pod-lifecycle.js';
import { type PodState, podRecord, type V2Pod } from './pod-view.js';
import { type BillingKind, type BillingLine, endpointLine, podLines, volumeLine } from './pricing.js';
import { clusterRecord, endpointRecord, volumeRecord, workersOf } from './resource-views.js';
import type { Scenario, ScenarioGpuType } from './scenario.js';
import { valueAt } from './timeline.js';
import type { AvailabilityLevel, PodAction, PodStatus } from './v2-types.js';

export const BILLING_KINDS: readonly BillingKind[] = ['pods', 'serverless', 'network_volumes', 'clusters', 'endpoints'];

export interface AccruedFilter {
  kind: BillingKind | 'all';
  /** podId, serverlessId, networkVolumeId or clusterId, as the kind's billing route filters. */
  id?: string;
  fromMs: number;
  toMs: number;
}

export type PodActionResult = { ok: true; pod: V2Pod | null } | { ok: false; status: 404 | 409; detail: string };

type OwnerEvent = { atMs: number; podId: string; action: PodAction };

/**
 * The account at any time. Every public method takes `nowMs` and first brings the world up to
 * it, applying the scenario's owner events in time order; time never goes backwards (an
 * earlier `nowMs` is read as the world's present). Timelines (utilization, availability,
 * endpoint load) are pure functions of time; only Pod lifecycles carry state.
 */
export class World {
  private current: number;
  private readonly pods: PodState[];
  private readonly podsById: Map<string, PodState>;
  private readonly events: OwnerEvent[];
  private nextEvent = 0;
  /** Owner events that were not valid when they came due (e.g. stopping a stopped Pod). */
  readonly skippedEvents: Array<OwnerEvent & { detail: string }> = [];

  constructor(readonly scenario: Scenario) {
    this.current = scenario.startMs;
    const specs = [...scenario.pods, ...scenario.clusters.flatMap((cluster) => cluster.pods)];
    this.pods = specs.map((spec) => ({
      spec,
      lifecycle: new PodLifecycle(spec, scenario.startMs, scenario.lifecycle),
    }));
    this.podsById = new Map(this.pods.map((pod) => [pod.spec.id, pod]));
    this.events = specs
      .flatMap((spec) => spec.events.map((event) => ({ ...event, podId: spec.id })))
      .sort((a, b) => a.atMs - b.atMs);
    this.advance(scenario.startMs);
  }

  podsView(nowMs: number, options: { includeClusterPods: boolean }): V2Pod[] {
    const t = this.advance(nowMs);
    return this.pods
      .filter((pod) => pod.lifecycle.existsAt(t) && (options.includeClusterPods || !pod.spec.cluster))
      .map((pod) => podRecord(pod, t));
  }

  podView(id: string, nowMs: number): V2Pod | undefined {
    const t = this.advance(nowMs);
    const pod = this.podsById.get(id);
    return pod?.lifecycle.existsAt(t) ? podRecord(pod, t) : undefined;
  }

  /** A Pod action through the API (v2 action or delete, GraphQL mutations). */
  podAction(id: string, action: PodAction, nowMs: number): PodActionResult {
    const t = this.advance(nowMs);
    const pod = this.podsById.get(id);
    if (!pod?.lifecycle.existsAt(t)) return { ok: false, status: 404, detail: `pod ${id} not found` };
    if (pod.spec.cluster) {
      const cluster = pod.spec.cluster.id;
      return {
        ok: false,
        status: 409,
        detail: `pod ${id} belongs to cluster ${cluster}; manage it through /v2/clusters/${cluster}`,
      };
    }
    const outcome = pod.lifecycle.apply(action, t);
    if (!outcome.ok) return { ok: false, status: 409, detail: outcome.detail };
    return { ok: true, pod: action === 'terminate' ? null : podRecord(pod, t) };
  }

  /** Ground truth: every Pod's status, including TERMINATED and cluster members. */
  podStatuses(nowMs: number): Record<string, PodStatus> {
    const t = this.advance(nowMs);
    return Object.fromEntries(this.pods.map((pod) => [pod.spec.id, pod.lifecycle.statusAt(t)]));
  }

  clustersView(nowMs: number) {
    const t = this.advance(nowMs);
    return this.scenario.clusters.map((cluster) => clusterRecord(cluster, this.membersOf(cluster.id), t));
  }

  clusterPodsView(id: string, nowMs: number): V2Pod[] | undefined {
    const t = this.advance(nowMs);
    if (!this.scenario.clusters.some((cluster) => cluster.id === id)) return undefined;
    return this.membersOf(id)
      .filter((pod) => pod.lifecycle.existsAt(t))
      .map((pod) => podRecord(pod, t));
  }

  endpointsView(nowMs: number) {
    this.advance(nowMs);
    return this.scenario.endpoints.map(endpointRecord);
  }

  workersView(id: string, nowMs: number) {
    const t = this.advance(nowMs);
    const endpoint = this.scenario.endpoints.find((candidate) => candidate.id === id);
    return endpoint && workersOf(endpoint, this.scenario.catalog, t);
  }

  volumesView(nowMs: number) {
    const t = this.advance(nowMs);
    return this.scenario.volumes.filter((volume) => volume.createdAtMs <= t).map(volumeRecord);
  }

  /** Overall availability of one GPU type now. */
  availabilityOf(gpu: ScenarioGpuType, nowMs: number): AvailabilityLevel {
    const t = this.advance(nowMs);
    return valueAt(gpu.availability, t, gpu.availability[0]?.value ?? 'NONE');
  }

  /** Ground truth: the money accrued in [fromMs, toMs) (up to now), per amount field in USD. */
  accrued(nowMs: number, filter: AccruedFilter): Record<string, number> {
    const t = this.advance(nowMs);
    const window = { startMs: filter.fromMs, endMs: Math.min(filter.toMs, t) };
    if (filter.kind !== 'all')
      return amountsOf(filter.kind, accrueMicros(this.linesOf(filter.kind, window, filter.id)));
    const byKind: Partial<Record<BillingKind, Micros>> = {};
    for (const kind of BILLING_KINDS) byKind[kind] = accrueMicros(this.linesOf(kind, window));
    return aggregateAmounts(byKind);
  }

  /**
   * Micro-dollars of one billing route per bucket, per resource (keyed by its id) or, with
   * `perResource` false, for all resources together (keyed ''); `id` keeps only that resource.
   */
  usage(
    nowMs: number,
    kind: BillingKind,
    window: BucketWindow,
    size: BucketSize,
    options: { id?: string; perResource?: boolean } = {},
  ): Usage {
    const t = this.advance(nowMs);
    const clipped = { startMs: window.startMs, endMs: Math.min(window.endMs, t) };
    return usageByBucket(this.linesOf(kind, clipped, options.id), size, options.perResource ?? true);
  }

  private linesOf(kind: BillingKind, { startMs, endMs }: BucketWindow, id?: string): BillingLine[] {
    if (endMs <= startMs) return [];
    const wanted = (resourceId: string) => id === undefined || id === resourceId;
    switch (kind) {
      case 'pods':
      case 'clusters': // A cluster member bills to its cluster.
        return this.pods
          .filter(({ spec }) => (spec.cluster ? 'clusters' : 'pods') === kind && wanted(spec.cluster?.id ?? spec.id))
          .flatMap((pod) => podLines(pod, startMs, endMs));
      case 'serverless':
        return this.scenario.endpoints.filter((e) => wanted(e.id)).map((e) => endpointLine(e, startMs, endMs));
      case 'network_volumes':
        return this.scenario.volumes.filter((v) => wanted(v.id)).map((v) => volumeLine(v, startMs, endMs));
      case 'endpoints':
        return []; // Public Endpoints (RunPod-hosted models) are not part of scenarios.
    }
  }

  /** A cluster's member Pods, in the order of `pods`. */
  private membersOf(clusterId: string): PodState[] {
    return this.pods.filter((pod) => pod.spec.cluster?.id === clusterId);
  }

  private advance(nowMs: number): number {
    const t = Math.max(this.current, nowMs);
    while (this.nextEvent < this.events.length && (this.events[this.nextEvent] as OwnerEvent).atMs <= t) {
      const event = this.events[this.nextEvent++] as OwnerEvent;
      const pod = this.podsById.get(event.podId);
      const outcome = pod?.lifecycle.existsAt(event.atMs)
        ? pod.lifecycle.apply(event.action, event.atMs)
        : { ok: false as const, detail: `pod ${event.podId} no longer exists` };
      if (!outcome.ok) this.skippedEvents.push({ ...event, detail: outcome.detail });
    }
    this.current = t;
    return t;
  }
}
