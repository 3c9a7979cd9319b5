import { create, all, type MathNode } from 'mathjs';
import { verify, type MathRequest } from '../../plugins/engines/math/engine.js';
import { judge as judgeMath, setup as setupMath } from './math.js';

/**
 * The math corpus written in LaTeX (issue 46): each line's expression rendered by mathjs's own
 * `toTex` (an independent writer: `\frac{…}{…}`, `\cdot`, `{x}^{2}`, `\left(…\right)`, `\sqrt[3]{…}`,
 * `\sin^{-1}`, `\mathrm{binomial}`), read back by the engine's LaTeX reader and judged by the math
 * corpus's own rules. A line whose expected refusal is the plain syntax's implicit-product ambiguity
 * (`1/2(3+1)`) is sent as written: its LaTeX rendering states one reading, so no ambiguity is left.
 */
export const corpus = 'math.jsonl';

const mj = create(all, { number: 'BigNumber', precision: 64 });
const rendered = new Map<string, string>();

interface Line {
  expression: string;
  context?: MathRequest['context'];
  expected_value?: string;
  tolerance?: string;
  expected: { reject?: boolean; why?: string };
}

function toTex(node: MathNode): string {
  return node.toTex({ parenthesis: 'keep', implicit: 'show' });
}

/** plain → LaTeX, each side of an equation on its own (mathjs would read `a = b` as an assignment) */
export function render(expression: string): string {
  const sides = expression.replace(/\*\*/g, '^').split('=');
  return sides.map((s) => toTex(mj.parse(s))).join(' = ');
}

export async function setup(): Promise<void> {
  await setupMath();
  verify({ expression: '\\frac{1}{2} = 0.5' });
}

function text(line: Line): string {
  if (line.expected.reject && /ambig/i.test(line.expected.why ?? '')) return line.expression;
  let r = rendered.get(line.expression);
  if (r === undefined) rendered.set(line.expression, (r = render(line.expression)));
  return r;
}

export async function op(line: Line): Promise<unknown> {
  const req: MathRequest = { expression: text(line) };
  if (line.context) req.context = line.context;
  if (line.expected_value !== undefined) req.expected_value = line.expected_value;
  if (line.tolerance !== undefined) req.tolerance = line.tolerance;
  return verify(req);
}

export const judge = judgeMath;
