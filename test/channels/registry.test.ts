import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { channelsOf } from '../../src/alerts/route.js';
import { CHANNELS } from '../../src/channels/index.js';
import { parseConfig } from '../../src/config/load.js';
import { ALERT_CHANNELS } from '../../src/config/sections/channels.js';

const config = (sections: Record<string, unknown>) =>
  parseConfig({ accounts: [{ name: 'sim', apiKey: 'unused' }], ...sections }, { env: {}, baseDir: process.cwd() });
const SMTP = { email: { host: 'smtp.example.com', from: 'podwarden@example.com', to: ['ops@example.com'] } };
const ALERTMANAGER = { alerts: { alertmanager: { urls: ['http://alertmanager.example:9093'] } } };

describe('the channel registry', () => {
  it('has one channel for each name the configuration accepts, and no other', () => {
    const names = CHANNELS.map((channel) => channel.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...ALERT_CHANNELS].sort());
  });

  it('registers every channel module of src/channels', () => {
    const helpers = new Set(['channel.ts', 'context.ts', 'evaluator.ts', 'index.ts']);
    const modules = readdirSync(join(import.meta.dirname, '../../src/channels'))
      .filter((file) => file.endsWith('.ts') && !helpers.has(file) && !file.includes('-'))
      .map((file) => file.replace(/\.ts$/, ''));
    expect(modules.sort()).toEqual(CHANNELS.map((channel) => channel.name).sort());
  });

  it('routes a rule without a route to every configured channel, or else keeps its email unsent', () => {
    expect(channelsOf(config({}), 'idle')).toEqual(['email']);
    expect(channelsOf(config(SMTP), 'idle')).toEqual(['email']);
    expect(channelsOf(config(ALERTMANAGER), 'idle')).toEqual(['alertmanager']);
    expect(channelsOf(config({ ...SMTP, ...ALERTMANAGER }), 'idle')).toEqual(['email', 'alertmanager']);
    expect(
      channelsOf(config({ ...SMTP, alerts: { ...ALERTMANAGER.alerts, route: { idle: ['alertmanager'] } } }), 'idle'),
    ).toEqual(['alertmanager']);
    expect(channelsOf(config({ ...SMTP, alerts: { route: { idle: [] } } }), 'idle')).toEqual([]);
  });
});
