// Builds the operator's console (docs/console.md) into dist/console/: one bundled script, one
// stylesheet and the page, nothing fetched from another origin at run time. Run by `npm run build`
// (and so by `prepare` at `npm ci`).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const out = here('../dist/console/');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [here('src/main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outfile: out + 'app.js',
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(here('index.html'), out + 'index.html');
copyFileSync(here('app.css'), out + 'app.css');
