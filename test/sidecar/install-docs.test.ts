import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

/**
 * Issue 43: the docs told users to `npm install --global proofgate` (and `npx proofgate`), a name
 * this project has not published: npm would install whatever package holds it. Until a release
 * exists the docs say how to install from the repository; this keeps any page from naming the
 * registry install again.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function pages(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pages(join(dir, e.name)) : /\.(md|ya?ml)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

t.test('no page installs or runs the unpublished npm names', async (t) => {
  // a line that warns against the registry name ('never …', 'not published') is the fix, not the bug
  const files = ['README.md', ...pages('docs')];
  t.ok(files.includes(join('docs', 'ci.md')) && files.some((f) => f.endsWith('sidecar.yaml')), 'the pages that once did are read');
  // `@proofgate/client` (packages/client) is not published either: install it from the repository
  const registryUse = /\bnpm\s+(?:install|i|add)\s+(?:(?:-g|--global|--save-dev|-D)\s+)*(?:@proofgate\/client|proofgate)(?:@[^\s]*)?(?=\s|$|["'`])|\bnpx\s+(?:-y\s+)?proofgate\b/;
  for (const f of files) {
    const lines = readFileSync(join(ROOT, f), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (registryUse.test(line) && !/\bnot published\b|\bnever\b/i.test(line)) t.fail(`${f}:${i + 1} installs proofgate from the npm registry: ${line.trim()}`);
    });
  }
  t.match(readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8'), /npm pack/, 'ci.md says how to install from the repository');
});
