import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify as toYaml } from 'yaml';
import { freePort, poll } from '../e2e/support/prometheus.js';

/** One alert of a webhook notification (Alertmanager's webhook payload, version 4). */
export interface WebhookAlert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
}

export interface WebhookNotification {
  status: 'firing' | 'resolved';
  receiver: string;
  groupLabels: Record<string, string>;
  alerts: WebhookAlert[];
}

/** An HTTP server on loopback that records every notification Alertmanager's webhook receiver posts. */
export interface Webhook {
  url: string;
  received: WebhookNotification[];
  /** Resolves with the first notification `match` accepts (already received or still to come). */
  waitFor(what: string, match: (notification: WebhookNotification) => boolean): Promise<WebhookNotification>;
  close(): Promise<void>;
}

export async function startWebhook(): Promise<Webhook> {
  const received: WebhookNotification[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookNotification);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    waitFor: (what, match) => poll(what, async () => received.find(match), { timeoutMs: 30_000, everyMs: 100 }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An alert as Alertmanager's `GET /api/v2/alerts` lists it. */
export interface ListedAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
  fingerprint: string;
  status: { state: 'active' | 'suppressed' | 'unprocessed'; silencedBy: string[]; inhibitedBy: string[] };
}

export interface AlertmanagerPeer {
  url: string;
  port: number;
  /** `GET /api/v2/alerts` with silenced and inhibited alerts included. */
  alerts(): Promise<ListedAlert[]>;
  /** Runs `amtool` against this Alertmanager; resolves with its stdout. */
  amtool(args: readonly string[]): Promise<string>;
  stop(): Promise<void>;
}

const run = promisify(execFile);

/**
 * Debian's `prometheus-alertmanager` on loopback, clustering off, one receiver: the webhook.
 * Groups by `account` and flushes within a second, so a test sees in one notification which
 * alerts Alertmanager lets through. Pass `port` and `storage` to start it again where it was
 * (its silences and notification log survive in `storage`; alerts live in memory only).
 */
export async function startAlertmanager(options: {
  dir: string;
  webhookUrl: string;
  port?: number;
}): Promise<AlertmanagerPeer> {
  const port = options.port ?? (await freePort());
  const configPath = join(options.dir, 'alertmanager.yml');
  writeFileSync(
    configPath,
    toYaml({
      route: {
        receiver: 'webhook',
        group_by: ['account'],
        group_wait: '1s',
        group_interval: '1s',
        repeat_interval: '1h',
      },
      receivers: [{ name: 'webhook', webhook_configs: [{ url: options.webhookUrl, send_resolved: true }] }],
    }),
  );
  const child: ChildProcess = spawn(
    'prometheus-alertmanager',
    [
      `--config.file=${configPath}`,
      `--storage.path=${join(options.dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await poll(
      'Alertmanager ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${log}`);
        return (await fetch(`${url}/-/ready`)).status === 200 ? true : undefined;
      },
      { timeoutMs: 30_000, everyMs: 100 },
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    port,
    async alerts() {
      const response = await fetch(`${url}/api/v2/alerts?silenced=true&inhibited=true&active=true`);
      if (response.status !== 200) throw new Error(`GET /api/v2/alerts: HTTP ${response.status}`);
      return (await response.json()) as ListedAlert[];
    },
    async amtool(args) {
      const { stdout } = await run('amtool', [...args, `--alertmanager.url=${url}`]);
      return stdout;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
