import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealClock } from '../../src/clock.js';
import { type OutboxRecord, outboxMessagesBetween } from '../../src/db/notifications.js';
import { openDatabase } from '../../src/db/open.js';
import { packagePath } from '../../src/package-root.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { spawnCli } from '../helpers/cli.js';
import { runConfigYaml } from '../helpers/run-config.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';
import { insertOutbox } from '../helpers/store.js';

let sim: Simulator;
let smtp: SmtpPeer;
let dir: string;
let configPath: string;
let dbPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-shutdown-'));
  const scenario = loadScenario(packagePath('config/scenarios/demo.yaml'));
  sim = await startSimulator({ scenario, clock: new RealClock() });
  smtp = await startSmtp();
  dbPath = join(dir, 'podwarden.db');
  configPath = join(dir, 'podwarden.yaml');
  writeFileSync(
    configPath,
    runConfigYaml(sim, {
      apiKey: scenario.apiKey,
      dbPath,
      rest: `email:
  host: 127.0.0.1
  port: ${smtp.port}
  secure: none
  from: podwarden@example.com
  to: [ops@example.com]
`,
    }),
  );
});

afterAll(async () => {
  await smtp.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A message waiting in the outbox, as the alert pipeline leaves it; the daemon sends it at start. */
async function queue(name: string): Promise<string> {
  const database = openDatabase(dbPath);
  try {
    const now = new RealClock().now();
    return (
      await insertOutbox(database, {
        messageId: `<${name}@example.com>`,
        groupKey: `test:${name}`,
        reason: 'first',
        account: 'main',
        to: ['ops@example.com'],
        subject: `test ${name}`,
        text: name,
        html: `<p>${name}</p>`,
        alertKeys: [`test:${name}`],
        createdAt: now,
        nextAttemptAt: now,
      })
    ).messageId;
  } finally {
    database.close();
  }
}

async function outboxRows(): Promise<OutboxRecord[]> {
  const database = openDatabase(dbPath, { migrate: false });
  try {
    return await outboxMessagesBetween(database, 0, Number.MAX_SAFE_INTEGER);
  } finally {
    database.close();
  }
}

/** Starts the daemon, waits until the server has the data of `dataCount` messages, then SIGTERMs it. */
async function runUntilData(dataCount: number): Promise<{ code: number | null; stderr: string }> {
  const child = spawnCli(['run', '--config', configPath]);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  try {
    await smtp.waitForData(dataCount);
  } finally {
    child.kill('SIGTERM');
  }
  const [code] = await exited;
  return { code, stderr };
}

describe('podwarden run, SIGTERM while an email is being sent', () => {
  it('abandons a send the server never answers, exits 0, and sends it once after the restart, never twice', async () => {
    const first = await queue('first');

    // The server takes the data and never replies: only abandoning the send lets the daemon exit.
    smtp.setReplyDelay(Number.POSITIVE_INFINITY);
    const abandoned = await runUntilData(1);
    expect(abandoned.code).toBe(0);
    expect(abandoned.stderr).toContain('email send abandoned at shutdown');
    expect(abandoned.stderr).toMatch(/"msg":"stopped"/);
    expect(smtp.received).toEqual([]);
    const [row] = await outboxRows();
    expect(row).toMatchObject({ messageId: first, sentAt: null, abandonedAt: null, leaseUntil: null });

    // A reply within the grace: the send finishes and is recorded before the database closes.
    smtp.setReplyDelay(2_000);
    const finished = await runUntilData(2);
    expect(finished.code).toBe(0);
    expect(smtp.received.map((mail) => mail.messageId)).toEqual([first]);
    expect((await outboxRows())[0]?.sentAt).toEqual(expect.any(Number));

    // After the restart only the new message goes out: the outbox sends in order, so the first
    // would have gone before the second had it been due again.
    const second = await queue('second');
    smtp.setReplyDelay(0);
    const again = await runUntilData(3);
    expect(again.code).toBe(0);
    await smtp.waitFor(2);
    expect(smtp.received.map((mail) => mail.messageId)).toEqual([first, second]);
  }, 120_000);
});
