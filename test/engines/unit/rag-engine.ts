import t from 'tap';
import { checkDrm, formatRational, parseRate } from '../../../plugins/engines/rag/engine.js';

const chunk = (id: string, doc: string) => ({ id, metadata: { document_id: doc } });

t.test('parseRate: exact fractions and decimals in [0, 1]', async (t) => {
  const f = (s: string) => {
    const r = parseRate(s);
    return r ? formatRational(r) : null;
  };
  t.equal(f('1/10'), '1/10');
  t.equal(f('2/20'), '1/10');
  t.equal(f(' 3 / 9 '), '1/3');
  t.equal(f('0.1'), '1/10');
  t.equal(f('.25'), '1/4');
  t.equal(f('0'), '0');
  t.equal(f('1'), '1');
  t.equal(f('1.0'), '1');
  t.equal(f('0/5'), '0');
  for (const bad of ['', '1/0', '-0.1', '1.5', '3/2', 'abc', '1e-1', 'NaN', 'Infinity', '0x1', '.', '1/', '/2', '0.1.2', '1 0', 'x'.repeat(65)]) {
    t.equal(parseRate(bad), null, JSON.stringify(bad).slice(0, 20));
  }
});

t.test('checkDrm compares the rate exactly', async (t) => {
  const chunks = [chunk('a', 'D1'), chunk('b', 'D2'), chunk('c', 'D1')];
  const third = checkDrm('D1', chunks, parseRate('1/3')!);
  t.equal(third.verified, true, '1/3 ≤ 1/3');
  t.equal(third.mismatched_count, 1);
  t.equal(third.chunks_checked, 3);
  t.equal(third.drm_rate_exact, '1/3');
  t.same(third.mismatched_chunk_ids, ['b']);
  t.equal(third.risk, 'NONE');
  const dec = checkDrm('D1', chunks, parseRate('0.3333333333333333')!);
  t.equal(dec.verified, false, 'a decimal just below 1/3 does not admit 1/3');
  t.equal(dec.risk, 'DOCUMENT_RETRIEVAL_MISMATCH');
  t.equal(checkDrm('D1', chunks, parseRate('0')!).verified, false);
  const clean = checkDrm('D1', [chunk('a', 'D1')], parseRate('0')!);
  t.equal(clean.verified, true);
  t.equal(clean.drm_rate, 0);
  t.equal(checkDrm('d1', chunks, parseRate('1')!).verified, true, 'a rate of 1 admits everything');
  t.equal(checkDrm('d1', chunks, parseRate('1')!).mismatched_count, 3, 'ids compare exactly (case-sensitive)');
});
