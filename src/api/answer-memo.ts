/**
 * The last answer each reader parsed, kept with its text: most polls of a route get back exactly
 * the bytes of the poll before (catalog, endpoints, volumes, clusters, stock: 98 % of a replayed
 * day's answers on those routes), and parsing them again (JSON.parse and then zod) was about a
 * tenth of a steady hour. Parsing is a pure function of the text, so an answer whose text equals
 * the last one's gets the last one's value. Only a value that parsed is kept: a bad answer is
 * parsed again each time and fails with the same error, naming its route and field.
 *
 * The kept value is handed out again, so it is frozen before it is first handed out: a caller
 * that changed it would change every later answer, and fails loudly instead.
 */
export class AnswerMemo {
  private readonly last = new Map<unknown, { text: string; value: unknown }>();

  /**
   * One read under `key` (the reader's schema): `parse` stands in for JSON.parse in the request
   * (see ApiRequest.parse), and `value` turns what the request decoded into the reader's value,
   * running `check` (the schema's parse) only on an answer not seen last time.
   */
  read(key: unknown): {
    parse: (text: string) => unknown;
    value<T>(body: unknown, check: (body: unknown) => T): T;
  } {
    let parsedText: string | undefined;
    return {
      parse: (text) => {
        const kept = this.last.get(key);
        if (kept !== undefined && kept.text === text) return new Reused(kept.value);
        const body: unknown = JSON.parse(text);
        parsedText = text;
        return body;
      },
      value: <T>(body: unknown, check: (body: unknown) => T): T => {
        if (body instanceof Reused) return body.value as T;
        const value = check(body);
        // An empty answer (204) never went through `parse`: nothing to keep it under.
        if (parsedText !== undefined) this.last.set(key, { text: parsedText, value: deepFreeze(value) });
        return value;
      },
    };
  }
}

/** The body of an answer whose text was the last one's: its value, already checked. */
class Reused {
  constructor(readonly value: unknown) {}
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
  return value;
}
