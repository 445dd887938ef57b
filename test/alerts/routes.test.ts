import { describe, expect, it } from 'vitest';
import { recipientsOn } from '../../src/alerts/route.js';
import { parseConfig } from '../../src/config/load.js';
import { problemsOf } from '../config/support.js';

const accounts = [{ name: 'main', apiKey: 'rpa_routes_key_0001' }];
const parse = (extra: Record<string, unknown>) =>
  parseConfig(
    { accounts, email: { host: 'smtp.example.com', from: 'podwarden@example.com', to: ['ops@example.com'] }, ...extra },
    { env: {}, baseDir: '/' },
  );

const slack = {
  destinations: ['alice-dm', 'bob-dm', 'ml'].map((name) => ({
    name,
    webhookUrl: `https://hooks.slack.com/services/T0/B0/${name}`,
  })),
};

const config = parse({
  slack,
  owners: {
    fromEnv: { owner: ['OWNER'], team: ['TEAM'] },
    contacts: {
      alice: { email: ['alice@example.com'], slack: ['alice-dm'] },
      bob: { slack: ['bob-dm'] },
      ml: { email: ['ml-lead@example.com'] },
    },
  },
  alerts: {
    routes: [
      { match: { rule: '/idle|waste/' }, to: { email: ['owner'], slack: ['owner'] } },
      { match: { rule: 'budget', budget: '/ml-.*/' }, to: { email: ['team', 'finance@example.com'], slack: ['ml'] } },
    ],
  },
});

const alert = (rule: string, labels: Record<string, string>) => ({
  rule,
  labels: { rule, account: 'main', ...labels },
  recipients: ['ops@example.com'],
});
const reach = (a: ReturnType<typeof alert>) =>
  Object.fromEntries(
    ['email', 'slack', 'webhook', 'alertmanager'].map((channel) => [channel, recipientsOn(config, a, channel)]),
  );

describe('alert routes', () => {
  it("sends an owner's alerts to that owner's contact on each channel the route names, and nowhere else", () => {
    expect(reach(alert('idle', { pod_id: 'p1', owner: 'alice', team: 'ml' }))).toEqual({
      email: ['alice@example.com'],
      slack: ['alice-dm'],
      webhook: undefined,
      alertmanager: undefined,
    });
  });

  it('leaves out a channel the contact has nothing on, and keeps the route while some channel reaches someone', () => {
    expect(reach(alert('idle', { pod_id: 'p2', owner: 'bob' }))).toEqual({
      email: undefined,
      slack: ['bob-dm'],
      webhook: undefined,
      alertmanager: undefined,
    });
  });

  it('falls to the default when the owner has no contact, or the alert no owner', () => {
    // Slack is configured, so the default reaches it too: [] is its default destination.
    const fallback = { email: ['ops@example.com'], slack: [], webhook: undefined, alertmanager: undefined };
    expect(reach(alert('idle', { pod_id: 'p3', owner: 'carol' }))).toEqual(fallback);
    expect(reach(alert('idle', { pod_id: 'p4' }))).toEqual(fallback);
  });

  it('mixes contacts and literal recipients, sorted, and matches a regex on the whole value', () => {
    expect(reach(alert('budget', { budget: 'ml-monthly', team: 'ml' }))).toEqual({
      email: ['finance@example.com', 'ml-lead@example.com'],
      slack: ['ml'],
      webhook: undefined,
      alertmanager: undefined,
    });
    // `/ml-.*/` is anchored: "team-ml-x" does not match, so the default takes it.
    expect(reach(alert('budget', { budget: 'team-ml-x', team: 'ml' })).email).toEqual(['ops@example.com']);
  });

  it('keeps the default (alerts.route and the rule recipients) when no route is configured', () => {
    const plain = parse({ alerts: { route: { idle: ['email'] } } });
    expect(recipientsOn(plain, alert('idle', { owner: 'alice' }), 'email')).toEqual(['ops@example.com']);
    expect(recipientsOn(plain, alert('idle', { owner: 'alice' }), 'alertmanager')).toBeUndefined();
  });

  it('names each bad route by its path', () => {
    const problems = problemsOf(() =>
      parse({
        alerts: {
          routes: [
            { match: { rule: '/idle(/' }, to: { email: ['owner', 'not-an-address'] } },
            { match: { 'bad-label': 'x' }, to: {} },
            { to: { alertmanager: true, pager: ['x'] } },
          ],
        },
      }),
    );
    expect(problems).toEqual([
      {
        path: 'alerts.routes[0].match.rule',
        message: expect.stringMatching(/^invalid regular expression "idle\(": .+/),
      },
      {
        path: 'alerts.routes[0].to.email[1]',
        message: 'invalid recipient "not-an-address" (expected an email address, "owner" or "team")',
      },
      { path: 'alerts.routes[1].match.bad-label', message: 'invalid label name "bad-label"' },
      { path: 'alerts.routes[1].to', message: 'names no channel (set email, slack, webhook or alertmanager)' },
      { path: 'alerts.routes[2].to.pager', message: 'unknown field' },
    ]);
  });

  it('refuses a route to alertmanager without alerts.alertmanager', () => {
    expect(problemsOf(() => parse({ alerts: { routes: [{ to: { alertmanager: true } }] } }))).toEqual([
      {
        path: 'alerts.routes[0].to.alertmanager',
        message: 'routes to alertmanager, but alerts.alertmanager is not set',
      },
    ]);
  });
});
