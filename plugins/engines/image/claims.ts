import type { ImageFormat, ImageInfo } from './header.js';

/**
 * Claims about what the header proves — format, width × height, one dimension, orientation, byte
 * size — are read from the claim text by fixed patterns. Whatever words remain after those
 * fragments and a short list of filler words are "content" (what the picture shows), which only a
 * vision model could judge. Negation and disjunction are not interpreted: such claims are left
 * inconclusive rather than half-understood.
 */

export type CheckKind = 'format' | 'dimensions' | 'width' | 'height' | 'orientation' | 'byte_size';

export interface Check {
  kind: CheckKind;
  fragment: string;
  expected: string;
  actual: string;
  holds: boolean;
}

export interface ClaimAnalysis {
  checks: Check[];
  /** words no check covers (picture content) */
  uncovered: string[];
  /** negation or disjunction present: not interpreted */
  uninterpretable: string | null;
}

const FORMAT_WORDS: Record<string, ImageFormat> = { png: 'png', jpeg: 'jpeg', jpg: 'jpeg', gif: 'gif', webp: 'webp' };

const UNITS: Record<string, number> = { b: 1, byte: 1, bytes: 1, kb: 1000, kib: 1024, mb: 1_000_000, mib: 1024 * 1024 };
const LESS = ['less', 'smaller', 'under', 'below', 'at most', 'no more'];

/**
 * Not "of": "a picture of a square", "a portrait of Lincoln" name what the picture shows, so the
 * word is content and keeps the claim from being read as one about the file.
 */
const FILLER = new Set(
  ('a an the this that it its image picture photo photograph file graphic is are was has have with in and ' +
    'format formatted encoded as size sized dimension dimensions resolution pixel pixels px wide tall high by exactly ' +
    'than in orientation oriented mode shape measures measuring total bytes').split(' '),
);

const NEGATION = /\b(?:not|no|never|neither|nor|isn't|aren't|wasn't|doesn't|don't|without)\b|n't\b/i;
const DISJUNCTION = /\bor\b|\beither\b/i;
/** a symbol left after the fragments ("≠ 800x600", "< 2 MB", "~800x600", "!= PNG") changes what a fragment states */
const SYMBOL = /!=|[^\P{S}=]/u;
/** `!` before a word or number negates it in most notations ("!800x600", "!png"); a closing `!` does not */
const PREFIX_NOT = /!(?=\s*[\p{L}\p{N}])/u;

/** `<number> <unit>` in bytes as an exact fraction: "1.005 KB" is 1005 bytes, not the double 1004.999… */
function bytesOf(num: string, unit: number): { n: bigint; d: bigint } {
  const [int, frac = ''] = num.split('.');
  return { n: BigInt(int + frac) * BigInt(unit), d: 10n ** BigInt(frac.length) };
}

export function analyseClaim(claim: string, info: ImageInfo, byteSize: number): ClaimAnalysis {
  const checks: Check[] = [];
  let rest = ` ${claim.normalize('NFKC').toLowerCase()} `;
  // read before the fragments are taken out, which would leave "!800x600" a lone "!"
  const prefixNot = PREFIX_NOT.exec(rest);
  const take = (re: RegExp, fn: (m: RegExpExecArray) => void) => {
    let m: RegExpExecArray | null;
    const g = new RegExp(re.source, 'gi');
    while ((m = g.exec(rest))) fn(m);
    rest = rest.replace(g, ' ');
  };
  const dims = `${info.width}x${info.height}`;
  take(/(\d{1,6})\s*(?:x|×|\*|by)\s*(\d{1,6})(?:\s*(?:px|pixels?))?/, (m) => {
    checks.push({ kind: 'dimensions', fragment: m[0].trim(), expected: `${Number(m[1])}x${Number(m[2])}`, actual: dims, holds: Number(m[1]) === info.width && Number(m[2]) === info.height });
  });
  const sizeOf = (kind: 'width' | 'height', n: string, fragment: string) =>
    checks.push({ kind, fragment: fragment.trim(), expected: String(Number(n)), actual: String(info[kind]), holds: Number(n) === info[kind] });
  take(/\b(width|height)\s*(?:is|of|=|:)?\s*(\d{1,6})\s*(?:px|pixels?)?/, (m) => sizeOf(m[1].toLowerCase() as 'width' | 'height', m[2], m[0]));
  take(/(\d{1,6})\s*(?:px|pixels?)\s+(wide|tall|high)\b/, (m) => sizeOf(m[2].toLowerCase() === 'wide' ? 'width' : 'height', m[1], m[0]));
  take(
    /\b(less|smaller|under|below|at most|no more|more|larger|bigger|over|above|at least)\s+(?:than\s+)?(\d+(?:\.\d+)?)\s*(bytes?|b|kib|kb|mib|mb)\b/,
    (m) => {
      const limit = bytesOf(m[2], UNITS[m[3].toLowerCase()]);
      const op = m[1].toLowerCase();
      const strict = !op.startsWith('at ') && op !== 'no more';
      const less = LESS.includes(op);
      // byteSize against n/d, cross-multiplied in BigInt
      const size = BigInt(byteSize) * limit.d;
      const holds = less ? (strict ? size < limit.n : size <= limit.n) : strict ? size > limit.n : size >= limit.n;
      const shown = limit.n % limit.d === 0n ? `${limit.n / limit.d}` : `${limit.n}/${limit.d}`;
      checks.push({ kind: 'byte_size', fragment: m[0].trim(), expected: `${less ? (strict ? '<' : '<=') : strict ? '>' : '>='} ${shown} bytes`, actual: `${byteSize} bytes`, holds });
    },
  );
  const orientation = info.width > info.height ? 'landscape' : info.width < info.height ? 'portrait' : 'square';
  take(/\b(landscape|portrait|square)\b/, (m) => {
    checks.push({ kind: 'orientation', fragment: m[0], expected: m[1].toLowerCase(), actual: orientation, holds: m[1].toLowerCase() === orientation });
  });
  take(/\b(png|jpe?g|gif|webp)\b/, (m) => {
    const f = FORMAT_WORDS[m[1].toLowerCase()];
    checks.push({ kind: 'format', fragment: m[0], expected: f, actual: info.format, holds: f === info.format });
  });
  // looked for after the fragments are removed, so "no more than 2 MB" is a size bound, not a negation
  const neg = NEGATION.exec(rest) ?? DISJUNCTION.exec(rest) ?? SYMBOL.exec(rest) ?? prefixNot;
  const uncovered = rest
    .split(/[^\p{L}\p{N}']+/u)
    .filter((w) => w && !FILLER.has(w));
  return { checks, uncovered, uninterpretable: neg ? neg[0].trim() : null };
}
