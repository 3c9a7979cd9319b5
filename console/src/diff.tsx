/**
 * A line diff of two texts (longest common subsequence; definitions are a few hundred lines at
 * most), laid out side by side: what was approved on the left, what the server now lists on the right.
 */
type Op = { kind: 'same' | 'del' | 'add'; text: string };

export function lineDiff(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i] });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) out.push({ kind: 'del', text: a[i++] });
    else out.push({ kind: 'add', text: b[j++] });
  }
  return out;
}

export function SideBySide({ before, after }: { before: unknown; after: unknown }) {
  const ops = lineDiff(JSON.stringify(before, null, 2).split('\n'), JSON.stringify(after, null, 2).split('\n'));
  // a run of removed lines is paired row by row with the run of added lines after it, so the columns line up
  const rows: Array<[Op | null, Op | null]> = [];
  for (let k = 0; k < ops.length; ) {
    if (ops[k].kind === 'same') {
      rows.push([ops[k], ops[k]]);
      k++;
      continue;
    }
    const dels: Op[] = [];
    const adds: Op[] = [];
    while (k < ops.length && ops[k].kind === 'del') dels.push(ops[k++]);
    while (k < ops.length && ops[k].kind === 'add') adds.push(ops[k++]);
    for (let x = 0; x < Math.max(dels.length, adds.length); x++) rows.push([dels[x] ?? null, adds[x] ?? null]);
  }
  const cell = (o: Op | null) => (
    <td class={o ? `diff-${o.kind}` : 'diff-none'}>
      {o && o.kind !== 'same' && <span class="sr-only">{o.kind === 'del' ? 'removed: ' : 'added: '}</span>}
      <code>{o?.text ?? ''}</code>
    </td>
  );
  return (
    <div class="table-wrap">
      <table class="diff" data-testid="pin-diff">
        <caption>Approved definition (left) against the one the server lists now (right)</caption>
        <thead>
          <tr><th scope="col">approved</th><th scope="col">now listed</th></tr>
        </thead>
        <tbody>
          {rows.map(([l, r], k) => (
            <tr key={k}>{cell(l)}{cell(r)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
