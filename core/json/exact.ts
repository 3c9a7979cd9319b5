import { HttpError, Problems } from '../errors.js';

/**
 * Numbers exactly as written (issue 12, item 3). JSON.parse turns every number into a double, so
 * `9007199254740993` reads as `…992` and `1e999` as Infinity. A handler that compares a claimed
 * number reads it here instead: one lossless reader over the body's text, where every number is an
 * `ExactNumber` holding its JSON text, to be compared with decimal.js. Everything else keeps the
 * kernel's normal JSON.parse. The reader is iterative (an explicit stack), so it is safe at any depth.
 */
export class ExactNumber {
  constructor(readonly text: string) {}
  /** the double JSON.parse would have produced (may be ±Infinity or lose digits) */
  toNumber(): number {
    return Number(this.text);
  }
  /** true when the double is not the number as written (beyond ±1.8e308, under 5e-324, or rounded) */
  get beyondDouble(): boolean {
    const n = Number(this.text);
    return !Number.isFinite(n) || (n === 0 && /[1-9]/.test(this.text.replace(/[eE].*$/, '')));
  }
  toJSON(): string {
    return this.text;
  }
  toString(): string {
    return this.text;
  }
}

export function isExactNumber(v: unknown): v is ExactNumber {
  return v instanceof ExactNumber;
}

/** Numbers of a JSON value as their text: an ExactNumber's text, a JS number's shortest form. */
export function numberText(v: unknown): string | null {
  if (v instanceof ExactNumber) return v.text;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
  return null;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WS = /[ \t\n\r]*/y;

function bad(): never {
  throw new HttpError(Problems.badJson, 'request body is not valid JSON');
}

/** Lossless parse of JSON text: objects, arrays, strings, booleans and null as JSON.parse gives them; numbers as ExactNumber. */
export function parseExactJson(input: Buffer | string): unknown {
  const s = typeof input === 'string' ? input : input.toString('utf8');
  let i = 0;
  const ws = () => {
    WS.lastIndex = i;
    WS.test(s);
    i = WS.lastIndex;
  };
  const readString = (): string => {
    // the string token's text is handed to JSON.parse: exact escapes, and no second implementation
    const start = i++;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x5c) i++;
      else if (c === 0x22) break;
    }
    if (i >= s.length) bad();
    i++;
    const raw = s.slice(start, i);
    return raw.indexOf('\\') === -1 ? raw.slice(1, -1) : (JSON.parse(raw) as string);
  };
  type Frame = { kind: 'array'; value: unknown[] } | { kind: 'object'; value: Record<string, unknown>; key: string };
  const stack: Frame[] = [];
  let result: unknown;
  for (;;) {
    ws();
    let value: unknown;
    const c = s[i];
    if (c === '{') {
      i++;
      ws();
      if (s[i] === '}') {
        i++;
        value = {};
      } else {
        if (s[i] !== '"') bad();
        const key = readString();
        ws();
        if (s[i++] !== ':') bad();
        stack.push({ kind: 'object', value: {}, key });
        continue;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (s[i] === ']') {
        i++;
        value = [];
      } else {
        stack.push({ kind: 'array', value: [] });
        continue;
      }
    } else if (c === '"') value = readString();
    else if (s.startsWith('true', i)) (value = true), (i += 4);
    else if (s.startsWith('false', i)) (value = false), (i += 5);
    else if (s.startsWith('null', i)) (value = null), (i += 4);
    else {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(s);
      if (!m) bad();
      value = new ExactNumber(m[0]);
      i = NUMBER.lastIndex;
    }
    // hand the finished value to its container; close every container that ends here
    for (;;) {
      const top = stack[stack.length - 1];
      if (!top) {
        ws();
        if (i !== s.length) bad();
        result = value;
        return result;
      }
      if (top.kind === 'array') top.value.push(value);
      // defineProperty: a "__proto__" key is data, as with JSON.parse, never the prototype
      else Object.defineProperty(top.value, top.key, { value, enumerable: true, writable: true, configurable: true });
      ws();
      const sep = s[i++];
      if (sep === ',') {
        if (top.kind === 'object') {
          ws();
          if (s[i] !== '"') bad();
          top.key = readString();
          ws();
          if (s[i++] !== ':') bad();
        }
        break;
      }
      if ((top.kind === 'array' && sep === ']') || (top.kind === 'object' && sep === '}')) {
        stack.pop();
        value = top.value;
        continue;
      }
      bad();
    }
  }
}

/** doubles keep every decimal of up to 15 significant digits (DBL_DIG) within the normal range */
const DOUBLE_DIGITS = 15;
const DOUBLE_MAGNITUDE = 300;

/** true when JSON.parse reads this number token as exactly the decimal written (see numbersFitDoubles) */
function tokenFitsDouble(t: string): boolean {
  const e = t.search(/[eE]/);
  const mantissa = (e === -1 ? t : t.slice(0, e)).replace('-', '');
  const expText = e === -1 ? '0' : t.slice(e + 1);
  if (expText.replace(/^[+-]/, '').length > 5) return false;
  const dot = mantissa.indexOf('.');
  const intDigits = (dot === -1 ? mantissa : mantissa.slice(0, dot)).replace(/^0+/, '');
  const fraction = dot === -1 ? '' : mantissa.slice(dot + 1);
  const significant = (intDigits + fraction).replace(/^0+/, '').replace(/0+$/, '');
  if (significant === '') return true; // a zero
  if (significant.length > DOUBLE_DIGITS) return false;
  // decimal exponent of the first significant digit
  const lead = intDigits.length > 0 ? intDigits.length - 1 : -(fraction.length - fraction.replace(/^0+/, '').length + 1);
  const magnitude = lead + Number(expText);
  return Math.abs(magnitude) <= DOUBLE_MAGNITUDE;
}

/**
 * True when every number in the JSON text has at most 15 significant digits and a magnitude well
 * inside the double range: JSON.parse then yields doubles whose shortest form is the decimal as
 * written, so the kernel's parsed value is already lossless and a reader needing exact numbers can
 * skip parseExactJson. One pass over the text (strings skipped), no allocation beyond the number
 * tokens; false on anything doubtful, which only costs the exact re-read.
 */
export function numbersFitDoubles(raw: Buffer | string): boolean {
  // latin1: one char per byte; UTF-8 continuation bytes are ≥ 0x80, never a quote, backslash or digit
  const s = typeof raw === 'string' ? raw : raw.toString('latin1');
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < s.length; i++) {
        const d = s.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(s);
      if (!m || !tokenFitsDouble(m[0])) return false;
      i = NUMBER.lastIndex - 1;
    }
  }
  return true;
}

/** Follows object keys / array indexes from `root`; undefined when the path does not exist. */
export function exactAt(root: unknown, path: readonly (string | number)[]): unknown {
  let v = root;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(v, k)) return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/**
 * Where a value parsed by the kernel came from, so a handler deep down (a guard handed only
 * `payload`) can re-read it losslessly: the route binds the node to the body's bytes and its path,
 * nothing is parsed until someone asks (`exactOf`).
 */
export interface ExactSource {
  raw: Buffer | string;
  path: ReadonlyArray<string | number>;
}

const sources = new WeakMap<object, ExactSource>();
const parsed = new WeakMap<object, unknown>();

export function bindExact(node: unknown, raw: Buffer | string | null, path: ReadonlyArray<string | number> = []): void {
  if (node && typeof node === 'object' && raw) sources.set(node, { raw, path });
}

export function exactSourceOf(node: unknown): ExactSource | undefined {
  return node && typeof node === 'object' ? sources.get(node) : undefined;
}

/** The lossless twin of a bound node (parsed on first use, then cached), or undefined when unbound. */
export function exactOf(node: unknown): unknown {
  const src = exactSourceOf(node);
  if (!src) return undefined;
  const key = node as object;
  if (!parsed.has(key)) parsed.set(key, exactAt(parseExactJson(src.raw), src.path));
  return parsed.get(key);
}

function hasNonFinite(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return true;
    } else if (v && typeof v === 'object') {
      for (const k in v as Record<string, unknown>) stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

/** Exact tree → JSON values: numbers inside the double range as numbers, beyond it as their text. */
function beyondRangeAsText(value: unknown): unknown {
  const root = { v: value };
  const stack: Array<Record<string, unknown> | unknown[]> = [root];
  while (stack.length) {
    const o = stack.pop()!;
    for (const k of Object.keys(o)) {
      const v = (o as Record<string, unknown>)[k];
      if (v instanceof ExactNumber) {
        const n = v.toNumber();
        (o as Record<string, unknown>)[k] = Number.isFinite(n) ? n : v.text;
      } else if (v && typeof v === 'object') stack.push(v as Record<string, unknown>);
    }
  }
  return root.v;
}

/** JSON pointers (RFC 6901) of the non-finite numbers of a parsed value */
function nonFinitePointers(value: unknown): string[] {
  const out: string[] = [];
  const stack: Array<{ v: unknown; at: string }> = [{ v: value, at: '' }];
  while (stack.length) {
    const { v, at } = stack.pop()!;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) out.push(at);
    } else if (v && typeof v === 'object') {
      for (const k in v as Record<string, unknown>) stack.push({ v: (v as Record<string, unknown>)[k], at: `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}` });
    }
  }
  return out.sort();
}

/**
 * The kernel's guard against silent Infinity (issue 12, item 3): a JSON number beyond the double
 * range never reaches a handler as ±Infinity. A route that declares `exactNumbers` receives it as
 * its exact text (a string, which its schema and handler read as an exact decimal); any other route
 * answers 400 `number_out_of_range`. Costs one walk over the parsed value's containers and numbers.
 * A route may name the top-level members that take such text (`exactNumbers: ['tolerance']`): a
 * number beyond the range anywhere else is a 400 `validation_failed` naming it, never text that a
 * string field would accept (`{"expression": 1e999}` was evaluated as the expression "1e999").
 */
export function guardNumberRange(value: unknown, raw: Buffer, exactNumbers: boolean | readonly string[]): unknown {
  // a walk of the parsed value, not of the text: strings (the bulk of a large body) cost nothing
  if (value === null || typeof value !== 'object' || !hasNonFinite(value)) return value;
  if (exactNumbers === false) {
    throw new HttpError(Problems.numberOutOfRange, 'the body holds a number beyond the double range (about ±1.8e308); send it as a string where the route accepts numeric strings');
  }
  if (exactNumbers !== true) {
    const allowed = new Set(exactNumbers.map((m) => `/${m}`));
    const wrong = nonFinitePointers(value).filter((p) => Array.isArray(value) || !allowed.has(p));
    if (wrong.length) {
      const errors = wrong.slice(0, 20).map((p) => ({ field: `/body${p}`, message: 'is a number beyond the double range (about ±1.8e308), which this field does not accept' }));
      throw new HttpError(Problems.validation, errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
    }
  }
  return beyondRangeAsText(parseExactJson(raw));
}

/**
 * The exact text of a top-level member's number (`{"tolerance": 1e-999}` → `"1e-999"`), found by
 * one linear scan of the body (no parse, no allocation beyond the key): what a handler uses to
 * read one or two claimed numbers of a large body without re-reading all of it. Undefined when the
 * member is absent or not a number; the last occurrence wins, as with JSON.parse.
 */
export function exactMember(raw: Buffer | string, key: string): string | undefined {
  const s = typeof raw === 'string' ? raw : raw.toString('utf8');
  let depth = 0;
  let found: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      for (i++; i < s.length; i++) {
        const d = s.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      if (depth !== 1) continue;
      let j = i + 1;
      while (j < s.length && /\s/.test(s[j])) j++;
      if (s[j] !== ':') continue;
      const text = s.slice(start, i + 1);
      const name = text.indexOf('\\') === -1 ? text.slice(1, -1) : (JSON.parse(text) as string);
      if (name !== key) continue;
      j++;
      while (j < s.length && /\s/.test(s[j])) j++;
      NUMBER.lastIndex = j;
      const m = NUMBER.exec(s);
      found = m ? m[0] : undefined;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return found;
}
