import { shellCommand } from '../format.js';

/**
 * Commands printed in messages, quoted so they survive a copy and paste. A silence matches the
 * alert's identity (the labels that name the thing it is about), never one episode's key: a
 * silence of "this Pod is idle" must still hold when the Pod goes idle again tomorrow.
 */

/** How a person runs this podwarden: the program's words and the daemon's configuration file. */
export interface CommandLine {
  program: readonly string[];
  /** Absolute; absent where there is no file (a library caller's in-memory configuration). */
  config?: string;
}

/** For callers that know nothing better (tests, a replay's in-memory configuration). */
export const BARE_COMMAND_LINE: CommandLine = { program: ['podwarden'] };

/** One podwarden command, as pasted: the program, its arguments, then `--config` when there is a file. */
export function commandText(cli: CommandLine, args: readonly string[]): string {
  return shellCommand([...cli.program, ...args, ...(cli.config === undefined ? [] : ['--config', cli.config])]);
}

/** The labels that name what an alert is about, per rule; stage-like labels are left out. */
const IDENTITY: Record<string, readonly string[]> = {
  budget: ['rule', 'account', 'budget'],
  idle: ['rule', 'account', 'pod_id', 'cluster_id'],
  capacity: ['rule', 'account', 'gpu_type_id', 'product', 'data_center_id', 'event'],
  waste: ['rule', 'account', 'check', 'pod_id', 'endpoint_id', 'network_volume_id'],
  health: ['rule', 'account', 'collector'],
};

/** `name=value` per identity label; an alert that names no resource (a rule-wide one) keeps all its labels. */
export function identityMatchers(rule: string, labels: Readonly<Record<string, string>>): string[] {
  const present = (names: readonly string[]) => names.filter((name) => (labels[name] ?? '') !== '');
  let names = present(IDENTITY[rule] ?? []);
  if (names.filter((name) => name !== 'rule' && name !== 'account').length === 0)
    names = present(Object.keys(labels).sort());
  return names.map((name) => `${name}=${labels[name]}`);
}

export function silenceCommand(
  cli: CommandLine,
  rule: string,
  labels: Readonly<Record<string, string>>,
  duration: string,
  comment: string,
): string {
  const matchers = identityMatchers(rule, labels).flatMap((matcher) => ['--match', matcher]);
  return commandText(cli, ['silence', 'add', ...matchers, '--for', duration, '--comment', comment]);
}

/** The Commands block of a message whose one command silences its alert for `duration`. */
export function silenceBlock(
  cli: CommandLine,
  alert: { rule: string; labels: Readonly<Record<string, string>> },
  label: string,
  duration: string,
  comment: string,
) {
  const command = silenceCommand(cli, alert.rule, alert.labels, duration, comment);
  return { type: 'commands' as const, title: 'Commands', items: [{ label, command }] };
}

export function snoozeCommand(cli: CommandLine, podId: string, duration: string): string {
  return commandText(cli, ['snooze', podId, duration]);
}

export function whyCommand(cli: CommandLine, podId: string): string {
  return commandText(cli, ['why', podId]);
}
