import type { NotifyAlert } from './alert.js';

/** Alerts that share one message: the same recipients and the same values of the groupBy labels. */
export interface AlertGroup {
  groupKey: string;
  receiver: string[];
  /** The groupBy labels the group's alerts share (absent labels left out). */
  labels: Record<string, string>;
  firing: NotifyAlert[];
  resolved: NotifyAlert[];
}

/** `{account="sim",rule="budget"}:ops@example.com`, stable for a given groupBy and recipients. */
export function groupKeyOf(labels: Readonly<Record<string, string>>, receiver: readonly string[]): string {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return `{${pairs.join(',')}}:${receiver.join(',')}`;
}

/** Group stage: splits the batch by groupBy labels and recipients, in the order groups first appear. */
export function groupAlerts(batch: readonly NotifyAlert[], groupBy: readonly string[]): AlertGroup[] {
  const groups = new Map<string, AlertGroup>();
  for (const alert of batch) {
    const labels: Record<string, string> = {};
    for (const name of groupBy) {
      const value = alert.labels[name];
      if (value !== undefined) labels[name] = value;
    }
    const groupKey = groupKeyOf(labels, alert.recipients);
    let group = groups.get(groupKey);
    if (!group) {
      group = { groupKey, receiver: alert.recipients, labels, firing: [], resolved: [] };
      groups.set(groupKey, group);
    }
    (alert.resolvedAt === null ? group.firing : group.resolved).push(alert);
  }
  return [...groups.values()];
}
