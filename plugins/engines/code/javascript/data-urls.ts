import type { JsNode } from './parser.js';
import type { JsResolver } from './resolve.js';
import type { Severity } from '../types.js';

type Report = (n: JsNode, severity: Severity, type: string, rule: string, message: string) => void;

/**
 * Node loads a module (or a Worker's script) from the text of a data: URL: eval by another name. A
 * JSON one only parses; any other media type (javascript, wasm, or one not known here) may run.
 */
const CODE_URL = /^\s*data:/i;
const DATA_ONLY = /^\s*data:application\/json[;,]/i;

/**
 * `import('data:text/javascript,' + src)`, `import 'data:text/javascript,…'` and `new
 * Worker(new URL('data:…'))` run the URL's text as code, as eval does. The specifier is read as a
 * constant when it folds to one, else by its leading constant text (`'data:…' + src`, a template
 * whose first part starts so).
 */
export class JsDataUrls {
  constructor(
    private readonly r: JsResolver,
    private readonly report: Report,
  ) {}

  visit(n: JsNode): void {
    if (n.type === 'ImportDeclaration' || n.type === 'ExportAllDeclaration' || n.type === 'ExportNamedDeclaration') {
      if (n.source) this.check(n, n.source as JsNode, 'import');
    } else if (n.type === 'ImportExpression') {
      this.check(n, n.source as JsNode, 'import()');
    } else if (n.type === 'NewExpression' && this.r.qualify(n.callee as JsNode).some((q) => q === 'Worker' || q === 'worker_threads.Worker')) {
      // a Worker started from a data: URL, given as a string or as new URL('data:…'); a data: URL
      // elsewhere (an image, a download) runs nothing
      let spec = (n.arguments as JsNode[])[0];
      if (spec?.type === 'NewExpression' && (spec.callee as JsNode).type === 'Identifier' && (spec.callee as JsNode).name === 'URL') spec = (spec.arguments as JsNode[])[0];
      if (spec) this.check(n, spec, 'new Worker()');
    }
  }

  private check(at: JsNode, spec: JsNode, how: string): void {
    const whole = this.r.fold(spec);
    const lead = whole ?? leadingText(spec);
    if (lead === null || !CODE_URL.test(lead) || DATA_ONLY.test(lead)) return;
    const constant = whole !== null;
    this.report(at, constant ? 'HIGH' : 'CRITICAL', 'code_execution', 'dangerous_call.code_string', `${how} of a data: URL runs ${constant ? 'its constant' : 'computed'} text as code, as eval does`);
  }
}

/** The constant text an expression starts with: `'data:…' + x`, `` `data:…${x}` `` */
function leadingText(n: JsNode): string | null {
  if (n.type === 'Literal' && typeof n.value === 'string') return n.value;
  if (n.type === 'BinaryExpression' && n.operator === '+') return leadingText(n.left as JsNode);
  if (n.type === 'TemplateLiteral') return ((n.quasis as JsNode[])[0]?.value as { cooked?: string } | undefined)?.cooked ?? null;
  return null;
}
