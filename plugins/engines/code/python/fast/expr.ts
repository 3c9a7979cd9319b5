import { Cursor } from './cursor.js';
import { K, unsupported } from './lexer.js';
import { type N, leaf, node, token, withField } from './tree.js';

/**
 * Binary operator level, loosest first, as tree-sitter-python's PREC has them: `|` 0, `&` 1, `^` 2
 * (tighter than `&`, unlike Python's grammar: its tree, not Python's, is what must be reproduced),
 * shifts 3, `+ -` 4, `* / // % @` 5; else -1. By character codes, so no operator string is hashed.
 */
function binaryLevel(v: string): number {
  if (v.length === 1) {
    switch (v.charCodeAt(0)) {
      case 124:
        return 0;
      case 38:
        return 1;
      case 94:
        return 2;
      case 43:
      case 45:
        return 4;
      case 42:
      case 47:
      case 37:
      case 64:
        return 5;
      default:
        return -1;
    }
  }
  const a = v.charCodeAt(0);
  if (v.length !== 2 || v.charCodeAt(1) !== a) return -1;
  return a === 60 || a === 62 ? 3 : a === 47 ? 5 : -1;
}
const COMPARE = new Set(['<', '>', '==', '>=', '<=', '!=']);
/** expression shapes a `type` annotation is accepted with (others: tree-sitter's type rules differ) */
const TYPE_REFUSED = new Set(['lambda', 'conditional_expression', 'boolean_operator', 'not_operator', 'comparison_operator']);

/** Expressions of tree-sitter-python's grammar, as recursive descent with its precedences. */
export abstract class ExprParser extends Cursor {
  protected abstract atom(): N;
  protected abstract clauses(): N[];

  /** `expression` in the grammar: lambda, conditional and everything below */
  expression(): N {
    this.deeper();
    let e: N;
    if (this.is('lambda')) e = this.lambda();
    else {
      e = this.disjunction();
      if (this.is('if')) {
        this.p++;
        const cond = this.disjunction();
        this.expect('else');
        e = node('conditional_expression', [e, cond, this.expression()]);
      }
    }
    this.nesting--;
    return e;
  }

  private lambda(): N {
    const start = this.expect('lambda');
    const kids: N[] = [];
    if (!this.is(':')) kids.push(withField(this.params('lambda_parameters', false), 'parameters'));
    this.expect(':');
    kids.push(withField(this.expression(), 'body'));
    return node('lambda', kids, start);
  }

  /** a parameter list up to `)` or `:`; `typed` allows annotations (def, not lambda) */
  protected params(type: string, typed: boolean): N {
    const kids: N[] = [];
    let end = 0;
    while (!this.is(')') && !this.is(':')) {
      let p: N;
      if (this.is('*') || this.is('**')) {
        const s = this.expect(this.t.val[this.p]);
        const e = this.prevEnd();
        const star = e - s === 1;
        if (star && (this.is(',') || this.is(')'))) p = leaf('keyword_separator', s, e);
        else p = node(star ? 'list_splat_pattern' : 'dictionary_splat_pattern', [this.name()], s);
        if (typed && this.is(':') && p.type !== 'keyword_separator') {
          this.p++;
          p = node('typed_parameter', [p, withField(this.type(), 'type')]);
        }
      } else if (this.is('/')) {
        const s = this.expect('/');
        const e = this.prevEnd();
        p = leaf('positional_separator', s, e);
      } else {
        const name = this.name();
        let type: N | null = null;
        if (typed && this.is(':')) {
          this.p++;
          type = withField(this.type(), 'type');
        }
        if (this.is('=')) {
          this.p++;
          const value = withField(this.expression(), 'value');
          p = type ? node('typed_default_parameter', [withField(name, 'name'), type, value]) : node('default_parameter', [withField(name, 'name'), value]);
        } else p = type ? node('typed_parameter', [name, type]) : name;
      }
      kids.push(p);
      end = p.end;
      if (!this.is(',')) break;
      end = this.t.end[this.p++];
    }
    return node(type, kids, kids.length ? kids[0].start : this.startOf(), end);
  }

  /** a `type` node: generic_type for `Name[...]`, else the expression tree-sitter also keeps */
  type(): N {
    const s = this.startOf();
    if (this.kind() === K.NAME && this.isAt(1, '[')) {
      const id = this.name();
      this.p++;
      const params: N[] = [];
      while (!this.is(']')) {
        params.push(this.type());
        if (!this.is(',')) break;
        this.p++;
      }
      const end = this.expectEnd(']');
      if (!this.is('=') && !this.is(',') && !this.is(')') && !this.is(']') && !this.is(':') && this.kind() !== K.NEWLINE) unsupported('type after generic');
      return node('type', [node('generic_type', [id, node('type_parameter', params, id.end, end)])], s);
    }
    const e = this.expression();
    if (TYPE_REFUSED.has(e.type)) unsupported('type shape');
    return node('type', [e]);
  }

  disjunction(): N {
    let e = this.conjunction();
    while (this.is('or')) {
      const s = this.expect('or');
      const en = this.prevEnd();
      e = node('boolean_operator', [withField(e, 'left'), token('or', 'operator', s, en), withField(this.conjunction(), 'right')]);
    }
    return e;
  }

  private conjunction(): N {
    let e = this.inversion();
    while (this.is('and')) {
      const s = this.expect('and');
      const en = this.prevEnd();
      e = node('boolean_operator', [withField(e, 'left'), token('and', 'operator', s, en), withField(this.inversion(), 'right')]);
    }
    return e;
  }

  private inversion(): N {
    if (!this.is('not')) return this.comparison();
    const s = this.expect('not');
    this.deeper();
    const arg = this.inversion();
    this.nesting--;
    return node('not_operator', [withField(arg, 'argument')], s);
  }

  private comparison(): N {
    const first = this.binary(0);
    let kids: N[] | null = null;
    for (;;) {
      let op: N;
      const v = this.t.val[this.p];
      const k = this.kind();
      if (k === K.OP && COMPARE.has(v)) op = token(v, 'operators', this.t.start[this.p], this.t.end[this.p++]);
      else if (this.is('in')) op = token('in', 'operators', this.t.start[this.p], this.t.end[this.p++]);
      else if (this.is('not') && this.isAt(1, 'in')) {
        op = token('not in', 'operators', this.t.start[this.p], this.t.end[this.p + 1]);
        this.p += 2;
      } else if (this.is('is')) {
        const two = this.isAt(1, 'not');
        op = token(two ? 'is not' : 'is', 'operators', this.t.start[this.p], this.t.end[this.p + (two ? 1 : 0)]);
        this.p += two ? 2 : 1;
      } else break;
      kids ??= [first];
      kids.push(op, this.binary(0));
    }
    return kids ? node('comparison_operator', kids) : first;
  }

  /** binary operators by precedence climbing over binaryLevel: left-associative; `**` is in unary() */
  protected binary(min: number): N {
    let e = this.unary();
    for (;;) {
      if (this.kind() !== K.OP) return e;
      const v = this.t.val[this.p];
      const level = binaryLevel(v);
      if (level < 0 || level < min) return e;
      const op = token(v, 'operator', this.t.start[this.p], this.t.end[this.p++]);
      e = node('binary_operator', [withField(e, 'left'), op, withField(this.binary(level + 1), 'right')]);
    }
  }

  private unary(): N {
    if (this.is('await')) {
      // tree-sitter's `await` takes a primary at unary precedence: `await a ** b` is await(a ** b)
      const s = this.expect('await');
      this.deeper();
      const arg = this.unary();
      this.nesting--;
      return node('await', [arg], s);
    }
    const v = this.t.val[this.p];
    if (this.kind() === K.OP && (v === '-' || v === '+' || v === '~')) {
      const op = token(v, 'operator', this.t.start[this.p], this.t.end[this.p++]);
      this.deeper();
      const arg = this.unary();
      this.nesting--;
      return node('unary_operator', [op, withField(arg, 'argument')]);
    }
    const e = this.primary();
    if (this.is('**')) {
      const op = token('**', 'operator', this.t.start[this.p], this.t.end[this.p++]);
      this.deeper();
      const right = this.unary();
      this.nesting--;
      return node('binary_operator', [withField(e, 'left'), op, withField(right, 'right')]);
    }
    return e;
  }

  primary(): N {
    let e = this.atom();
    for (;;) {
      if (this.is('.')) {
        this.p++;
        e = node('attribute', [withField(e, 'object'), withField(this.name(), 'attribute')]);
      } else if (this.is('(')) {
        const args = this.argumentList();
        e = node('call', [withField(e, 'function'), withField(args, 'arguments')]);
      } else if (this.is('[')) {
        this.p++;
        const kids: N[] = [withField(e, 'value')];
        for (;;) {
          kids.push(withField(this.subscriptItem(), 'subscript'));
          if (!this.is(',')) break;
          this.p++;
          if (this.is(']')) break;
        }
        e = node('subscript', kids, e.start, this.expectEnd(']'));
      } else return e;
    }
  }

  private subscriptItem(): N {
    const s = this.startOf();
    const kids: N[] = [];
    if (!this.is(':')) {
      const e = this.expression();
      if (!this.is(':')) return e;
      kids.push(e);
    }
    let end = this.expectEnd(':');
    if (!this.is(':') && !this.is(']') && !this.is(',')) {
      kids.push(this.expression());
      end = kids[kids.length - 1].end;
    }
    if (this.is(':')) {
      end = this.expectEnd(':');
      if (!this.is(']') && !this.is(',')) {
        kids.push(this.expression());
        end = kids[kids.length - 1].end;
      }
    }
    return node('slice', kids, s, end);
  }

  protected argumentList(): N {
    const s = this.expect('(');
    const kids: N[] = [];
    while (!this.is(')')) {
      let a: N;
      if (this.is('*') || this.is('**')) {
        const v = this.t.val[this.p];
        const st = this.expect(v);
        if (this.is('(')) unsupported('parenthesized splat');
        a = node(v === '*' ? 'list_splat' : 'dictionary_splat', [this.expression()], st);
      } else if (this.kind() === K.NAME && this.isAt(1, '=')) {
        const name = withField(this.name(), 'name');
        this.p++;
        a = node('keyword_argument', [name, withField(this.expression(), 'value')]);
      } else {
        a = this.expression();
        if (this.is('for')) {
          if (kids.length) unsupported('generator after arguments');
          const body = withField(a, 'body');
          const g = node('generator_expression', [body, ...this.clauses()], s, this.expectEnd(')'));
          return g;
        }
      }
      kids.push(a);
      if (!this.is(',')) break;
      this.p++;
    }
    return node('argument_list', kids, s, this.expectEnd(')'));
  }


  /** assignment / for targets up to `stop`, as tree-sitter's patterns */
  protected targets(stop: string): N {
    const items: N[] = [];
    let end = 0;
    for (;;) {
      items.push(this.starred(() => this.binary(0)));
      end = items[items.length - 1].end;
      if (!this.is(',')) break;
      end = this.t.end[this.p++];
      if (this.is(stop)) break;
    }
    const pats = items.map((i) => toPattern(i));
    return items.length === 1 && end === items[0].end ? pats[0] : node('pattern_list', pats, pats[0].start, end);
  }

  /**
   * `*name` as list_splat, else `inner()`. Only a bare name: outside argument lists tree-sitter
   * takes `*a.b` / `*f(x)` as the attribute / call of a list_splat.
   */
  protected starred(inner: () => N): N {
    if (!this.is('*')) return inner();
    const s = this.expect('*');
    const name = this.name();
    if (!this.is(',') && !this.is(')') && !this.is(']') && !this.is('}') && !this.is('=') && !this.is('in')) unsupported('starred operand');
    return node('list_splat', [name], s);
  }






  /** `yield`, `yield from x`, `yield a, b` */
  yieldExpr(): N {
    const s = this.expect('yield');
    const e = this.prevEnd();
    if (this.is('from')) {
      this.p++;
      return node('yield', [this.expression()], s);
    }
    if (this.endsExpressions()) return node('yield', [], s, e);
    return node('yield', [this.expressions()], s);
  }


  /** `_expressions`: one expression, or an expression_list when commas follow */
  expressions(): N {
    const first = this.expression();
    if (!this.is(',')) return first;
    const kids = [first];
    let end = first.end;
    while (this.is(',')) {
      end = this.t.end[this.p++];
      if (this.endsExpressions()) break;
      kids.push(this.expression());
      end = kids[kids.length - 1].end;
    }
    return node('expression_list', kids, first.start, end);
  }
}

/** An expression in target position, as tree-sitter's `pattern` nodes. */
export function toPattern(n: N): N {
  switch (n.type) {
    case 'identifier':
    case 'attribute':
    case 'subscript':
      return n;
    case 'list_splat':
      if (!['identifier', 'attribute', 'subscript'].includes(n.children[0].type)) unsupported('splat target');
      return node('list_splat_pattern', n.children, n.start, n.end);
    case 'tuple':
      if (!n.children.length) unsupported('empty tuple target');
      return node('tuple_pattern', n.children.map(toPattern), n.start, n.end);
    case 'list':
      if (!n.children.length) unsupported('empty list target');
      return node('list_pattern', n.children.map(toPattern), n.start, n.end);
    default:
      return unsupported(`target ${n.type}`);
  }
}
