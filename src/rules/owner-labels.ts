import { type OwnedResource, type Ownership, ownerOf } from '../config/owner-of.js';
import { namesAnyone } from '../config/owner-sources.js';
import type { OwnersConfig } from '../config/sections/owners.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import type { Finding } from './finding.js';

/**
 * Every finding about a Pod, endpoint or network volume (its `pod_id`, `endpoint_id` or
 * `network_volume_id` label) gains `owner` and `team` labels when ownership names them: the one
 * place they are added, whatever rule made the finding. A label ownership does not name is left
 * absent, never empty; one the rule set itself is kept. Findings of unowned resources (or with no
 * `owners` configured) come back as they were, the same objects.
 */
export function withOwnerLabels(
  findings: readonly Finding[],
  snapshots: ReadonlyMap<string, AccountSnapshot>,
  owners: OwnersConfig,
): Finding[] {
  if (!namesAnyone(owners)) return [...findings];
  const indexes = new Map<string, ResourceIndex>();
  const indexOf = (account: string) => {
    let index = indexes.get(account);
    if (index === undefined) {
      index = resourceIndex(snapshots.get(account));
      indexes.set(account, index);
    }
    return index;
  };
  return findings.map((finding) => {
    const resource = resourceOf(finding, indexOf(finding.account));
    if (resource === undefined) return finding;
    const added = ownershipLabels(ownerOf(owners, resource), finding.labels);
    return Object.keys(added).length === 0 ? finding : { ...finding, labels: { ...finding.labels, ...added } };
  });
}

/** The labels an ownership adds to a label set: those it names that the set lacks. */
export function ownershipLabels(ownership: Ownership, labels: Readonly<Record<string, string>> = {}) {
  const added: { owner?: string; team?: string } = {};
  if (ownership.owner !== null && labels.owner === undefined) added.owner = ownership.owner;
  if (ownership.team !== null && labels.team === undefined) added.team = ownership.team;
  return added;
}

type ResourceIndex = Record<'pods' | 'endpoints' | 'volumes', ReadonlyMap<string, OwnedResource>>;

/** An account's Pods, endpoints and network volumes by id, from the tick's snapshot. */
function resourceIndex(snapshot: AccountSnapshot | undefined): ResourceIndex {
  return {
    pods: new Map((snapshot?.pods ?? []).map((pod) => [pod.podId, pod])),
    endpoints: new Map((snapshot?.waste?.endpoints ?? []).map((endpoint) => [endpoint.endpointId, endpoint])),
    volumes: new Map((snapshot?.waste?.networkVolumes ?? []).map((volume) => [volume.networkVolumeId, volume])),
  };
}

/** The resource a finding is about (one not in the snapshot: undefined). */
function resourceOf(finding: Finding, index: ResourceIndex): OwnedResource | undefined {
  const { pod_id: podId, endpoint_id: endpointId, network_volume_id: volumeId } = finding.labels;
  if (podId !== undefined) return index.pods.get(podId);
  if (endpointId !== undefined) return index.endpoints.get(endpointId);
  if (volumeId !== undefined) return index.volumes.get(volumeId);
  return undefined;
}
