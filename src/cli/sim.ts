import { Command } from 'commander';
import { RealClock, toIso } from '../clock.js';
import { consoleLogger } from '../log.js';
import { ScaledClock } from '../simulator/scaled-clock.js';
import { loadScenario } from '../simulator/scenario.js';
import { startSimulator } from '../simulator/server.js';
import { instantArgument, portArgument } from './arguments.js';
import { UsageError } from './exit.js';
import { resolveScenario, untilSignalled } from './scenario-option.js';

interface SimOptions {
  scenario: string;
  port: string;
  host: string;
  speed: string;
  start?: string;
}

/** `podwarden sim`: the RunPod simulator on its own, on a clock that starts at the scenario's start. */
export function simCommand(): Command {
  return new Command('sim')
    .description('Run the RunPod API simulator on a scenario until interrupted.')
    .requiredOption(
      '--scenario <file>',
      'scenario file (JSON or YAML), or the name of a bundled one (demo, small-team, large)',
    )
    .option('--port <n>', 'port to listen on (0: any free port)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--speed <x>', 'virtual seconds per real second', '1')
    .option(
      '--start <time>',
      "play the scenario from this ISO 8601 instant, or `now` for the system time, instead of the scenario's own start",
    )
    .action(async (options: SimOptions) => {
      const port = portArgument(options.port);
      const speed = Number(options.speed);
      if (!Number.isFinite(speed) || speed <= 0) {
        throw new UsageError(`--speed: expected a positive number, got "${options.speed}"`);
      }
      const scenario = loadScenario(resolveScenario(options.scenario), { startMs: startOption(options.start) });
      const clock = new ScaledClock({ startMs: scenario.startMs, speed });
      const sim = await startSimulator({ scenario, clock, host: options.host, port, log: consoleLogger() });
      const lines = [
        `podwarden sim: scenario ${scenario.name} from ${toIso(scenario.startMs)} at ${speed}x real time`,
        `REST v2:       ${sim.restBaseUrl}`,
        `GraphQL:       ${sim.graphqlUrl}`,
        `API key:       ${scenario.apiKey}`,
        ...(scenario.readOnlyKey ? [`Read-only key: ${scenario.readOnlyKey}`] : []),
        `Ground truth:  ${sim.url}/_sim/truth/pods, ${sim.url}/_sim/requests`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
      await untilSignalled();
      await sim.close();
    });
}

/** `--start`: an ISO 8601 instant or `now`; absent keeps the scenario's own start. */
function startOption(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  // The one place the simulator reads the system time: a live demo must line up with the wall
  // clock that Prometheus and Grafana stamp their samples with.
  if (given === 'now') return new RealClock().now();
  return instantArgument('--start', given, ' or "now"');
}
