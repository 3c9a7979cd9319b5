import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every TypeScript (and .mjs) source file under `dir`, declaration files left out: what the source-scanning tests read. */
export function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|mjs)$/.test(p) && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}
