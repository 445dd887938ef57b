import { toIso } from '../clock.js';
import { GROUP_COLUMNS, type Report, type ReportFigures } from './report-rows.js';

export const REPORT_FORMATS = ['table', 'csv', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** The figure columns, after the group's: header and how a row's value reads. */
const FIGURES: ReadonlyArray<{ header: string; field: keyof ReportFigures; money: boolean }> = [
  { header: 'spend_usd', field: 'spend', money: true },
  { header: 'saved_usd', field: 'saved', money: true },
  { header: 'stops', field: 'stops', money: false },
  { header: 'dry_run_stops', field: 'dryRunStops', money: false },
];

/** USD to the cent, as a number: what every format shows (a report is read to the cent). */
export function cents(amount: number): number {
  // Half a cent rounds away from zero; the epsilon keeps 0.125 (stored as 0.12499…) at 0.13.
  return Math.round((amount + Math.sign(amount) * 1e-9) * 100) / 100;
}

/** `podwarden report` in one of its formats; each ends with a newline. */
export function formatReport(report: Report, format: ReportFormat): string {
  switch (format) {
    case 'table':
      return reportTable(report);
    case 'csv':
      return reportCsv(report);
    case 'json':
      return reportJson(report);
  }
}

/**
 * The JSON shape: `{ from, to, by, timeZone, currency: "USD", rows: [{ <group columns>, spend,
 * saved, stops, dryRunStops }], total: { spend, saved, stops, dryRunStops } }`, amounts in USD
 * to the cent, times RFC 3339 in UTC (`to` exclusive).
 */
function reportJson(report: Report): string {
  const figures = (f: ReportFigures) => ({
    spend: cents(f.spend),
    saved: cents(f.saved),
    stops: f.stops,
    dryRunStops: f.dryRunStops,
  });
  const body = {
    from: toIso(report.from),
    to: toIso(report.to),
    by: report.by,
    timeZone: report.timeZone,
    currency: 'USD',
    rows: report.rows.map((row) => ({ ...row.group, ...figures(row) })),
    total: figures(report.total),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** RFC 4180: a header row, CRLF line ends, fields with a comma, quote or line break quoted. */
function reportCsv(report: Report): string {
  const quote = (field: string) => (/[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field);
  const columns = GROUP_COLUMNS[report.by];
  const lines = [[...columns, ...FIGURES.map((f) => f.header)]];
  for (const row of report.rows) lines.push([...columns.map((c) => row.group[c] ?? ''), ...figureCells(row)]);
  return lines.map((cells) => `${cells.map(quote).join(',')}\r\n`).join('');
}

function figureCells(figures: ReportFigures): string[] {
  return FIGURES.map(({ field, money }) => (money ? cents(figures[field]).toFixed(2) : String(figures[field])));
}

/** For a terminal: a title line, then columns aligned (figures to the right), and a total row. */
function reportTable(report: Report): string {
  const columns = GROUP_COLUMNS[report.by];
  const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const cells = (figures: ReportFigures) =>
    FIGURES.map(({ field, money: isMoney }) =>
      isMoney ? money.format(cents(figures[field])) : String(figures[field]),
    );
  const header = [...columns, ...FIGURES.map((f) => f.header)];
  const body = report.rows.map((row) => [...columns.map((c) => row.group[c] ?? ''), ...cells(row)]);
  const total = [...columns.map((_, i) => (i === 0 ? 'total' : '')), ...cells(report.total)];
  const all = [header, ...body, total];
  const widths = header.map((_, i) => Math.max(...all.map((line) => (line[i] ?? '').length)));
  const line = (cellsOf: string[]) =>
    cellsOf
      .map((cell, i) => (i < columns.length ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const title = `Spend, savings and stops by ${report.by}, ${toIso(report.from)} to ${toIso(report.to)} (exclusive), days in ${report.timeZone}, USD`;
  const rows = body.length === 0 ? ['(nothing billed, saved or stopped in this window)'] : body.map(line);
  return `${[title, '', line(header), rule, ...rows, rule, line(total)].join('\n')}\n`;
}
