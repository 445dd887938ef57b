import { describe, expect, it } from 'vitest';
import { reportedAccounts } from '../../src/replay/alert-report.js';

const email = (account: string, subject: string) => ({
  account,
  at: '2026-11-02T01:00:00Z',
  to: ['ml-oncall@corp.example'],
  subject,
  delivered: true,
  reason: 'first',
  alertKeys: [`idle:${account}:nb`],
});

describe('reportedAccounts', () => {
  const accounts = [{ name: 'research' }, { name: 'inference' }];
  const statuses: Array<Record<string, string>> = [{ nb: 'EXITED', train: 'RUNNING' }, { nb: 'RUNNING' }];
  const stops = [{ at: Date.parse('2026-11-02T00:56:30Z'), account: 'research', podId: 'nb', dryRun: false }];

  it("gives each account its own emails, stops and world's Pods, in the configuration's order", () => {
    const report = reportedAccounts(accounts, statuses, stops, [
      email('inference', 'Pod nb idle 30m'),
      email('research', 'Pod nb would be stopped'),
    ]);
    expect(report).toEqual([
      {
        name: 'research',
        emails: [expect.objectContaining({ subject: 'Pod nb would be stopped', to: ['ml-oncall@corp.example'] })],
        stops: [{ at: '2026-11-02T00:56:30Z', podId: 'nb', dryRun: false }],
        pods: [
          { id: 'nb', finalStatus: 'EXITED' },
          { id: 'train', finalStatus: 'RUNNING' },
        ],
      },
      {
        name: 'inference',
        emails: [expect.objectContaining({ subject: 'Pod nb idle 30m' })],
        stops: [],
        pods: [{ id: 'nb', finalStatus: 'RUNNING' }],
      },
    ]);
    expect(report[0]?.emails[0]).not.toHaveProperty('account');
  });

  it('keeps a message about several accounts under `all`, last, so none drops out', () => {
    const report = reportedAccounts(accounts, statuses, [], [email('all', 'Budget team-daily at 101%')]);
    expect(report.map((account) => [account.name, account.emails.map((e) => e.subject)])).toEqual([
      ['research', []],
      ['inference', []],
      ['all', ['Budget team-daily at 101%']],
    ]);
  });

  it('adds no `all` entry when every message belongs to one account', () => {
    expect(reportedAccounts(accounts, statuses, stops, []).map((account) => account.name)).toEqual([
      'research',
      'inference',
    ]);
  });
});
