import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../src/replay/report.js';
import { idleFrom, pod, scenario } from '../actions/idle-world.js';
import { runCli } from '../helpers/cli.js';

/**
 * A backtest is a sandbox: `podwarden simulate --config prod.yaml` with a real-looking SMTP host
 * connects to no SMTP server (a listening socket that must see no connection), and the report
 * lists the emails it would have sent, to the file's recipients.
 */
let dir: string;
let smtp: Server;
let connections = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-backtest-'));
  smtp = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('podwarden simulate --config (a backtest)', () => {
  it('sends no email to the configured SMTP server and reports what it would have sent', async () => {
    const port = (smtp.address() as { port: number }).port;
    writeFileSync(
      join(dir, 'scenario.json'),
      JSON.stringify(
        scenario([pod('nb', idleFrom('10m')), pod('train', [{ at: '-2h', gpu: 90, gpuMemory: 80, memory: 50 }])]),
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
        'email:',
        '  host: 127.0.0.1',
        `  port: ${port}`,
        '  secure: none',
        '  from: podwarden@corp.example',
        '  to: [ml-oncall@corp.example]',
        '',
      ].join('\n'),
    );
    const run = await runCli(
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
      { timeoutMs: 120_000 },
    );
    expect(run.code).toBe(0);
    expect(connections).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ReplayReport;
    expect(report.emails.length).toBeGreaterThan(0);
    expect(report.emails.every((e) => e.to.join() === 'ml-oncall@corp.example')).toBe(true);
    expect(report.emails.some((e) => e.alertKeys.some((key) => key.startsWith('idle:')))).toBe(true);
    expect(report.stops.map((s) => s.podId)).toEqual(['nb']);
  }, 180_000);
});
