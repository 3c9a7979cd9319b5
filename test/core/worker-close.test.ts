import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'acorn';
import { nodeCommand } from '../helpers/child.js';

/**
 * A pool closed (shutdown, a failed start-up) while its threads run their warm-ups must not take the
 * process down: V8 aborts the process when a thread is terminated while a module with top-level
 * await is evaluating, so core/worker-entry.ts runs its warm-ups in a plain async function.
 */
t.test('closing pools whose threads are still warming up ends the threads, not the process', async (t) => {
  const script = fileURLToPath(new URL('./fixtures/close-while-warming.js', import.meta.url));
  const r = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(...nodeCommand([script]), { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr }),
    );
  });
  t.notMatch(r.stderr, /Fatal error|Check failed/, 'no V8 abort');
  t.equal(r.signal, null, `not killed by a signal (${r.signal})`);
  t.equal(r.code, 0, r.stderr.slice(-2000));
  t.equal(r.stdout.trim(), 'closed');
});

t.test('the worker entry has no top-level await (the abort is a race no test can force)', async (t) => {
  const src = readFileSync(fileURLToPath(new URL('../../core/worker-entry.js', import.meta.url)), 'utf8');
  const program = parse(src, { ecmaVersion: 'latest', sourceType: 'module' });
  let topLevel = 0;
  // functions are not walked into: an await inside one is not the module's own
  const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'MethodDefinition']);
  const visit = (node: { type: string; [k: string]: unknown }): void => {
    if (FUNCTIONS.has(node.type)) return;
    if (node.type === 'AwaitExpression' || (node.type === 'ForOfStatement' && node.await)) topLevel++;
    for (const v of Object.values(node)) {
      if (Array.isArray(v)) for (const c of v) if (c && typeof c.type === 'string') visit(c);
      if (v && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string') visit(v as { type: string });
    }
  };
  visit(program as unknown as { type: string });
  t.equal(topLevel, 0, 'no await outside a function in dist/core/worker-entry.js');
});
