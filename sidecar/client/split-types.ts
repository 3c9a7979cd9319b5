/**
 * Splits json-schema-to-typescript's one output into a file per component group (`a2a`, `auth`,
 * `ops`, …) so no generated file grows past what a reader can hold, plus an index that re-exports
 * them all. A declaration belongs to the group of the longest component type name it starts with
 * (json-schema-to-typescript names derived types `CodeVerifyResponse1` and the like); each file
 * imports, type-only, the names it uses from other groups.
 */
export interface SplitTypes {
  /** schemas/gen/index.ts */
  index: string;
  /** group → text of schemas/gen/<group>.gen.ts */
  files: Record<string, string>;
}

interface Block {
  name: string;
  text: string;
}

function blocks(ts: string): Block[] {
  const lines = ts.split('\n');
  const starts: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^export (interface|type) /.test(lines[i])) continue;
    let s = i;
    // the declaration's own comment comes with it
    if (i > 0 && lines[i - 1] === ' */') while (s > 0 && !lines[s].startsWith('/**')) s--;
    starts.push(s);
  }
  return starts.map((s, k) => {
    const text = lines.slice(s, starts[k + 1] ?? lines.length).join('\n').trimEnd() + '\n';
    return { name: /^export (?:interface|type) (\w+)/m.exec(text)![1], text };
  });
}

/** `from`: where the index finds the group files (a path relative to the index) */
export function splitTypes(ts: string, groups: Record<string, string>, banner: string, from: string): SplitTypes {
  // longest prefix first, so CodeVerifyResponse1 finds CodeVerifyResponse before Code…
  const prefixes = Object.entries(groups).sort((a, b) => b[0].length - a[0].length);
  const groupOf = (name: string) => prefixes.find(([p]) => name.startsWith(p))?.[1] ?? 'shared';
  const all = blocks(ts);
  const owner = new Map(all.map((b) => [b.name, groupOf(b.name)]));
  const byGroup = new Map<string, Block[]>();
  for (const b of all) byGroup.set(owner.get(b.name)!, [...(byGroup.get(owner.get(b.name)!) ?? []), b]);
  const files: Record<string, string> = {};
  for (const [group, list] of [...byGroup].sort((a, b) => a[0].localeCompare(b[0]))) {
    const body = list.map((b) => b.text).join('\n');
    // names mentioned only in comments ("referenced by `ProofgateSchemas`") are not imports
    const code = body.replace(/\/\*[\s\S]*?\*\//g, '');
    const imports = new Map<string, string[]>();
    for (const [name, g] of owner) {
      if (g === group || !new RegExp(`\\b${name}\\b`).test(code)) continue;
      imports.set(g, [...(imports.get(g) ?? []), name]);
    }
    const head = [...imports]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([g, names]) => `import type { ${names.sort().join(', ')} } from './${g}.gen.js';`)
      .join('\n');
    files[group] = banner + (head ? head + '\n\n' : '\n') + body;
  }
  const index = banner + Object.keys(files).map((g) => `export type * from '${from}${g}.gen.js';`).join('\n') + '\n';
  return { index, files };
}
