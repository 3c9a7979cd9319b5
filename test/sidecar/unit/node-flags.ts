import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startFlags } from '../../../bench/http.js';

/**
 * The sidecar's node flags are set in three places: `npm start`, the container's ENTRYPOINT, and the
 * HTTP bench (which reads `npm start`'s). The RSS and CPU figures in docs/operations.md hold only
 * for those flags, so the three must not drift apart.
 */
const repo = fileURLToPath(new URL('../../../../', import.meta.url));

const npmStartFlags = (): string[] => {
  const pkg = JSON.parse(readFileSync(`${repo}package.json`, 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((a) => a.startsWith('-'));
};

const entrypointFlags = (): string[] => {
  const line = readFileSync(`${repo}Dockerfile`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('ENTRYPOINT '));
  if (!line) throw new Error('Dockerfile has no ENTRYPOINT');
  const argv = JSON.parse(line.slice('ENTRYPOINT '.length)) as string[];
  return argv.filter((a) => a.startsWith('-'));
};

t.test('npm start, the container and the bench run the sidecar with the same node flags', async (t) => {
  const flags = npmStartFlags();
  t.same(entrypointFlags(), flags, 'Dockerfile ENTRYPOINT');
  t.same(startFlags(), flags, 'bench');
  // the flags docs/operations.md measures: a 2 MB main young generation and one V8 worker thread
  t.same([...flags].sort(), ['--max-semi-space-size=2', '--v8-pool-size=1']);
});
