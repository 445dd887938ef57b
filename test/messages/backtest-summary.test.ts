import { describe, expect, it } from 'vitest';
import { backtestSummary } from '../../src/messages/backtest-summary.js';
import type { ReplayReport, ReportedEmail } from '../../src/replay/report.js';

const email = (index: number): ReportedEmail => ({
  at: `2026-11-02T${String(index % 24).padStart(2, '0')}:30:00Z`,
  to: ['ml-oncall@corp.example'],
  subject: `Pod nb-${index} idle 30m, $0.27/h`,
  delivered: true,
  reason: 'first',
  alertKeys: [`idle:research:nb-${index}`],
});

function report(emails: ReportedEmail[], stops: ReplayReport['stops']): ReplayReport & { warnings: unknown[] } {
  return {
    scenario: 'prod-day',
    virtualStart: '2026-11-02T00:00:00Z',
    virtualEnd: '2026-11-03T00:00:00Z',
    stops,
    alerts: [],
    emails,
    channels: {},
    accounts: [
      { name: 'research', emails, stops, pods: [] },
      { name: 'inference', emails: [], stops: [], pods: [] },
    ],
    api: { requests: 6368, status429: 0, status5xx: 105, resets: 2 },
    pods: [],
    collectors: {},
    wallMs: 35_512,
    warnings: [{}, {}],
  };
}

describe('backtestSummary', () => {
  it('names what was not called and lists each account with its emails', () => {
    const text = backtestSummary(
      report([email(1), email(2)], [{ at: '2026-11-02T01:00:00Z', podId: 'nb-1', dryRun: true }]),
      {
        until: '24h',
        reportPath: 'report.json',
        sandboxed: {
          smtp: 'smtp.corp.example:587',
          apiUrls: ['https://api.runpod.io/v2'],
          alertmanagerUrls: ['https://am.corp.example'],
        },
      },
    );
    expect(text).toContain(
      'simulated 24h of prod-day in 35.5 s: 6368 requests (0 × 429, 105 × 5xx), 1 stop, 0 alerts, 2 emails; report: report.json',
    );
    expect(text).toContain(
      'Not called: SMTP server smtp.corp.example:587, API https://api.runpod.io/v2, Alertmanager https://am.corp.example.',
    );
    expect(text).toContain('2 warnings logged');
    expect(text).toContain('research: 2 emails would have been sent, 1 stop (dry run)');
    expect(text).toContain('  Mon 2 Nov, 01:30 UTC  first  to ml-oncall@corp.example\n    Pod nb-1 idle 30m, $0.27/h');
    expect(text).toContain('inference: 0 emails would have been sent, 0 stops\n');
  });

  it('lists 25 emails per account and counts the rest, which the report holds', () => {
    const text = backtestSummary(
      report(
        Array.from({ length: 30 }, (_, i) => email(i)),
        [],
      ),
      { until: '24h' },
    );
    expect(text).toContain('Pod nb-24 idle');
    expect(text).not.toContain('Pod nb-25 idle');
    expect(text).toContain('  … and 5 more emails in the report');
    expect(text).not.toContain('Not called');
  });
});
