import { isAbsolute, relative } from 'node:path';
import { toIso } from '../clock.js';
import type { DaemonEvents } from '../daemon-events.js';
import type { EventBus } from '../events.js';
import { type CommandLine, commandText, silenceCommand, whyCommand } from '../messages/commands.js';
import type { ReceivedMail } from './mail-sink.js';

export interface BannerInfo {
  scenario: string;
  startMs: number;
  /** The metrics and status server's base URL. */
  httpUrl: string;
  mailDir: string;
  database: string;
  /** The daemon's and the simulator's log (JSON lines), kept off the console. */
  logFile: string;
  simUrl: string;
  apiKey: string;
  stopsAfter: string | undefined;
}

/** The very first line: the page where the story unfolds, printed before anything starts. */
export function statusPageLine(httpUrl: string): string {
  return `podwarden demo: open ${httpUrl}/ to watch it (the status page: idle Pods, alerts, Keep running)`;
}

/** What a newcomer reads next: where else to look, and what will happen when. */
export function bannerLines(info: BannerInfo): string[] {
  const until = info.stopsAfter ? `stops by itself after ${info.stopsAfter}` : 'Ctrl-C to stop';
  return [
    `Scenario ${info.scenario} from ${toIso(info.startMs)}, in real time (${until})`,
    `  Status page: ${info.httpUrl}/`,
    `  Metrics:     ${info.httpUrl}/metrics`,
    `  Status:      ${info.httpUrl}/api/status`,
    `  Mail folder: ${info.mailDir} (one .eml file per message)`,
    `  Database:    ${info.database}`,
    `  Log:         ${info.logFile} (the daemon's log, JSON lines)`,
    `  Simulator:   ${info.simUrl} (API key ${info.apiKey}; ground truth at /_sim/truth/pods)`,
    // The story of config/scenarios/demo.yaml (its header) as config/demo.yaml plays it.
    'What happens (scenario time; rules run every minute, an alert is mailed at the run after it fires):',
    '  09:00  nb-stopped, stopped two days ago, pays for its volume  → a waste alert',
    "  09:02  today's spend passes the $100 daily budget             → a budget alert by ~09:04",
    '  09:02  the notebook nb-demo goes idle                         → idle alert and stop warning by ~09:04',
    '                                                                → a dry-run stop a minute after the warning',
    '  09:03  H200 SXM comes back in stock                           → a capacity alert by ~09:05',
    '',
  ];
}

export interface TryInfo {
  /** How this podwarden runs on the configuration the demo wrote (absolute), as its mails quote it. */
  commandLine: Required<CommandLine>;
  /** The demo's Pod the commands name, and its account. */
  podId: string;
  account: string;
}

/**
 * The commands a newcomer tries next, complete and quoted so they work pasted into another
 * terminal anywhere: absolute paths, the demo's own configuration. `snooze` and `silence` count
 * their durations on the demo's clock (the daemon records it in the database).
 */
export function tryLines(info: TryInfo): string[] {
  const run = (...args: string[]) => `  ${commandText(info.commandLine, args)}`;
  const labels = { rule: 'idle', account: info.account, pod_id: info.podId };
  return [
    `Try these on the demo (its configuration stays in ${info.commandLine.config}):`,
    `  # why podwarden did (or did not) act on ${info.podId}`,
    `  ${whyCommand(info.commandLine, info.podId)}`,
    `  # keep ${info.podId} running: no idle warning or stop for 4 hours of the demo's clock`,
    run('snooze', info.podId, '4h', '--account', info.account),
    `  # mute ${info.podId}'s idle alerts for 2 hours, then list the silences`,
    `  ${silenceCommand(info.commandLine, 'idle', labels, '2h', `demo: ${info.podId}'s idle alerts`)}`,
    run('silence', 'list'),
    '',
  ];
}

/** `09:03:30  mail    [podwarden] Budget ... → .demo/mail/0001-budget.eml` */
export function mailLine(atMs: number, mail: ReceivedMail): string {
  return `${clockTime(atMs)}  mail    ${mail.subject || '(no subject)'} → ${shortPath(mail.file)}`;
}

/** Relative to the working directory when the file is inside it (`.demo/mail/...`), else absolute. */
function shortPath(file: string): string {
  const inside = relative(process.cwd(), file);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? file : inside;
}

/** The idle ladder's receipts (db/tables/idle.ts `receiptDecisions`) in a newcomer's words. */
const DECISIONS: Record<string, (pod: string, event: DaemonEvents['action:decided']) => string> = {
  notified: (pod) => `${pod} is idle: idle alert`,
  warned: (pod) => `${pod} will be stopped if it stays idle: stop warning`,
  dry_run: (pod) => `${pod} would be stopped now: dry-run stop (idle.rules[].dryRun), nothing was stopped`,
  stopped: (pod) => `${pod} stopped`,
  blocked: (pod, { held }) =>
    `${pod} not stopped: ${held.length === 0 ? 'a guard held the stop back' : held.map((guard) => `the ${guard.guard} guard held the stop back (${guard.detail})`).join('; ')}`,
  failed: (pod) => `${pod} could not be stopped`,
  // Busy again, or no longer judged (its data went unknown): a new idle spell starts over.
  cancelled: (pod, { reason }) =>
    reason?.startsWith('busy')
      ? `${pod} is busy again: the planned stop is cancelled`
      : `${pod} cannot be judged: the planned stop is cancelled (${reason ?? 'its idle spell ended'}); a new idle spell starts over`,
};

/** Prints one line per alert that fires or resolves and per action decided, as the daemon emits them. */
export function followDaemon(events: EventBus<DaemonEvents>, write: (line: string) => void): () => void {
  const offs = [
    events.on('alert:state', (event) => {
      if (event.state !== 'pending') write(`${clockTime(event.at)}  alert   ${event.state} ${event.key}`);
    }),
    events.on('action:decided', (event) => {
      const pod = `${event.podId}@${event.account}`;
      write(
        `${clockTime(event.at)}  action  ${DECISIONS[event.decision]?.(pod, event) ?? `${pod}: ${event.decision}`}`,
      );
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/** The scenario's time of day, which is what the banner's timeline counts in. */
function clockTime(atMs: number): string {
  return toIso(atMs).slice(11, 19);
}
