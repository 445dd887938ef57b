import type BetterSqlite3 from 'better-sqlite3';

/** Rows per multi-row statement: one statement step for many rows (far below SQLite's parameter limit). */
export const BATCH_ROWS = 64;

/** The VALUES list of `rows` rows, each written `row`: one statement for a whole batch. */
export function valuesOf(row: string, rows: number): string {
  return Array(rows).fill(row).join(', ');
}

/**
 * Rows bound into multi-row statements. What every row of a batch shares is bound once, by name
 * (SQLite gives a repeated name one parameter), as `shared`; the rest, `perRow` values a row, are
 * pushed onto `values`. A full batch goes out as one step of `batch`; what is
 * left at a flush, one step of `one` per row. The caller pushes the values itself (no array per
 * row on the backfill's path), calls `added` after each row, and flushes before it changes
 * `shared` or runs a statement that must see the rows.
 */
export class RowBatch<Shared extends Record<string, unknown>> {
  readonly values: unknown[] = [];

  constructor(
    private readonly one: BetterSqlite3.Statement,
    private readonly batch: BetterSqlite3.Statement,
    private readonly perRow: number,
    readonly shared: Shared,
  ) {}

  /** Runs the batch once it holds BATCH_ROWS rows. */
  added(): void {
    if (this.values.length === BATCH_ROWS * this.perRow) this.flush();
  }

  flush(): void {
    const { values, perRow, shared } = this;
    if (values.length === BATCH_ROWS * perRow) this.batch.run(shared, values);
    else for (let i = 0; i < values.length; i += perRow) this.one.run(shared, values.slice(i, i + perRow));
    values.length = 0;
  }
}
