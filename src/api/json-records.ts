/**
 * Decodes a JSON object whose one array member holds most of it (`{"records": [...], "metadata":
 * {...}}`) as its text arrives: each element is handed out as soon as its closing brace is read,
 * and the other members are kept whole. A billing answer of a large account is tens of megabytes;
 * decoded in one `JSON.parse`, it held the event loop for hundreds of milliseconds and the
 * daemon's memory for the text, the decoded tree and the rows made from it at once. Here only the
 * piece of text read last (and an element it cut) is held, and the whole elements of each piece
 * are `JSON.parse`d together (wholeElements), so anything malformed is still rejected by V8's own
 * parser. Where that parse fails, a scanner finds where each value ends (it tracks strings, with
 * escapes, and nesting, nothing more) and names the element at fault.
 */

/** A body that is not the JSON it should be: what was wrong, and where (in characters from the start). */
export class JsonStreamError extends Error {
  constructor(
    readonly detail: string,
    readonly offset: number,
  ) {
    super(`${detail} (at offset ${offset})`);
    this.name = 'JsonStreamError';
  }
}

type State =
  | 'start'
  | 'first-key'
  | 'key'
  | 'colon'
  | 'member'
  | 'after-member'
  | 'array'
  | 'first-element'
  | 'element'
  | 'after-element'
  | 'done';

const QUOTE = 34;
const COMMA = 44;
/** Characters of text one wholeElements parse takes at most (about 300 billing records). */
const BLOCK = 65_536;
const BACKSLASH = 92;
const LITERAL_END = /[\s,\]}]/;
/**
 * An object without nested objects or arrays, its strings whole (escapes included): what a
 * billing record is. Raw elements are cut with it, sticky at the element's start, a few times
 * faster than the scanner's walk; anything else (nested, or cut by the end of the text read so
 * far) is left to the scanner.
 */
const FLAT_OBJECT = /\{(?:[^"{}[\]]|"[^"\\]*(?:\\.[^"\\]*)*")*\}/y;

export class JsonRecordsDecoder {
  /** Text not yet consumed; `base` is the offset of its first character in the whole body. */
  private text = '';
  private base = 0;
  private pos = 0;
  private state: State = 'start';
  private key = '';
  private elements = 0;
  private sawArray = false;
  private readonly members: Record<string, unknown> = {};
  /** Where each element completed by the current push starts and ends in `text`, in pairs. */
  private readonly ranges: number[] = [];
  /** Elements of the current push already decoded (by wholeElements), before those in `ranges`. */
  private out: unknown[] = [];
  /**
   * Where (from the start of the body) a failed wholeElements stopped: the scanner reads up to
   * there before it is tried again, so no text is parsed in vain more than once.
   */
  private scanUntil = 0;
  /** A value being scanned across chunks: where it started, how far the scan got, and its nesting. */
  private scan: { start: number; at: number; depth: number; inString: boolean } | null = null;

  /**
   * `raw`: the elements are handed out as their text, unparsed (a caller that can tell from the
   * text that it already holds what an element says skips the parse, billing-parse.ts). The
   * scanner then checks only their nesting and strings; whoever uses the text parses it.
   */
  constructor(
    private readonly arrayKey: string,
    private readonly raw = false,
  ) {}

  /** Feeds the next piece of text; returns the elements completed by it, in order (their text, if raw). */
  push(chunk: string): unknown[] {
    if (this.scan === null && this.pos >= this.text.length) {
      this.base += this.text.length;
      this.text = chunk;
      this.pos = 0;
    } else {
      this.text += chunk;
    }
    this.out = [];
    try {
      this.run();
    } catch (error) {
      // An element before the fault is named first, as when each was parsed as it was found.
      this.parseEach();
      throw error;
    }
    this.parseRanges();
    const out = this.out;
    this.out = [];
    // Keep only what an unfinished value still needs.
    const keep = this.scan ? this.scan.start : this.pos;
    if (keep > 0) {
      this.text = this.text.slice(keep);
      this.base += keep;
      this.pos -= keep;
      if (this.scan) {
        this.scan.at -= keep;
        this.scan.start = 0;
      }
    }
    return out;
  }

  /** How many elements of the array have been handed out so far: the index of the next one. */
  get count(): number {
    return this.elements;
  }

  /** The end of the body: the other members, decoded; throws if the body stopped short. */
  end(): { sawArray: boolean; members: Record<string, unknown> } {
    if (this.state !== 'done') {
      const where =
        this.state === 'element' || this.state === 'first-element' || this.state === 'after-element'
          ? `${this.arrayKey}[${this.elements}]`
          : this.state === 'member'
            ? this.key
            : 'the object';
      throw new JsonStreamError(`the body ended inside ${where}`, this.base + this.text.length);
    }
    return { sawArray: this.sawArray, members: this.members };
  }

  /**
   * The elements the scanner completed, in one JSON.parse: they lie side by side in the text with
   * only the separators it checked between them, so wrapped in brackets they are valid JSON
   * exactly when each of them is. When that fails, each is parsed on its own to name the one at
   * fault.
   */
  private parseRanges(): void {
    const ranges = this.ranges;
    if (ranges.length === 0) return;
    let values: unknown[];
    try {
      values = JSON.parse(`[${this.text.slice(ranges[0], ranges[ranges.length - 1])}]`) as unknown[];
    } catch {
      this.parseEach();
      return;
    }
    ranges.length = 0;
    for (const value of values) this.out.push(value);
  }

  private parseEach(): void {
    const ranges = this.ranges;
    const first = this.elements - ranges.length / 2;
    for (let k = 0; k < ranges.length; k += 2) {
      const path = `${this.arrayKey}[${first + k / 2}]`;
      this.out.push(this.parse(ranges[k] as number, ranges[k + 1] as number, path));
    }
    ranges.length = 0;
  }

  /**
   * At the start of an element, takes the whole elements of the next block of text (up to an
   * element-ending brace at most BLOCK characters on) in one JSON.parse, without scanning them:
   * when the text from here to that brace, in brackets, parses, it is a run of whole elements (a
   * brace inside a string or a nested object would leave it unparseable), exactly what the
   * scanner would have found, character by character. False when it does not parse (the brace
   * is in an unfinished element, past the array's end, or something is malformed): the scanner
   * then reads up to that brace, and names any fault. Blocks bound what a failure wastes: a
   * whole answer read as one piece fails once, at the array's end, not over all of it.
   */
  private wholeElements(): boolean {
    const text = this.text;
    let close = text.lastIndexOf('}', this.pos + BLOCK);
    // A brace that ends an element is followed by ',' or ']' (or the text read so far ends):
    // one followed by anything else closes the object around the array, or something in it.
    for (let tries = 0; close >= this.pos && tries < 8; tries++) {
      let after = close + 1;
      while (after < text.length && isSpace(text.charCodeAt(after))) after++;
      const next = text.charCodeAt(after);
      if (after === text.length || next === 44 || next === 93) break;
      close = text.lastIndexOf('}', close - 1);
    }
    if (close < this.pos) return false;
    let values: unknown[];
    try {
      values = JSON.parse(`[${text.slice(this.pos, close + 1)}]`) as unknown[];
    } catch {
      this.scanUntil = this.base + close + 1;
      return false;
    }
    this.parseRanges();
    for (const value of values) this.out.push(value);
    this.elements += values.length;
    this.pos = close + 1;
    return true;
  }

  private run(): void {
    for (;;) {
      if (this.scan === null && !this.skipSpace()) return;
      const c = this.text[this.pos];
      switch (this.state) {
        case 'start':
          this.expect(c === '{', "'{'");
          this.pos++;
          this.state = 'first-key';
          break;
        case 'first-key':
          this.pos += c === '}' ? 1 : 0;
          this.state = c === '}' ? 'done' : 'key';
          break;
        case 'key': {
          if (this.scan === null) this.expect(c === '"', 'a member name');
          const end = this.scanValue();
          if (end < 0) return;
          this.key = JSON.parse(this.text.slice(this.pos, end)) as string;
          if (this.key === this.arrayKey && this.sawArray) {
            // JSON.parse would keep only the last array, but the first one's elements are handed out.
            throw new JsonStreamError(`${this.arrayKey} is named twice in the object`, this.base + this.pos);
          }
          this.pos = end;
          this.state = 'colon';
          break;
        }
        case 'colon':
          this.expect(c === ':', "':'");
          this.pos++;
          this.state = this.key === this.arrayKey ? 'array' : 'member';
          break;
        case 'member': {
          const end = this.scanValue();
          if (end < 0) return;
          // Defined, not assigned: a member named __proto__ is a member, as JSON.parse makes it;
          // a repeated member is its last value, as there too.
          Object.defineProperty(this.members, this.key, {
            value: this.parse(this.pos, end, this.key),
            enumerable: true,
            writable: true,
            configurable: true,
          });
          this.pos = end;
          this.state = 'after-member';
          break;
        }
        case 'after-member':
          this.expect(c === ',' || c === '}', `',' or '}' after ${this.key}`);
          this.pos++;
          this.state = c === ',' ? 'key' : 'done';
          break;
        case 'array':
          this.expect(c === '[', `an array for ${this.arrayKey}`);
          this.sawArray = true;
          this.pos++;
          this.state = 'first-element';
          break;
        case 'first-element':
          this.pos += c === ']' ? 1 : 0;
          this.state = c === ']' ? 'after-member' : 'element';
          break;
        case 'element': {
          if (!this.raw && this.scan === null && this.base + this.pos >= this.scanUntil && this.wholeElements()) {
            this.state = 'after-element';
            break;
          }
          if (this.raw && this.scan === null && this.flatElements()) {
            this.state = 'after-element';
            break;
          }
          const end = this.scanValue();
          if (end < 0) return;
          if (this.raw) this.out.push(this.text.slice(this.pos, end));
          else this.ranges.push(this.pos, end);
          this.elements++;
          this.pos = end;
          this.state = 'after-element';
          break;
        }
        case 'after-element':
          this.expect(c === ',' || c === ']', `',' or ']' after ${this.arrayKey}[${this.elements - 1}]`);
          this.pos++;
          this.state = c === ',' ? 'element' : 'after-member';
          break;
        case 'done':
          this.expect(false, 'nothing after the object');
      }
    }
  }

  /**
   * Raw, at the start of an element: hands out the text of the flat objects (FLAT_OBJECT) that
   * follow, each ended by a comma, without going through the states for each; stops after the
   * last one matched, before its separator. False when none matched: the scanner takes over.
   */
  private flatElements(): boolean {
    const text = this.text;
    let at = this.pos;
    let matched = false;
    for (;;) {
      FLAT_OBJECT.lastIndex = at;
      if (!FLAT_OBJECT.test(text)) break;
      const end = FLAT_OBJECT.lastIndex;
      this.out.push(text.slice(at, end));
      this.elements++;
      this.pos = end;
      matched = true;
      if (text.charCodeAt(end) !== COMMA) break;
      at = end + 1;
      while (at < text.length && isSpace(text.charCodeAt(at))) at++;
    }
    return matched;
  }

  /** Moves past whitespace; false when the text ran out. */
  private skipSpace(): boolean {
    const text = this.text;
    let i = this.pos;
    while (i < text.length) {
      if (!isSpace(text.charCodeAt(i))) break;
      i++;
    }
    this.pos = i;
    return i < text.length;
  }

  private expect(ok: boolean, what: string): void {
    if (ok) return;
    const found = JSON.stringify(this.text.slice(this.pos, this.pos + 20));
    throw new JsonStreamError(`expected ${what}, found ${found}`, this.base + this.pos);
  }

  private parse(start: number, end: number, path: string): unknown {
    try {
      return JSON.parse(this.text.slice(start, end));
    } catch (error) {
      throw new JsonStreamError(`${path} is not valid JSON (${(error as Error).message})`, this.base + start);
    }
  }

  /**
   * Finds the end of the value starting at `pos` (an object, array, string or literal), resuming
   * where the last chunk left off; -1 when it continues past the text read so far.
   */
  private scanValue(): number {
    const text = this.text;
    const scan = this.scan ?? { start: this.pos, at: this.pos, depth: 0, inString: false };
    this.scan = scan;
    const first = text.charCodeAt(scan.start);
    let i = scan.at;
    if (first !== 123 && first !== 91 && first !== QUOTE) {
      // A literal (number, true, false, null) ends where a delimiter or whitespace begins.
      while (i < text.length && !LITERAL_END.test(text[i] as string)) i++;
      scan.at = i;
      if (i >= text.length) return -1;
      this.scan = null;
      return i;
    }
    if (i === scan.start && first === QUOTE) {
      scan.inString = true;
      i++;
    }
    while (i < text.length) {
      if (scan.inString) {
        const close = closingQuote(text, i);
        if (close < 0) break;
        scan.inString = false;
        i = close + 1;
        if (scan.depth === 0) {
          this.scan = null;
          return i;
        }
        continue;
      }
      const c = text.charCodeAt(i);
      i++;
      if (c === QUOTE) scan.inString = true;
      else if (c === 123 || c === 91) scan.depth++;
      else if (c === 125 || c === 93) {
        scan.depth--;
        if (scan.depth === 0) {
          this.scan = null;
          return i;
        }
      }
    }
    scan.at = text.length;
    return -1;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** The index of the quote that closes a string whose content starts at `from`, or -1 if not read yet. */
function closingQuote(text: string, from: number): number {
  for (let at = text.indexOf('"', from); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}
