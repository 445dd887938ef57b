import type { AlertFields } from '../alerts/alert.js';
import type { CommandLine } from './commands.js';

/** The view model of an email, built from data; html.ts and text.ts render every message alike. */

/** A link rendered as a button in HTML and as `label: URL` in text (signed links come from the web layer). */
export interface Action {
  label: string;
  href: string;
}

export type Tone = 'info' | 'warning' | 'critical' | 'resolved';

/** Spend against an amount: `ratio` may exceed 1. */
export interface BarBlock {
  type: 'bar';
  label: string;
  ratio: number;
  /** Beside the bar: "$100.84 of $100.00". */
  caption: string;
}

/** A utilization sparkline: values 0–100, null for unknown (drawn as a gap). */
export interface SparkBlock {
  type: 'spark';
  label: string;
  values: (number | null)[];
  /** A value at or below this is idle (drawn muted). */
  threshold: number;
  /** Under the bars: the window's start and end. */
  from: string;
  to: string;
}

export interface TableBlock {
  type: 'table';
  title?: string;
  rows: [label: string, value: string][];
}

/** Copy-paste commands, each with what it does. */
export interface CommandsBlock {
  type: 'commands';
  title: string;
  items: { label: string; command: string }[];
}

export type Block =
  | BarBlock
  | SparkBlock
  | TableBlock
  | CommandsBlock
  | { type: 'list'; title: string; items: string[] }
  | { type: 'note'; text: string };

/** One alert's part of an email: a subject line, the lead sentences and the details. */
export interface AlertView {
  /** What, which, how much: the subject of a single-alert email. */
  headline: string;
  /** What and which, without figures: "Pod sdxl-lora-sweep idle", for "Resolved: …". */
  title: string;
  tone: Tone;
  /** One or two sentences a person understands without context. */
  lead: string[];
  blocks: Block[];
}

export interface EmailView {
  subject: string;
  tone: Tone;
  /** The headline inside the body (the subject without a prefix). */
  heading: string;
  lead: string[];
  blocks: Block[];
  /** Further alerts of the same message, each a section of its own under its headline. */
  sections: Pick<AlertView, 'headline' | 'tone' | 'lead' | 'blocks'>[];
  actions: Action[];
  /** Small print: why this mail came, where it came from. */
  footer: string[];
}

/** What every template may read besides its data. */
export interface RenderContext {
  /** When the message is written. */
  now: number;
  /** The zone times are shown in, unless the data names its own (a budget's). */
  timeZone: string;
  /** How the commands it quotes run this podwarden (program, `--config`). */
  commandLine: CommandLine;
  /** Whether the message carries signed action links (keep running, silence) under its lead. */
  links?: boolean;
  /** What the message calls itself ("after this mail reaches you"); `mail` when absent. */
  medium?: Medium;
}

/** An email is a mail; a chat or webhook message is a message. */
export type Medium = 'mail' | 'message';

/** The alert as a template sees it: rule, labels, figures and when it fired. */
export type AlertData = AlertFields;
