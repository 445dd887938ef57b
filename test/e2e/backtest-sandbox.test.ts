import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../src/replay/report.js';
import type { ReplayWarning } from '../../src/replay/warnings.js';
import { idleFrom, pod, scenario } from '../actions/idle-world.js';
import { type CliResult, runCli } from '../helpers/cli.js';

/**
 * A backtest is a sandbox: `podwarden simulate --config prod.yaml` with a real-looking SMTP host,
 * an Alertmanager and RunPod API URLs (listening sockets that must see no connection) and two
 * accounts replays both accounts, reports the emails each would have sent to the file's
 * recipients, and keeps the warnings of injected faults out of the terminal.
 */
interface Forbidden {
  server: Server;
  connections: number;
  port: number;
}

async function forbiddenPeer(): Promise<Forbidden> {
  const peer = { server: createServer(), connections: 0, port: 0 };
  peer.server.on('connection', (socket) => {
    peer.connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => peer.server.listen(0, '127.0.0.1', resolve));
  peer.port = (peer.server.address() as { port: number }).port;
  return peer;
}

let dir: string;
let smtp: Forbidden;
let alertmanager: Forbidden;
let runpod: Forbidden;
let run: CliResult;
let report: ReplayReport & { warnings: ReplayWarning[] };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-backtest-'));
  [smtp, alertmanager, runpod] = await Promise.all([forbiddenPeer(), forbiddenPeer(), forbiddenPeer()]);
  writeFileSync(
    join(dir, 'scenario.json'),
    JSON.stringify(
      scenario([pod('nb', idleFrom('10m')), pod('train', [{ at: '-2h', gpu: 90, gpuMemory: 80, memory: 50 }])], {
        // The Pod list fails for ten minutes: the daemon warns about each failed poll.
        faults: [{ from: '50m', to: '1h', match: '/v2/pods', kind: 'status', status: 503 }],
      }),
    ),
  );
  const configPath = join(dir, 'prod.yaml');
  writeFileSync(
    configPath,
    [
      'accounts:',
      '  - name: research',
      '    apiKey: rpa_research_key_0001',
      '  - name: inference',
      '    apiKey: rpa_inference_key_0002',
      `    restBaseUrl: http://127.0.0.1:${runpod.port}/v2`,
      'api:',
      `  restBaseUrl: http://127.0.0.1:${runpod.port}/v2`,
      `  graphqlBaseUrl: http://127.0.0.1:${runpod.port}/graphql`,
      'email:',
      '  host: 127.0.0.1',
      `  port: ${smtp.port}`,
      '  secure: none',
      '  user: podwarden',
      '  password: smtp-secret',
      '  from: podwarden@corp.example',
      '  to: [ml-oncall@corp.example]',
      'alerts:',
      '  alertmanager:',
      `    urls: [http://127.0.0.1:${alertmanager.port}]`,
      '',
    ].join('\n'),
  );
  run = await runCli(
    [
      'simulate',
      '--scenario',
      join(dir, 'scenario.json'),
      '--config',
      configPath,
      '--until',
      '2h',
      '--report',
      join(dir, 'report.json'),
    ],
    { timeoutMs: 150_000 },
  );
  report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as typeof report;
}, 180_000);

afterAll(async () => {
  for (const peer of [smtp, alertmanager, runpod]) {
    await new Promise<void>((resolve) => peer?.server.close(() => resolve()));
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('podwarden simulate --config (a backtest)', () => {
  it('calls nothing the file names: no SMTP, Alertmanager or RunPod connection', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(smtp.connections).toBe(0);
    expect(alertmanager.connections).toBe(0);
    expect(runpod.connections).toBe(0);
  });

  it('replays every account in a world of its own and reports the emails each would have sent', () => {
    expect(report.accounts.map((account) => account.name)).toEqual(['research', 'inference']);
    for (const account of report.accounts) {
      expect(account.emails.length, account.name).toBeGreaterThan(0);
      expect(account.emails.every((e) => e.to.join() === 'ml-oncall@corp.example')).toBe(true);
      expect(account.emails.some((e) => e.alertKeys.some((key) => key.startsWith(`idle:${account.name}:`)))).toBe(true);
      expect(account.emails.every((e) => e.subject.length > 0 && e.reason.length > 0)).toBe(true);
      expect(account.stops.map((s) => s.podId)).toEqual(['nb']);
      expect(account.pods.map((p) => p.id)).toEqual(['nb', 'train']);
    }
    // Every email of the report belongs to one account's list.
    expect(report.accounts.flatMap((account) => account.emails)).toHaveLength(report.emails.length);
  });

  it('keeps fault warnings in the report and out of the terminal, which shows the summary', () => {
    const faultWarnings = report.warnings.filter((w) => JSON.stringify(w.fields).includes('503'));
    expect(faultWarnings.length).toBeGreaterThan(0);
    expect(report.warnings.every((w) => w.at >= report.virtualStart && w.at <= report.virtualEnd)).toBe(true);
    const terminal = `${run.stdout}${run.stderr}`;
    for (const message of new Set(report.warnings.map((w) => w.msg))) expect(terminal).not.toContain(message);
    expect(terminal).not.toMatch(/"level":\s*(40|50)/);
    expect(terminal).not.toContain('smtp-secret');
    expect(run.stderr).toContain('research: ');
    expect(run.stderr).toContain('inference: ');
    for (const email of report.emails) expect(run.stderr).toContain(email.subject);
    expect(run.stderr).toContain(`Alertmanager http://127.0.0.1:${alertmanager.port}`);
  });
});
