import { ExprParser } from './expr.js';
import { K, tokenize, unsupported } from './lexer.js';
import { stringNode } from './strings.js';
import { type N, leaf, node, withField } from './tree.js';

/** Atoms of tree-sitter-python's grammar: names, literals, strings, brackets and comprehensions. */
export class AtomParser extends ExprParser {

  protected atom(): N {
    const k = this.kind();
    const at = this.p;
    const s = this.t.start[at];
    const e = this.t.end[at];
    if (k === K.NAME) {
      const v = this.t.val[at];
      if (v === 'True' || v === 'False' || v === 'None') {
        this.p++;
        return leaf(v === 'None' ? 'none' : v === 'True' ? 'true' : 'false', s, e);
      }
      return this.name();
    }
    if (k === K.INT || k === K.FLOAT) {
      this.p++;
      return leaf(k === K.INT ? 'integer' : 'float', s, e);
    }
    if (k === K.STRING) {
      const parts: N[] = [];
      while (this.kind() === K.STRING) {
        parts.push(stringNode(this.code, this.t.start[this.p], this.t.end[this.p], (a, b) => this.interpolated(a, b)));
        this.p++;
      }
      return parts.length === 1 ? parts[0] : node('concatenated_string', parts);
    }
    if (this.is('...')) {
      this.p++;
      return leaf('ellipsis', s, e);
    }
    if (this.is('(')) return this.parens();
    if (this.is('[')) return this.collection('[', ']', 'list', 'list_comprehension');
    if (this.is('{')) return this.braces();
    return unsupported('unexpected token');
  }

  /** an f-string interpolation's expression (or expression list), from its own tokens */
  private interpolated(from: number, to: number): N {
    const sub = new AtomParser(this.code, tokenize(this.code, from, to, true));
    sub.nesting = this.nesting;
    const first = sub.expression();
    if (sub.kind() !== K.EOF) unsupported('interpolation tail');
    return first;
  }

  private parens(): N {
    const s = this.expect('(');
    if (this.is(')')) return node('tuple', [], s, this.expectEnd(')'));
    if (this.is('yield')) {
      const y = this.yieldExpr();
      return node('parenthesized_expression', [y], s, this.expectEnd(')'));
    }
    if (this.is('*') && this.isAt(1, '(')) unsupported('parenthesized splat');
    const first = this.starred(() => this.expression());
    if (this.is('for')) {
      const cl = this.clauses();
      return node('generator_expression', [withField(first, 'body'), ...cl], s, this.expectEnd(')'));
    }
    if (this.is(')')) {
      if (first.type === 'list_splat') unsupported('parenthesized list splat');
      return node('parenthesized_expression', [first], s, this.expectEnd(')'));
    }
    const kids = [first];
    while (this.is(',')) {
      this.p++;
      if (this.is(')')) break;
      kids.push(this.starred(() => this.expression()));
    }
    return node('tuple', kids, s, this.expectEnd(')'));
  }

  private collection(open: string, close: string, type: string, comp: string): N {
    const s = this.expect(open);
    const kids: N[] = [];
    while (!this.is(close)) {
      const item = this.starred(() => this.expression());
      if (!kids.length && this.is('for')) {
        const cl = this.clauses();
        return node(comp, [withField(item, 'body'), ...cl], s, this.expectEnd(close));
      }
      kids.push(item);
      if (!this.is(',')) break;
      this.p++;
    }
    return node(type, kids, s, this.expectEnd(close));
  }

  private braces(): N {
    const s = this.startOf();
    if (this.isAt(1, '}')) {
      this.p++;
      return node('dictionary', [], s, this.expectEnd('}'));
    }
    if (this.isAt(1, '*')) return this.collection('{', '}', 'set', 'set_comprehension');
    const save = this.p;
    this.p++;
    if (!this.is('**')) {
      this.expression();
      if (!this.is(':')) {
        this.p = save;
        return this.collection('{', '}', 'set', 'set_comprehension');
      }
    }
    this.p = save + 1;
    const kids: N[] = [];
    while (!this.is('}')) {
      let item: N;
      if (this.is('**')) {
        const st = this.expect('**');
        item = node('dictionary_splat', [this.expression()], st);
      } else {
        const key = withField(this.expression(), 'key');
        this.expect(':');
        item = node('pair', [key, withField(this.expression(), 'value')]);
        if (!kids.length && this.is('for')) {
          const cl = this.clauses();
          return node('dictionary_comprehension', [withField(item, 'body'), ...cl], s, this.expectEnd('}'));
        }
      }
      kids.push(item);
      if (!this.is(',')) break;
      this.p++;
    }
    return node('dictionary', kids, s, this.expectEnd('}'));
  }

  /** comprehension clauses: for_in_clause, then for_in_clause / if_clause */
  protected clauses(): N[] {
    const out: N[] = [];
    while (this.is('for') || (out.length && this.is('if'))) {
      const s = this.startOf();
      if (this.is('if')) {
        this.p++;
        out.push(node('if_clause', [this.disjunction()], s));
      } else {
        this.p++;
        const left = withField(this.targets('in'), 'left');
        this.expect('in');
        out.push(node('for_in_clause', [left, withField(this.disjunction(), 'right')], s));
        if (this.is(',')) unsupported('several for-in right sides');
      }
      if (this.is('else')) unsupported('conditional in a comprehension clause');
    }
    return out;
  }}
