/** The LaTeX vocabulary the reader knows; anything else is refused by name (never guessed). */

/** functions of one argument, LaTeX name → the engine's name */
export const FUNCTIONS: Readonly<Record<string, string>> = {
  sin: 'sin', cos: 'cos', tan: 'tan', sec: 'sec', csc: 'csc', cot: 'cot',
  arcsin: 'asin', arccos: 'acos', arctan: 'atan', arcsec: 'asec', arccsc: 'acsc', arccot: 'acot',
  sinh: 'sinh', cosh: 'cosh', tanh: 'tanh', exp: 'exp', ln: 'ln',
};

/** `\sin^{-1}` is the inverse function, as in every textbook */
export const INVERSE: Readonly<Record<string, string>> = { sin: 'asin', cos: 'acos', tan: 'atan' };

/** plain words the reader also takes (a model mixes `sqrt(2)` into LaTeX): name → the engine's name */
export const PLAIN_FUNCTIONS: Readonly<Record<string, string>> = {
  sqrt: 'sqrt', cbrt: 'cbrt', abs: 'abs', floor: 'floor', ceil: 'ceil', sin: 'sin', cos: 'cos', tan: 'tan',
  asin: 'asin', acos: 'acos', atan: 'atan', sinh: 'sinh', cosh: 'cosh', tanh: 'tanh', exp: 'exp', ln: 'ln',
  log: 'log', log10: 'log10', sec: 'sec', csc: 'csc', cot: 'cot', factorial: 'factorial', binomial: 'binomial',
};

export const GREEK: Readonly<Record<string, string>> = {
  alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', epsilon: 'ε', varepsilon: 'ε', zeta: 'ζ', eta: 'η', theta: 'θ',
  vartheta: 'θ', iota: 'ι', kappa: 'κ', lambda: 'λ', mu: 'μ', nu: 'ν', xi: 'ξ', rho: 'ρ', sigma: 'σ', tau: 'τ',
  upsilon: 'υ', phi: 'φ', varphi: 'φ', chi: 'χ', psi: 'ψ', omega: 'ω', Gamma: 'Γ', Delta: 'Δ', Theta: 'Θ',
  Lambda: 'Λ', Xi: 'Ξ', Sigma: 'Σ', Phi: 'Φ', Psi: 'Ψ', Omega: 'Ω',
};

export const TIMES = new Set(['cdot', 'times', 'ast']);

/** relations, LaTeX or character → one spelling */
export const RELATIONS: Readonly<Record<string, RelOp>> = {
  '=': '=', '<': '<', '>': '>', '≤': '<=', '≥': '>=', '≠': '!=',
  le: '<=', leq: '<=', leqslant: '<=', ge: '>=', geq: '>=', geqslant: '>=', ne: '!=', neq: '!=', lt: '<', gt: '>',
};
export type RelOp = '=' | '<' | '>' | '<=' | '>=' | '!=';

/** commands whose braced argument is text: words and units */
export const TEXT = new Set(['text', 'textrm', 'textit', 'textbf', 'textnormal', 'mbox', 'mathrm', 'mathit', 'mathsf', 'operatorname']);

/** commands that wrap a value without changing it */
export const WRAPPERS = new Set(['boxed', 'fbox', 'mathbf', 'bm', 'boldsymbol']);

export const FRACTIONS = new Set(['frac', 'dfrac', 'tfrac', 'cfrac']);
export const BINOMIALS = new Set(['binom', 'dbinom', 'tbinom']);

/** paired delimiters read as functions */
export const PAIRS: Readonly<Record<string, { close: string; fn: string }>> = {
  lvert: { close: 'rvert', fn: 'abs' },
  vert: { close: 'vert', fn: 'abs' },
  lfloor: { close: 'rfloor', fn: 'floor' },
  lceil: { close: 'rceil', fn: 'ceil' },
};
