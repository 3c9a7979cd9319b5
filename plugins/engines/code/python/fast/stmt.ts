import { AtomParser } from './atoms.js';
import { toPattern } from './expr.js';
import { K, unsupported } from './lexer.js';
import { type N, leaf, node, token, withField } from './tree.js';

const AUGMENTED = new Set(['+=', '-=', '*=', '/=', '@=', '//=', '%=', '**=', '>>=', '<<=', '&=', '^=', '|=']);

/** Statements and blocks of tree-sitter-python's grammar over the fast lexer's tokens. */
export class StmtParser extends AtomParser {
  module(): N {
    const kids: N[] = [];
    while (this.kind() !== K.EOF) this.statement(kids);
    const t = this.t;
    let start = this.code.length;
    for (let i = 0; i < t.kind.length; i++) {
      if (t.kind[i] !== K.NEWLINE && t.kind[i] !== K.INDENT && t.kind[i] !== K.DEDENT && t.kind[i] !== K.EOF) {
        start = t.start[i];
        break;
      }
    }
    if (t.comments.length && t.comments[0] < start) start = t.comments[0];
    return node('module', kids, start, this.code.length);
  }

  /** one statement line (several with `;`) or one compound statement, appended to `out` */
  private statement(out: N[]): void {
    const k = this.kind();
    if (k === K.INDENT || k === K.DEDENT) unsupported('unexpected indentation');
    if (k === K.NAME) {
      switch (this.t.val[this.p]) {
        case 'async': {
          // `async def` / `async for` / `async with`: the node starts at `async` (not itself a node)
          const s = this.expect('async');
          if (this.is('def')) out.push(this.functionDefinition(s));
          else if (this.is('for')) out.push(this.loop('for_statement', s));
          else if (this.is('with')) out.push(this.withStatement(s));
          else unsupported('async');
          return;
        }
        case 'if':
          out.push(this.ifStatement());
          return;
        case 'while':
          out.push(this.loop('while_statement'));
          return;
        case 'for':
          out.push(this.loop('for_statement'));
          return;
        case 'try':
          out.push(this.tryStatement());
          return;
        case 'with':
          out.push(this.withStatement());
          return;
        case 'def':
          out.push(this.functionDefinition());
          return;
        case 'class':
          out.push(this.classDefinition());
          return;
      }
    }
    if (this.is('@')) {
      out.push(this.decorated());
      return;
    }
    this.simpleLine(out);
  }

  /** simple statements separated by `;`, then NEWLINE; returns the NEWLINE's position */
  private simpleLine(out: N[]): number {
    for (;;) {
      out.push(this.simpleStatement());
      if (!this.is(';')) break;
      this.p++;
      if (this.kind() === K.NEWLINE) break;
    }
    if (this.kind() !== K.NEWLINE) unsupported('expected end of line');
    return this.t.start[this.p++];
  }

  /** `:` then an indented block or statements on the same line, as the `block` node */
  private suite(): N {
    this.expect(':');
    this.deeper();
    let b: N;
    if (this.kind() === K.INDENT) {
      this.p++;
      const kids: N[] = [];
      while (this.kind() !== K.DEDENT) {
        if (this.kind() === K.EOF) unsupported('missing dedent');
        this.statement(kids);
      }
      // the block ends at its DEDENT: after the comment lines the scanner kept in it
      b = node('block', kids, kids[0].start, this.t.start[this.p++]);
    } else {
      if (this.kind() === K.NEWLINE) unsupported('empty suite');
      const kids: N[] = [];
      const end = this.simpleLine(kids);
      b = node('block', kids, kids[0].start, end);
    }
    this.nesting--;
    return b;
  }

  private ifStatement(): N {
    const s = this.expect('if');
    const kids = [withField(this.expression(), 'condition'), withField(this.suite(), 'consequence')];
    while (this.is('elif')) {
      const es = this.expect('elif');
      const cond = withField(this.expression(), 'condition');
      kids.push(withField(node('elif_clause', [cond, withField(this.suite(), 'consequence')], es), 'alternative'));
    }
    if (this.is('else')) kids.push(withField(this.elseClause(), 'alternative'));
    return node('if_statement', kids, s);
  }

  private elseClause(): N {
    const s = this.expect('else');
    return node('else_clause', [withField(this.suite(), 'body')], s);
  }

  private loop(type: string, start?: number): N {
    const s = start ?? this.startOf();
    this.expect(type === 'for_statement' ? 'for' : 'while');
    const kids: N[] = [];
    if (type === 'for_statement') {
      kids.push(withField(this.targets('in'), 'left'));
      this.expect('in');
      kids.push(withField(this.expressions(), 'right'));
    } else kids.push(withField(this.expression(), 'condition'));
    kids.push(withField(this.suite(), 'body'));
    if (this.is('else')) kids.push(withField(this.elseClause(), 'alternative'));
    return node(type, kids, s);
  }

  private tryStatement(): N {
    const s = this.expect('try');
    const kids = [withField(this.suite(), 'body')];
    while (this.is('except')) {
      const es = this.expect('except');
      const ck: N[] = [];
      if (!this.is(':')) {
        if (this.is('*')) unsupported('except*');
        ck.push(withField(this.asPattern(), 'value'));
        if (this.is(',')) unsupported('except a, b');
      }
      ck.push(this.suite());
      kids.push(node('except_clause', ck, es));
    }
    if (this.is('else')) kids.push(this.elseClause());
    if (this.is('finally')) {
      const fs = this.expect('finally');
      kids.push(node('finally_clause', [this.suite()], fs));
    }
    if (kids.length === 1) unsupported('try without handlers');
    return node('try_statement', kids, s);
  }

  /** `expr` or `expr as name` (tree-sitter's as_pattern, target wrapped in as_pattern_target) */
  private asPattern(): N {
    const e = this.expression();
    if (!this.is('as')) return e;
    this.p++;
    const target = this.name();
    if (!this.is(':') && !this.is(',')) unsupported('as target');
    return node('as_pattern', [e, withField(node('as_pattern_target', [target]), 'alias')]);
  }

  private withStatement(start?: number): N {
    const s = start ?? this.startOf();
    this.expect('with');
    if (this.is('(')) unsupported('parenthesized with');
    const items: N[] = [];
    for (;;) {
      items.push(node('with_item', [withField(this.asPattern(), 'value')]));
      if (!this.is(',')) break;
      this.p++;
    }
    return node('with_statement', [node('with_clause', items), withField(this.suite(), 'body')], s);
  }

  private functionDefinition(start?: number): N {
    const s = start ?? this.startOf();
    this.expect('def');
    const kids = [withField(this.name(), 'name')];
    const ps = this.expect('(');
    const params = this.params('parameters', true);
    kids.push(withField(node('parameters', params.children, ps, this.expectEnd(')')), 'parameters'));
    if (this.is('->')) {
      this.p++;
      kids.push(withField(this.type(), 'return_type'));
    }
    kids.push(withField(this.suite(), 'body'));
    return node('function_definition', kids, s);
  }

  private classDefinition(): N {
    const s = this.expect('class');
    const kids = [withField(this.name(), 'name')];
    if (this.is('(')) kids.push(withField(this.argumentList(), 'superclasses'));
    kids.push(withField(this.suite(), 'body'));
    return node('class_definition', kids, s);
  }

  private decorated(): N {
    const decorators: N[] = [];
    while (this.is('@')) {
      const s = this.expect('@');
      const e = this.expression();
      if (this.kind() !== K.NEWLINE) unsupported('decorator end');
      decorators.push(node('decorator', [e], s, this.t.start[this.p++]));
    }
    let def: N;
    if (this.is('async') && this.isAt(1, 'def')) def = this.functionDefinition(this.expect('async'));
    else if (this.is('def')) def = this.functionDefinition();
    else if (this.is('class')) def = this.classDefinition();
    else return unsupported('decorated statement');
    return node('decorated_definition', [...decorators, withField(def, 'definition')]);
  }

  private simpleStatement(): N {
    const s = this.startOf();
    const k = this.kind();
    if (k === K.NAME) {
      const v = this.t.val[this.p];
      switch (v) {
        case 'pass':
        case 'break':
        case 'continue':
          this.p++;
          return leaf(`${v}_statement`, s, this.t.end[this.p - 1]);
        case 'return': {
          const e = this.expectEnd('return');
          if (this.endsExpressions()) return leaf('return_statement', s, e);
          return node('return_statement', [this.expressions()], s);
        }
        case 'raise': {
          const e = this.expectEnd('raise');
          if (this.endsExpressions()) return leaf('raise_statement', s, e);
          const kids = [this.expressions()];
          if (this.is('from')) {
            this.p++;
            kids.push(withField(this.expression(), 'cause'));
          }
          return node('raise_statement', kids, s);
        }
        case 'del':
          this.p++;
          return node('delete_statement', [this.expressions()], s);
        case 'global':
        case 'nonlocal':
        case 'assert': {
          this.p++;
          const kids: N[] = [];
          for (;;) {
            kids.push(v === 'assert' ? this.expression() : this.name());
            if (!this.is(',')) break;
            this.p++;
          }
          return node(`${v}_statement`, kids, s);
        }
        case 'import':
          return this.importStatement();
        case 'from':
          return this.importFrom();
      }
    }
    return this.expressionStatement();
  }

  private dottedName(): N {
    const kids = [this.name()];
    while (this.is('.')) {
      this.p++;
      kids.push(this.name());
    }
    return node('dotted_name', kids);
  }

  /** `a.b` or `a.b as c`, field `name` */
  private importName(): N {
    const d = this.dottedName();
    if (!this.is('as')) return withField(d, 'name');
    this.p++;
    return withField(node('aliased_import', [withField(d, 'name'), withField(this.name(), 'alias')]), 'name');
  }

  private importStatement(): N {
    const s = this.expect('import');
    const kids = [this.importName()];
    while (this.is(',')) {
      this.p++;
      kids.push(this.importName());
    }
    return node('import_statement', kids, s);
  }

  private importFrom(): N {
    const s = this.expect('from');
    let module: N;
    if (this.is('.') || this.is('...')) {
      const ds = this.startOf();
      let de = ds;
      while (this.is('.') || this.is('...')) de = this.t.end[this.p++];
      const prefix = leaf('import_prefix', ds, de);
      module = this.is('import') ? node('relative_import', [prefix]) : node('relative_import', [prefix, this.dottedName()]);
    } else module = this.dottedName();
    const kids = [withField(module, 'module_name')];
    this.expect('import');
    if (this.is('*')) {
      const ws = this.expect('*');
      const we = this.prevEnd();
      kids.push(leaf('wildcard_import', ws, we));
      return node('import_from_statement', kids, s);
    }
    const paren = this.is('(');
    if (paren) this.p++;
    for (;;) {
      kids.push(this.importName());
      if (!this.is(',')) break;
      this.p++;
      if (paren && this.is(')')) break;
    }
    const end = paren ? this.expectEnd(')') : kids[kids.length - 1].end;
    return node('import_from_statement', kids, s, end);
  }

  private expressionStatement(): N {
    if (this.is('yield')) return node('expression_statement', [this.rhs()]);
    const items: N[] = [];
    let end = 0;
    for (;;) {
      items.push(this.starred(() => this.expression()));
      end = items[items.length - 1].end;
      if (!this.is(',')) break;
      end = this.t.end[this.p++];
      if (this.endsExpressions()) break;
    }
    const single = items.length === 1 && end === items[0].end;
    const lhs = (): N => (single ? toPattern(items[0]) : node('pattern_list', items.map(toPattern), items[0].start, end));
    if (this.is('=')) {
      const left = withField(lhs(), 'left');
      this.p++;
      return node('expression_statement', [node('assignment', [left, withField(this.assignmentRight(), 'right')])]);
    }
    if (this.is(':')) {
      if (!single) unsupported('annotated list');
      const left = withField(lhs(), 'left');
      this.p++;
      const kids = [left, withField(this.type(), 'type')];
      if (this.is('=')) {
        this.p++;
        kids.push(withField(this.rhs(), 'right'));
      }
      return node('expression_statement', [node('assignment', kids)]);
    }
    if (this.kind() === K.OP && AUGMENTED.has(this.t.val[this.p])) {
      const left = withField(lhs(), 'left');
      const op = token(this.t.val[this.p], 'operator', this.t.start[this.p], this.t.end[this.p++]);
      return node('expression_statement', [node('augmented_assignment', [left, op, withField(this.rhs(), 'right')])]);
    }
    for (const i of items) if (i.type === 'list_splat') unsupported('starred expression statement');
    return node('expression_statement', items, items[0].start, end);
  }

  /** the right side of `=`: another assignment when `=` follows again */
  private assignmentRight(): N {
    const save = this.p;
    const r = this.rhs();
    if (!this.is('=')) return r;
    this.p = save;
    const left = withField(this.targets('='), 'left');
    this.expect('=');
    return node('assignment', [left, withField(this.assignmentRight(), 'right')]);
  }

  /** expression, expression_list or yield */
  private rhs(): N {
    if (this.is('yield')) return this.yieldExpr();
    if (this.is('*')) unsupported('starred right side');
    return this.expressions();
  }
}
