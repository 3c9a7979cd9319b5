import { isBuiltin } from 'node:module';
import type { JsNode } from '../parser.js';
import { type V, carried, join, konst, truthy, unknownOrigin } from '../../python/flow/index.js';
import { share } from './expr.js';
import { refine } from './guards.js';
import type { JsResolver } from '../resolve.js';
import { type JEnv, type JV, joinJEnv, lineOf } from './value.js';
import { type LoopHost, type LoopParts, joinAll, runLoop } from './jumps.js';
import { type TryHost, tryStatement } from './try.js';

/** What the statements need of the interpreter (interp.ts), which runs them block by block. */
export interface StatementHost extends LoopHost, TryHost {
  readonly r: JsResolver;
  readonly frames: Array<{ returns: V | null }>;
  /** loops being run, innermost included: nested deeper than two, one pass each */
  loopDepth: number;
  tick(): void;
  ev(n: JsNode | null | undefined, env: JEnv): V;
  stepped(v: V, n: JsNode): V;
  element(v: V, at: JsNode): V;
  functionValue(n: JsNode, env: JEnv): JV;
}

/**
 * What each statement of a JavaScript module does to the state of its names (the interpreter's
 * `block` runs them in order): the next state, or null when every path through it returned or threw.
 * Branches whose condition folds to a constant run alone; loops run to a fixed point (jumps.ts).
 */
export function statement(ip: StatementHost, s: JsNode, env: JEnv): JEnv | null {
  ip.tick();
  switch (s.type) {
    case 'ExpressionStatement':
      ip.ev(s.expression as JsNode, env);
      return env;
    case 'VariableDeclaration':
      for (const d of s.declarations as JsNode[]) {
        const v = d.init ? ip.ev(d.init as JsNode, env) : konst(null);
        if (d.init && ((d.init as JsNode).type === 'Identifier' || (d.init as JsNode).type === 'MemberExpression')) share(v);
        ip.assignTo(d.id as JsNode, v, env, lineOf(d));
      }
      return env;
    case 'FunctionDeclaration':
      return env;
    case 'ClassDeclaration':
      if (s.id) env.set((s.id as JsNode).name as string, ip.functionValue(s, env));
      return env;
    case 'ReturnStatement': {
      const v = ip.stepped(share(ip.ev(s.argument as JsNode | null, env)), s);
      const f = ip.frames[ip.frames.length - 1];
      f.returns = f.returns ? join(f.returns, v) : v;
      return null;
    }
    case 'ThrowStatement':
      ip.ev(s.argument as JsNode, env);
      return null;
    case 'IfStatement': {
      const t = truthy(ip.ev(s.test as JsNode, env));
      if (t === true) return bodyOf(ip, s.consequent as JsNode, env);
      if (t === false) return s.alternate ? bodyOf(ip, s.alternate as JsNode, env) : env;
      const [yes, no] = refine(ip, s.test as JsNode, env, (n) => ip.r.qualify(n));
      const a = bodyOf(ip, s.consequent as JsNode, yes.fork());
      const b = s.alternate ? bodyOf(ip, s.alternate as JsNode, no.fork()) : no.fork();
      return a && b ? joinJEnv(a, b) : (a ?? b);
    }
    case 'BlockStatement':
      return ip.block(s.body as JsNode[], env);
    case 'ForStatement': {
      const labels = ip.jumps.take();
      if (s.init) (s.init as JsNode).type === 'VariableDeclaration' ? statement(ip, s.init as JsNode, env) : ip.ev(s.init as JsNode, env);
      const t = s.test ? truthy(ip.ev(s.test as JsNode, env)) : true;
      if (t === false) return env;
      return loop(ip, s, env, labels, { after: (e) => void (s.update && ip.ev(s.update as JsNode, e)), test: (s.test as JsNode | null) ?? null, runs: t === true });
    }
    case 'WhileStatement': {
      const labels = ip.jumps.take();
      const t = truthy(ip.ev(s.test as JsNode, env));
      if (t === false) return env;
      return loop(ip, s, env, labels, { test: s.test as JsNode, runs: t === true });
    }
    case 'DoWhileStatement': {
      const labels = ip.jumps.take();
      return loop(ip, s, env, labels, { test: s.test as JsNode, runs: true });
    }
    case 'ForOfStatement':
    case 'ForInStatement': {
      const labels = ip.jumps.take();
      const it = ip.ev(s.right as JsNode, env);
      const el = s.type === 'ForOfStatement' ? ip.element(it, s) : ip.stepped(carried(it), s);
      const left = s.left as JsNode;
      const target = left.type === 'VariableDeclaration' ? ((left.declarations as JsNode[])[0].id as JsNode) : left;
      return loop(ip, s, env, labels, { before: (e) => ip.assignTo(target, el, e, lineOf(s)) });
    }
    case 'BreakStatement':
    case 'ContinueStatement':
      return ip.jumps.jump(s, env) ? null : env;
    case 'TryStatement':
      return tryStatement(ip, s, env);
    case 'SwitchStatement': {
      const j = ip.jumps.open('switch');
      ip.ev(s.discriminant as JsNode, env);
      let out: JEnv = env;
      let fall: JEnv | null = null;
      try {
        for (const c of s.cases as JsNode[]) {
          if (c.test) ip.ev(c.test as JsNode, env);
          const start: JEnv = fall ? joinJEnv(fall, env) : env.fork();
          const end = ip.block(c.consequent as JsNode[], start);
          fall = end;
          if (end) out = joinJEnv(out, end);
        }
      } finally {
        ip.jumps.close(j);
      }
      return joinAll(out, j.breaks);
    }
    case 'LabeledStatement': {
      ip.jumps.label((s.label as JsNode).name as string);
      const inner = s.body as JsNode;
      if (/^(For|ForOf|ForIn|While|DoWhile|Switch)Statement$/.test(inner.type)) return statement(ip, inner, env);
      // a labelled block: `break label` leaves it
      const j = ip.jumps.open('block');
      let out: JEnv | null;
      try {
        out = bodyOf(ip, inner, env);
      } finally {
        ip.jumps.close(j);
      }
      return joinAll(out, j.breaks);
    }
    case 'ExportNamedDeclaration':
    case 'ExportDefaultDeclaration': {
      const d = s.declaration as JsNode | null;
      if (!d) return env;
      if (d.type.endsWith('Declaration')) return statement(ip, d, env);
      ip.ev(d, env);
      return env;
    }
    case 'ImportDeclaration':
      for (const sp of s.specifiers as JsNode[]) {
        const local = sp.local as JsNode;
        const from = String((s.source as JsNode).value);
        env.set(local.name as string, isBuiltin(from) ? { q: ip.r.qualify(local) } : { q: ip.r.qualify(local), ...unknownOrigin(`${local.name as string}, imported from ${from}`, lineOf(s)) });
      }
      return env;
  }
  return env;

}

/** A statement used as a body (`if`, `for`, a label's): a block's statements, or the one statement. */
export function bodyOf(ip: StatementHost, s: JsNode, env: JEnv): JEnv | null {
  return s.type === 'BlockStatement' ? ip.block(s.body as JsNode[], env) : statement(ip, s, env);
}

function loop(ip: StatementHost, s: JsNode, env: JEnv, labels: string[], o: LoopParts): JEnv | null {
  ip.loopDepth++;
  try {
    // nested deeper than two, one pass and a widening: two passes at every level would cost 2^depth
    return runLoop(ip, s, env, labels, o, ip.loopDepth <= 2 ? 2 : 1);
  } finally {
    ip.loopDepth--;
  }
}
