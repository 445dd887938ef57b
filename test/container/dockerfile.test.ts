import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { RealClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { packagePath } from '../../src/package-root.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { spawnCli } from '../helpers/cli.js';
import { copyParts, execForm, readDockerfile, type Stage, withKeyword } from './dockerfile.js';

const dockerfile = readDockerfile(packagePath('Dockerfile'));
const runtime = dockerfile.stages.at(-1) as Stage;
const build = dockerfile.stages[0] as Stage;
/** `FROM ${NODE_IMAGE}`: both stages on the one image the ARG names. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own ${...} reference, verbatim
const FROM_NODE_IMAGE = '${NODE_IMAGE}';

/** The one instruction of `keyword` in the runtime stage (the image's final settings). */
function only(keyword: string): string {
  const found = withKeyword(runtime, keyword);
  expect(found, `exactly one ${keyword} in the runtime stage`).toHaveLength(1);
  return found[0]?.args ?? '';
}

describe('Dockerfile', () => {
  it('lints clean with dockerfile-utils, as CI runs it', () => {
    const result = spawnSync(packagePath('node_modules/.bin/dockerfile-utils'), ['lint', packagePath('Dockerfile')], {
      encoding: 'utf8',
    });
    expect({ status: result.status, output: result.stdout + result.stderr }).toEqual({ status: 0, output: '' });
  });

  it('builds in one stage on the current Node LTS and ships from a second one, non-root', () => {
    const nodeImage = dockerfile.args.find((arg) => arg.keyword === 'ARG' && arg.args.startsWith('NODE_IMAGE='));
    expect(nodeImage?.args).toBe('NODE_IMAGE=node:26-trixie-slim');
    expect(dockerfile.stages.map((stage) => [stage.name, stage.image])).toEqual([
      ['build', FROM_NODE_IMAGE],
      ['runtime', FROM_NODE_IMAGE],
    ]);
    const user = only('USER');
    expect(user.split(':')[0]).not.toMatch(/^(root|0)$/);
    expect(user).toBe('1000:1000');
  });

  it('keeps data on a /data volume the non-root user owns, and the baked configuration puts the database there', () => {
    expect(execForm(only('VOLUME'))).toEqual(['/data']);
    const owns = withKeyword(runtime, 'RUN').some((run) => /chown 1000:1000 \/data/.test(run.args));
    expect(owns).toBe(true);
    expect(only('ENV')).toMatch(/PODWARDEN_CONFIG=\/etc\/podwarden\/podwarden\.yaml/);
    const baked = withKeyword(runtime, 'COPY')
      .map(copyParts)
      .find((copy) => copy.dest === '/etc/podwarden/podwarden.yaml');
    expect(baked?.sources).toEqual(['config/docker/podwarden.yaml']);
    const config = parseConfig(parseYaml(readFileSync(packagePath('config/docker/podwarden.yaml'), 'utf8')), {
      env: { RUNPOD_API_KEY: 'test-key-1234' },
      baseDir: '/etc/podwarden',
    });
    expect(config.database.path).toBe('/data/podwarden.db');
    expect(config.accounts.map((account) => account.name)).toEqual(['main']);
    expect(config.http.listen).toBe('0.0.0.0:9464');
  });

  it('exposes the metrics port, checks /healthz with node itself and runs `podwarden run`', () => {
    expect(only('EXPOSE')).toBe('9464');
    const healthcheck = only('HEALTHCHECK');
    const command = execForm(healthcheck.slice(healthcheck.indexOf('CMD ') + 4));
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    expect(command[2]).toContain("fetch('http://127.0.0.1:9464/healthz')");
    expect(execForm(only('ENTRYPOINT'))).toEqual(['node', '/app/dist/main.js']);
    expect(execForm(only('CMD'))).toEqual(['run']);
  });

  it('copies nothing the build context (.dockerignore) leaves out, and nothing local gets in', () => {
    const allowed = readFileSync(packagePath('.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1));
    const sources = dockerfile.stages
      .flatMap((stage) => withKeyword(stage, 'COPY').map(copyParts))
      .filter((copy) => copy.from === undefined)
      .flatMap((copy) => copy.sources);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      const top = source.split('/')[0] as string;
      expect(allowed, `.dockerignore admits ${source}`).toContain(top);
    }
    expect(readFileSync(packagePath('.dockerignore'), 'utf8')).toMatch(/^\*$/m);
    for (const local of ['node_modules', '.demo', 'data', 'dist']) expect(allowed).not.toContain(local);
  });
});

describe('scripts/docker-build-steps.sh', () => {
  const script = readFileSync(packagePath('scripts/docker-build-steps.sh'), 'utf8');
  /** The script's commands, without its comments and step titles. */
  const commands = script
    .split('\n')
    .filter((line) => !/^\s*(#|step )/.test(line))
    .join('\n');

  it("runs the build stage's npm steps in the same order", () => {
    const dockerSteps = withKeyword(build, 'RUN')
      .flatMap((run) => run.args.split('&&'))
      .map((step) => step.trim())
      .filter((step) => step.startsWith('npm '))
      .map((step) => step.split(' ').slice(0, 3).join(' '));
    expect(dockerSteps).toEqual(['npm ci --no-audit', 'npm run build', 'npm prune --omit=dev']);
    const positions = dockerSteps.map((step) => commands.indexOf(step));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("lays out the runtime stage's files and smoke-tests them", () => {
    for (const copy of withKeyword(runtime, 'COPY').map(copyParts)) {
      for (const source of copy.sources) {
        const name = copy.from === undefined ? source : source.replace('/app/', '');
        expect(commands, `the script copies ${name}`).toContain(name);
      }
    }
    for (const check of ['--version', 'check-config', 'simulate --scenario demo', 'demo --for']) {
      expect(commands).toContain(check);
    }
    expect(commands).toContain('git -C "$root" archive HEAD');
  });
});

describe("the image's HEALTHCHECK command", () => {
  let sim: Simulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'podwarden-healthcheck-'));
    sim = await startSimulator({
      scenario: loadScenario(packagePath('config/scenarios/demo.yaml')),
      clock: new RealClock(),
    });
  });

  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The healthcheck exactly as the Dockerfile writes it, aimed at `port` instead of 9464. */
  function healthcheck(port: number): number | null {
    const args = only('HEALTHCHECK');
    const [node, flag, code] = execForm(args.slice(args.indexOf('CMD ') + 4)) as [string, string, string];
    expect(node).toBe('node');
    const result = spawnSync(process.execPath, [flag, code.replace(':9464/', `:${port}/`)], { timeout: 20_000 });
    return result.status;
  }

  it('passes while `podwarden run` serves /healthz and fails once it is gone', async () => {
    const config = join(dir, 'podwarden.yaml');
    writeFileSync(
      config,
      [
        'accounts:',
        '  - name: team',
        '    apiKey: sim-demo-key',
        `    restBaseUrl: ${sim.restBaseUrl}`,
        `    graphqlBaseUrl: ${sim.graphqlUrl}`,
        'database:',
        `  path: ${join(dir, 'podwarden.db')}`,
        'http:',
        '  listen: 127.0.0.1:0',
        'log:',
        '  format: json',
        '',
      ].join('\n'),
    );
    const child = spawnCli(['run', '--config', config]);
    const exited = once(child, 'exit');
    let stderr = '';
    let port: number | undefined;
    try {
      port = await new Promise<number>((resolve, reject) => {
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
          const url = /"metrics":"http:\/\/127\.0\.0\.1:(\d+)\/metrics"/.exec(stderr);
          if (url) resolve(Number(url[1]));
        });
        child.once('exit', () => reject(new Error(`podwarden run exited before listening: ${stderr}`)));
      });
      expect(healthcheck(port)).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await exited;
    expect(code).toBe(0);
    expect(healthcheck(port)).toBe(1);
  });
});
