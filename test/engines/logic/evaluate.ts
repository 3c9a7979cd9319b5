/**
 * An evaluator written for the tests, independent of the engine's parser and operator table: it
 * reads the query text itself and computes the formula's truth under a model with exact rationals
 * (BigInt), so a SAT answer is checked against the formula rather than against z3's own claim.
 * Quantifiers and division by zero are outside its reach and throw.
 */
type Num = { n: bigint; d: bigint; real: boolean };
type Val = Num | boolean;
type S = string | S[];

function readSexprs(text: string): S[] {
  const toks = text.replace(/\(/g, ' ( ').replace(/\)/g, ' ) ').trim().split(/\s+/).filter(Boolean);
  let i = 0;
  const one = (): S => {
    const t = toks[i++];
    if (t !== '(') return t;
    const out: S[] = [];
    while (toks[i] !== ')') out.push(one());
    i++;
    return out;
  };
  const all: S[] = [];
  while (i < toks.length) all.push(one());
  return all;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
function num(n: bigint, d: bigint, real: boolean): Num {
  if (d === 0n) throw new Error('division by zero');
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g, real };
}
const isNum = (v: Val): v is Num => typeof v === 'object';
function asNum(v: Val): Num {
  if (!isNum(v)) throw new Error('expected a number');
  return v;
}
const cmp = (a: Num, b: Num): number => {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
};
const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
};
/** SMT-LIB integer div: q such that a = b*q + r with 0 <= r < |b| */
function smtDiv(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new Error('division by zero');
  return b > 0n ? floorDiv(a, b) : -floorDiv(a, -b);
}

export function parseModelValue(s: string, real: boolean): Val {
  if (s === 'true' || s === 'false') return s === 'true';
  const m = /^(-?\d+)(?:\/(\d+))?$/.exec(s);
  if (!m) throw new Error(`model value ${s} is not exact`);
  return num(BigInt(m[1]), BigInt(m[2] ?? '1'), real);
}

export function evaluate(query: string, model: Record<string, string>): boolean {
  const forms = readSexprs(query);
  const sorts = new Map<string, string>();
  while (forms.length > 1) {
    const d = forms.shift() as S[];
    sorts.set(d[1] as string, (d[2] as string).toLowerCase());
  }
  const env = new Map<string, Val>();
  for (const [k, v] of Object.entries(model)) env.set(k, parseModelValue(v, sorts.get(k) === 'real'));
  const ev = (e: S): Val => {
    if (typeof e === 'string') {
      if (/^-?\d+$/.test(e)) return num(BigInt(e), 1n, false);
      if (/^-?\d+\.\d+$/.test(e)) {
        const [i, f] = e.replace('-', '').split('.');
        const v = num(BigInt(i + f), 10n ** BigInt(f.length), true);
        return e.startsWith('-') ? { ...v, n: -v.n } : v;
      }
      if (/^(true|false)$/i.test(e)) return e.toLowerCase() === 'true';
      if (!env.has(e)) throw new Error(`no model value for ${e}`);
      return env.get(e)!;
    }
    const [head, ...rest] = e;
    const op = (head as string).toUpperCase();
    const a = rest.map(ev);
    const nums = () => a.map(asNum);
    const real = () => nums().some((x) => x.real);
    switch (op) {
      case 'AND': return a.every((x) => x === true);
      case 'OR': return a.some((x) => x === true);
      case 'NOT': return a[0] !== true;
      case 'IMPLIES': return a[0] !== true || a[1] === true;
      case 'IFF': return a[0] === a[1];
      case 'XOR': return a.filter((x) => x === true).length % 2 === 1;
      case 'EQ': return isNum(a[0]) ? cmp(asNum(a[0]), asNum(a[1])) === 0 : a[0] === a[1];
      case 'NEQ': return isNum(a[0]) ? cmp(asNum(a[0]), asNum(a[1])) !== 0 : a[0] !== a[1];
      case 'GT': return cmp(asNum(a[0]), asNum(a[1])) > 0;
      case 'LT': return cmp(asNum(a[0]), asNum(a[1])) < 0;
      case 'GTE': return cmp(asNum(a[0]), asNum(a[1])) >= 0;
      case 'LTE': return cmp(asNum(a[0]), asNum(a[1])) <= 0;
      case 'PLUS': return nums().reduce((x, y) => num(x.n * y.d + y.n * x.d, x.d * y.d, real()));
      case 'MULT': return nums().reduce((x, y) => num(x.n * y.n, x.d * y.d, real()));
      case 'MINUS': {
        const [x, y] = nums();
        return y ? num(x.n * y.d - y.n * x.d, x.d * y.d, real()) : num(-x.n, x.d, x.real);
      }
      case 'DIV': {
        const [x, y] = nums();
        if (real()) return num(x.n * y.d, x.d * y.n, true);
        return num(smtDiv(x.n, y.n), 1n, false);
      }
      case 'MOD': {
        const [x, y] = nums();
        return num(x.n - y.n * smtDiv(x.n, y.n), 1n, false);
      }
      case 'POW': {
        const [x, y] = nums();
        let out = num(1n, 1n, x.real);
        for (let i = 0n; i < y.n; i++) out = num(out.n * x.n, out.d * x.d, x.real);
        return out;
      }
      case 'ITE': return a[0] === true ? a[1] : a[2];
      default: throw new Error(`evaluator does not handle ${op}`);
    }
  };
  return ev(forms[0]) === true;
}
