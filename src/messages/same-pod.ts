import type { NotifyAlert } from '../alerts/alert.js';
import { groupBy } from '../db/group-by.js';
import type { AlertView, Block, CommandsBlock } from './view.js';

/**
 * A message often carries several alerts about one Pod: a person reads about the Pod once. The
 * most severe alert's view leads; the others add only what it lacks (every idle view opens alike).
 */

/** The Pod an alert is about, for idle and enforcement alerts about one Pod (never a cluster); else undefined. */
export function podOf(alert: Pick<NotifyAlert, 'rule' | 'account' | 'labels'>): string | undefined {
  const podId = alert.labels.pod_id;
  if ((alert.rule !== 'idle' && alert.rule !== 'enforce') || !podId || alert.labels.cluster_id) return undefined;
  return `${alert.account}/${podId}`;
}

/** Alerts in their order, those about one Pod gathered at the first of them. */
export function byPod<T extends Pick<NotifyAlert, 'rule' | 'account' | 'labels'>>(alerts: readonly T[]): T[][] {
  return [...groupBy(alerts, (alert) => podOf(alert) ?? alert).values()];
}

/** One view of one Pod: `top` with what each of `others` adds. */
export function mergeViews(top: AlertView, others: readonly AlertView[]): AlertView {
  const lead = [...top.lead];
  const blocks: Block[] = top.blocks.map((block) =>
    block.type === 'commands' ? { ...block, items: [...block.items] } : block,
  );
  for (const other of others) {
    for (const sentence of other.lead.slice(1)) if (!lead.includes(sentence)) lead.push(sentence);
    for (const block of other.blocks) addBlock(blocks, block);
  }
  return { ...top, lead, blocks };
}

function addBlock(blocks: Block[], block: Block): void {
  switch (block.type) {
    case 'spark': {
      if (blocks.some((b) => b.type === 'spark' && b.label === block.label)) return;
      const lastSpark = blocks.findLastIndex((b) => b.type === 'spark');
      blocks.splice(lastSpark + 1, 0, block);
      return;
    }
    case 'commands': {
      const commands = blocks.find((b): b is CommandsBlock => b.type === 'commands');
      if (!commands) {
        blocks.push(block);
        return;
      }
      for (const item of block.items) {
        if (!commands.items.some((i) => i.command === item.command)) commands.items.push(item);
      }
      return;
    }
    case 'note':
      if (!blocks.some((b) => b.type === 'note' && b.text === block.text)) blocks.push(block);
      return;
    default:
      // Tables, lists and bars repeat the Pod's figures in the other alert's words.
      return;
  }
}
