import { Counter, type CounterConfiguration, Gauge, type GaugeConfiguration, type Registry } from 'prom-client';

type Labels = Record<string, string | number>;

/** A gauge's series kept per account (or a finer key), so one account's run replaces its series only. */
export class SeriesByAccount {
  private readonly held = new Map<string, Labels[]>();

  constructor(readonly gauge: Gauge<string>) {}

  /** Starts the account's series over: what `set` adds next replaces what it had. */
  clear(account: string): void {
    const previous = this.held.get(account) ?? [];
    const others = [...this.held].some(([other, series]) => other !== account && series.length > 0);
    this.held.set(account, []);
    // The only account with series (one account, the usual case): dropping them all at once
    // costs nothing per series.
    if (!others) this.gauge.reset();
    else for (const labels of previous) this.gauge.remove(labels);
  }

  set(account: string, labels: Labels, value: number): void {
    this.gauge.set(labels, value);
    const series = this.held.get(account);
    if (series) series.push(labels);
    else this.held.set(account, [labels]);
  }
}

/** A gauge of our registry (never prom-client's global one). */
export function gauge<T extends string>(registry: Registry, configuration: Omit<GaugeConfiguration<T>, 'registers'>) {
  return new Gauge<T>({ ...configuration, registers: [registry] });
}

/** A counter of our registry (never prom-client's global one). */
export function counter<T extends string>(
  registry: Registry,
  configuration: Omit<CounterConfiguration<T>, 'registers'>,
) {
  return new Counter<T>({ ...configuration, registers: [registry] });
}

/** A gauge of our registry, its series kept per account. */
export function accountGauge(
  registry: Registry,
  configuration: Omit<GaugeConfiguration<string>, 'registers'>,
): SeriesByAccount {
  return new SeriesByAccount(gauge(registry, configuration));
}

/** One gauge of a table: what it is, and how a row sets its series (a row that sets none: absent). */
export interface GaugeSpec<Row> extends Omit<GaugeConfiguration<string>, 'registers'> {
  series(row: Row, set: (labels: Labels, value: number) => void): void;
}

/**
 * Gauges made from the same rows (an account's live Pods, the budgets' statuses): the function
 * returned replaces every series of `account` (omitted: of all) by those of `rows`.
 */
export function gaugeTable<Row>(registry: Registry, specs: ReadonlyArray<GaugeSpec<Row>>) {
  const table = specs.map(({ series, ...configuration }) => ({ series, gauge: accountGauge(registry, configuration) }));
  return (rows: readonly Row[], account = ''): void => {
    for (const { gauge } of table) gauge.clear(account);
    for (const row of rows) {
      for (const { gauge, series } of table) series(row, (labels, value) => gauge.set(account, labels, value));
    }
  };
}
