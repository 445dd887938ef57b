import type { NotifyAlert } from '../../src/alerts/alert.js';
import type { DigestNotice, FlappingNotice } from '../../src/alerts/notices.js';
import type { Notification } from '../../src/alerts/pipeline.js';
import type {
  BudgetDetails,
  CapacityDetails,
  EnforceDetails,
  HealthDetails,
  IdleDetails,
  WasteDetails,
} from '../../src/rules/finding-details.js';

/**
 * One alert of every kind a person can receive, with the figures a rule would write: the golden
 * emails and the screenshots render these. Times are fixed; nothing here reads a clock.
 */

export const NOW = Date.UTC(2026, 10, 2, 14, 30, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY_START = Date.UTC(2026, 10, 2, 5, 0, 0);

function alert(
  id: number,
  rule: string,
  severity: string,
  labels: Record<string, string>,
  details: object,
): NotifyAlert {
  return {
    id,
    key: `${rule}:team:${id}`,
    rule,
    account: 'team',
    severity,
    summary: 'legacy one-line summary (only shown for details of an older version)',
    labels: { rule, account: 'team', ...labels },
    details: details as Record<string, unknown>,
    recipients: ['ml-team@example.com'],
    firedAt: NOW - 5 * MIN,
    resolvedAt: null,
  };
}

function budget(
  figure: BudgetDetails['figure'],
  threshold: number,
  value: number,
  spent: Pick<BudgetDetails, 'actual' | 'live'> & Partial<Pick<BudgetDetails, 'crossed' | 'runsOutAt'>>,
): BudgetDetails {
  return {
    kind: 'budget',
    budget: 'gpu-daily',
    scope: 'account',
    figure,
    threshold,
    value,
    amount: 100,
    timeZone: 'America/New_York',
    period: { kind: 'day', label: '2026-11-02', startMs: DAY_START, endMs: DAY_START + 24 * HOUR },
    currentPerHour: 38.5,
    trailing: { perHour: 4.94, windowMs: 24 * HOUR, forecast: 175.5 },
    forecastAtCurrentRate: 675.34,
    runsOutAt: null,
    evaluatedAt: NOW,
    ...spent,
    drivers: [
      { kind: 'pods', resourceId: 'p7x2k9', name: 'train-llama-70b', amount: 61.2 },
      { kind: 'serverless', resourceId: 'ep-sdxl', name: 'sdxl-turbo', amount: 21.05 },
      { kind: 'network_volumes', resourceId: 'vol-datasets', name: 'datasets', amount: 3.1 },
    ],
  };
}

const utilization = {
  from: NOW - 75 * MIN,
  to: NOW,
  gpu: [88, 91, 64, 12, 3, 0, 0, 1, 0, null, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
  memory: [70, 72, 71, 70, 70, 70, 70, 70, 70, null, 70, 70, 70, 70, 70, 70, 70, 70, 70, 70, 70, 70, 70, 70],
  threshold: 5,
};

function idle(stage: IdleDetails['stage'], dryRun = false, locked = false): IdleDetails {
  return {
    kind: 'idle',
    stage,
    podId: 'q8w3e5r7',
    podName: 'sdxl-lora-sweep',
    gpuTypeId: 'NVIDIA A100 80GB PCIe',
    gpuCount: 2,
    idleRule: 'gpu-idle',
    reason: 'GPU at or below 5% for the whole window',
    idleSince: NOW - 62 * MIN,
    evaluatedAt: NOW,
    costPerHr: 3.28,
    savingPerHr: 3.14,
    utilization,
    stopAt: stage === 'idle' || stage === 'held' ? NOW + 28 * MIN : NOW + 13 * MIN,
    warnedAt: stage === 'warn' || stage === 'stop' ? NOW - 2 * MIN : null,
    warnLeadMs: 15 * MIN,
    locked,
    decidedAt: stage === 'stop' ? NOW : null,
    dryRun,
  };
}

const idleLabels = {
  pod_id: 'q8w3e5r7',
  pod_name: 'sdxl-lora-sweep',
  idle_rule: 'gpu-idle',
  gpu_type_id: 'NVIDIA A100 80GB PCIe',
};

const capacity: CapacityDetails = {
  kind: 'capacity',
  event: 'rise',
  gpuTypeId: 'NVIDIA H200',
  gpuName: 'H200 SXM',
  product: 'POD',
  dataCenter: 'US-KS-2',
  from: 'NONE',
  to: 'HIGH',
  cloud: null,
  at: NOW - 4 * MIN,
  price: { secure: 3.99, community: 3.29 },
};

const waste: WasteDetails = {
  kind: 'waste',
  check: 'stopped-pod-volume',
  resourceId: 'c4a100xx',
  resourceName: 'carol-a100',
  since: NOW - 2 * 24 * HOUR - 3 * HOUR,
  sinceIsLowerBound: false,
  evaluatedAt: NOW,
  costPerHour: 0.0274,
  costPerDay: 0.66,
  paidSoFar: 1.4,
  sizeGb: 100,
  workersUp: null,
  workersMin: null,
  hint: 'terminate the Pod if its disk is not needed',
};

const endpointWaste: WasteDetails = {
  kind: 'waste',
  check: 'endpoint-idle',
  resourceId: 'ep-sdxl',
  resourceName: 'sdxl-turbo',
  since: NOW - 6 * HOUR - 20 * MIN,
  sinceIsLowerBound: true,
  evaluatedAt: NOW,
  costPerHour: 1.1,
  costPerDay: 26.4,
  paidSoFar: 6.97,
  sizeGb: null,
  workersUp: 1,
  workersMin: 1,
  hint: 'set the minimum workers to 0 if no one needs an instant answer',
};

const health: HealthDetails = {
  kind: 'health',
  check: 'idle-stops-frozen',
  collector: 'pods',
  lastSuccessAt: NOW - 34 * MIN,
  limitMs: 2 * MIN,
  evaluatedAt: NOW,
};

function enforce(
  enforceKind: EnforceDetails['enforceKind'],
  stage: EnforceDetails['stage'],
  extra: Partial<EnforceDetails> = {},
): EnforceDetails {
  const deadline = enforceKind === 'deadline';
  return {
    kind: 'enforce',
    stage,
    enforceKind,
    control: deadline ? 'training' : 'vision-nights',
    why: deadline ? 'maximum runtime 12h' : 'off-hours from Mon 2 Nov, 15:00 UTC to Tue 3 Nov, 07:00 UTC',
    podId: 'q8w3e5r7',
    podName: 'sdxl-lora-sweep',
    gpuTypeId: 'NVIDIA A100 80GB PCIe',
    gpuCount: 2,
    costPerHr: 3.28,
    savingPerHr: 3.25,
    stopAt: NOW + 30 * MIN,
    extendedMs: 0,
    extendByMs: deadline ? 2 * HOUR : null,
    occurrence: Date.UTC(2026, 10, 2, 3, 0, 0),
    warnedAt: NOW,
    warnLeadMs: 30 * MIN,
    locked: false,
    decidedAt: stage === 'warn' ? null : NOW + 31 * MIN,
    dryRun: false,
    evaluatedAt: NOW,
    ...extra,
  };
}

const enforceLabels = (kind: string, control: string) => ({
  pod_id: 'q8w3e5r7',
  pod_name: 'sdxl-lora-sweep',
  kind,
  control,
  stage: 'warn',
});

/** The enforcement ladder's mails (kept out of ALERTS: no screenshots of them yet). */
export const ENFORCE_ALERTS: Record<string, NotifyAlert> = {
  'enforce-deadline-warn': alert(
    20,
    'enforce',
    'warning',
    enforceLabels('deadline', 'training'),
    enforce('deadline', 'warn'),
  ),
  'enforce-deadline-warn-dry-run': alert(
    21,
    'enforce',
    'warning',
    enforceLabels('deadline', 'training'),
    enforce('deadline', 'warn', { dryRun: true }),
  ),
  'enforce-schedule-warn': alert(
    22,
    'enforce',
    'warning',
    enforceLabels('schedule', 'vision-nights'),
    enforce('schedule', 'warn'),
  ),
  'enforce-deadline-stop': alert(
    23,
    'enforce',
    'warning',
    enforceLabels('deadline', 'training'),
    enforce('deadline', 'stop'),
  ),
};

/** Every kind of alert by the name its golden files carry. */
export const ALERTS: Record<string, NotifyAlert> = {
  // Live spend past 80 %, billing not yet.
  'budget-spent-80': alert(
    1,
    'budget',
    'warning',
    { budget: 'gpu-daily', figure: 'spent', threshold: '80', scope: 'account' },
    budget('spent', 80, 83.6, { actual: 78.1, live: 83.6, crossed: ['live'], runsOutAt: NOW + 26 * MIN }),
  ),
  // Both figures past 100 %.
  'budget-spent': alert(
    2,
    'budget',
    'critical',
    { budget: 'gpu-daily', figure: 'spent', threshold: '100', scope: 'account' },
    budget('spent', 100, 110.75, { actual: 103.2, live: 110.75, crossed: ['actual', 'live'] }),
  ),
  'budget-forecast': alert(
    3,
    'budget',
    'critical',
    { budget: 'gpu-daily', figure: 'forecast', threshold: '100', scope: 'account' },
    budget('forecast', 100, 175.5, { actual: 92.4, live: 100.84 }),
  ),
  'idle-notify': alert(4, 'idle', 'info', idleLabels, idle('idle')),
  'idle-held': alert(5, 'idle', 'info', { ...idleLabels, held: 'true' }, idle('held')),
  'idle-warn': alert(6, 'idle', 'warning', { ...idleLabels, stage: 'warn' }, idle('warn')),
  'idle-locked': alert(16, 'idle', 'info', idleLabels, idle('idle', false, true)),
  'idle-stop': alert(7, 'idle', 'warning', { ...idleLabels, stage: 'warn' }, idle('stop')),
  'idle-stop-dry-run': alert(8, 'idle', 'warning', { ...idleLabels, stage: 'warn' }, idle('stop', true)),
  capacity: alert(
    9,
    'capacity',
    'info',
    { gpu_type_id: 'NVIDIA H200', product: 'POD', data_center_id: 'US-KS-2', event: 'rise' },
    capacity,
  ),
  waste: alert(10, 'waste', 'warning', { check: 'stopped-pod-volume', pod_id: 'c4a100xx' }, waste),
  'waste-endpoint': alert(12, 'waste', 'warning', { check: 'endpoint-idle', endpoint_id: 'ep-sdxl' }, endpointWaste),
  health: alert(11, 'health', 'critical', { collector: 'pods' }, health),
};

export function firstNotification(alert: NotifyAlert): Notification {
  return {
    groupKey: `{rule="${alert.rule}"}:ml-team@example.com`,
    receiver: ['ml-team@example.com'],
    reason: 'first',
    firing: [alert],
    fresh: [alert],
    resolved: [],
    repeatIntervalMs: 4 * HOUR,
    now: NOW,
  };
}

export function resolvedNotification(alert: NotifyAlert): Notification {
  const resolved = { ...alert, resolvedAt: NOW - MIN };
  return { ...firstNotification(alert), reason: 'all_resolved', firing: [], fresh: [], resolved: [resolved] };
}

/** sdxl-lora-sweep: held idle ~35 minutes of every hour, fired three times in six hours. */
export const FLAPPING: FlappingNotice = {
  kind: 'flapping',
  key: 'idle:team:q8w3e5r7:held',
  rule: 'idle',
  account: 'team',
  labels: { rule: 'idle', account: 'team', ...idleLabels, held: 'true' },
  summary: 'legacy one-line summary',
  details: idle('held') as unknown as Record<string, unknown>,
  since: NOW,
  fires: 3,
  windowMs: 6 * HOUR,
  firingShare: 0.1,
  firingPerHourMs: 6 * MIN,
  heldShare: 35 / 60,
  heldPerHourMs: 35 * MIN,
  costPerHr: 3.28,
  costPerDay: 3.28 * (35 / 60) * 24,
  recipients: ['ml-team@example.com'],
  now: NOW,
};

const bobIdle = alert(
  13,
  'idle',
  'info',
  { pod_id: 'b0bj7p4x', pod_name: 'bob-jupyter', idle_rule: 'gpu-idle' },
  { ...idle('idle'), podId: 'b0bj7p4x', podName: 'bob-jupyter', costPerHr: 0.69, savingPerHr: 0.66 },
);

/** The team account at 09:00 Berlin: a budget, an idle Pod, two wastes, a flapping Pod, two stops. */
export const DIGEST: DigestNotice = {
  kind: 'digest',
  account: 'team',
  open: [ALERTS['budget-spent'], bobIdle, ALERTS.waste, ALERTS['waste-endpoint']].map((open) => {
    if (!open) throw new Error('fixture missing');
    return open;
  }),
  flapping: [FLAPPING],
  savings: [
    {
      podId: 'n8bobxx1',
      podName: 'nb-bob',
      decidedAt: NOW - 20 * HOUR,
      dryRun: false,
      savingPerHr: 1.64,
      notBilledMs: 17 * HOUR + 25 * MIN,
      ongoing: false,
      saved: 1.64 * (17 + 25 / 60),
    },
    {
      podId: 'c4a100xx',
      podName: 'carol-a100',
      decidedAt: NOW - 3 * HOUR,
      dryRun: true,
      savingPerHr: 1.6,
      notBilledMs: 3 * HOUR,
      ongoing: true,
      saved: 4.8,
    },
  ],
  since: NOW - 24 * HOUR,
  sinceLastDigest: true,
  timeZone: 'Europe/Berlin',
  recipients: ['finance@example.com', 'ml-team@example.com'],
  now: NOW,
};

/**
 * The grouped idle mail: one Pod held idle (fired first) and now warned, in one message, as the
 * default grouping (account, rule) puts them.
 */
export function idleGroupedNotification(): Notification {
  const held = { ...(ALERTS['idle-held'] as NotifyAlert), firedAt: NOW - 20 * MIN };
  const warn = ALERTS['idle-warn'] as NotifyAlert;
  return { ...firstNotification(held), firing: [held, warn], fresh: [held, warn] };
}
