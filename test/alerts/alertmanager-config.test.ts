import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { alertName } from '../../src/channels/alertmanager-payload.js';
import { ALERT_RULES } from '../../src/config/sections/alerts.js';
import { packagePath } from '../../src/package-root.js';
import { hasPeer } from '../helpers/peers.js';

const run = promisify(execFile);
const EXAMPLE = packagePath('config/alertmanager/alertmanager.yml');
const scratch = mkdtempSync(join(tmpdir(), 'podwarden-amconfig-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function amtool(args: string[]): Promise<string> {
  return (await run('amtool', args)).stdout.trim();
}

/** The example with its commented Slack stanza switched on, as a reader would do it. */
function withSlack(): string {
  let on = false;
  const lines = readFileSync(EXAMPLE, 'utf8')
    .split('\n')
    .map((line) => {
      if (line.startsWith('    # slack_configs:')) on = true;
      else if (on && !line.startsWith('    #')) on = false;
      return on ? line.replace('    # ', '    ') : line;
    });
  const path = join(scratch, 'alertmanager.yml');
  writeFileSync(path, lines.join('\n'));
  return path;
}

describe.skipIf(!hasPeer('amtool', 'prometheus-alertmanager'))('config/alertmanager/alertmanager.yml', () => {
  it('is valid for amtool, and so is its Slack receiver uncommented', async () => {
    expect(await amtool(['check-config', EXAMPLE])).toContain('SUCCESS');
    const slack = withSlack();
    expect(readFileSync(slack, 'utf8')).toContain('\n    slack_configs:\n      - api_url_file:');
    expect(await amtool(['check-config', slack])).toContain('SUCCESS');
  });

  it("routes each of podwarden's alert names to its receiver", async () => {
    const receivers: Record<string, string> = {};
    for (const rule of ALERT_RULES) {
      const name = alertName(rule);
      receivers[name] = await amtool(['config', 'routes', 'test', `--config.file=${EXAMPLE}`, `alertname=${name}`]);
    }
    expect(receivers).toEqual({
      PodwardenBudget: 'finance',
      PodwardenIdle: 'gpu-owners',
      PodwardenEnforce: 'gpu-owners',
      PodwardenCapacity: 'ops',
      PodwardenWaste: 'gpu-owners',
      PodwardenHealth: 'ops',
    });
  });
});
