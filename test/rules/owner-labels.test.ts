import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { AccountSnapshot } from '../../src/db/snapshot.js';
import type { Finding } from '../../src/rules/finding.js';
import { withOwnerLabels } from '../../src/rules/owner-labels.js';

const owners = (section: unknown) =>
  parseConfig(
    { accounts: [{ name: 'main', apiKey: 'rpa_labels_key_0001' }], owners: section },
    { env: {}, baseDir: '/' },
  ).owners;

/** The parts of a tick's snapshot ownership reads: Pods (name, env), endpoints and network volumes (name). */
const snapshot = {
  pods: [
    { podId: 'p1', name: 'ml-alice-notebook', env: {} },
    { podId: 'p2', name: 'scratch', env: { OWNER: 'carol' } },
    { podId: 'p3', name: 'scratch-2', env: {} },
  ],
  waste: {
    endpoints: [{ endpointId: 'ep1', name: 'vision-dave-sdxl' }],
    networkVolumes: [{ networkVolumeId: 'vol1', name: 'ml-erin-datasets' }],
  },
} as unknown as AccountSnapshot;
const snapshots = new Map([['main', snapshot]]);

const finding = (labels: Record<string, string>): Finding => ({
  rule: 'waste',
  key: `waste:main:${Object.values(labels).join(':')}`,
  account: 'main',
  severity: 'warning',
  summary: 'x',
  labels: { rule: 'waste', account: 'main', ...labels },
  details: {},
});

describe('owner labels on findings', () => {
  const config = owners({ fromEnv: { owner: ['OWNER'] }, fromName: ['^(?<team>[a-z]+)-(?<owner>[a-z]+)-'] });

  it('labels findings about Pods, endpoints and volumes with what ownership names, and nothing else', () => {
    const findings = [
      finding({ pod_id: 'p1' }),
      finding({ pod_id: 'p2' }),
      finding({ pod_id: 'p3' }),
      finding({ endpoint_id: 'ep1' }),
      finding({ network_volume_id: 'vol1' }),
      finding({ pod_id: 'gone' }),
      finding({ budget: 'monthly' }),
    ];
    expect(withOwnerLabels(findings, snapshots, config).map((f) => [f.labels.owner, f.labels.team])).toEqual([
      ['alice', 'ml'],
      ['carol', undefined],
      [undefined, undefined],
      ['dave', 'vision'],
      ['erin', 'ml'],
      [undefined, undefined],
      [undefined, undefined],
    ]);
  });

  it('keeps an owner or team label the rule set itself, and returns unowned findings as they were', () => {
    const own = finding({ pod_id: 'p1', team: 'finance' });
    const unowned = finding({ pod_id: 'p3' });
    const [labelled, same] = withOwnerLabels([own, unowned], snapshots, config);
    expect(labelled?.labels).toEqual({ rule: 'waste', account: 'main', pod_id: 'p1', team: 'finance', owner: 'alice' });
    expect(same).toBe(unowned);
  });

  it('changes nothing without owners configured', () => {
    const findings = [finding({ pod_id: 'p1' }), finding({ pod_id: 'p2' })];
    const out = withOwnerLabels(findings, snapshots, owners(undefined));
    expect(out.every((f, index) => f === findings[index])).toBe(true);
  });
});
