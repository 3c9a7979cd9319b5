import t from 'tap';
import badges from '../../plugins/badges/index.js';
import type { AttestationRecord } from '../../plugins/attestation/types.js';
import { startHarness } from '../helpers/attestation/harness.js';
import { claimsFor, recordFor } from '../helpers/attestation/forge.js';

const TAGS = new Set(['svg', 'filter', 'feGaussianBlur', 'linearGradient', 'stop', 'clipPath', 'rect', 'g', 'text', 'title', 'image', 'a']);
const ATTRS = new Set([
  'xmlns', 'xmlns:xlink', 'width', 'height', 'role', 'aria-label', 'aria-hidden', 'id', 'x', 'y', 'x1', 'x2', 'y1', 'y2', 'rx', 'fill', 'offset',
  'stop-color', 'stop-opacity', 'clip-path', 'text-anchor', 'font-family', 'text-rendering', 'font-size', 'transform', 'textLength',
  'fill-opacity', 'stdDeviation', 'filter', 'href', 'xlink:href', 'shape-rendering', 'viewBox', 'preserveAspectRatio',
]);

/**
 * A small structural reading of the SVG: every tag and attribute name, and the attribute values.
 * No XML parser is installed; this tokenizer is enough because escaped text cannot contain a raw
 * `<`, so any injected markup would show up as an extra tag or attribute here.
 */
function structure(svg: string) {
  const tags: string[] = [];
  const attrs: Array<[string, string]> = [];
  for (const m of svg.matchAll(/<\/?([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*)\s*\/?>/g)) {
    tags.push(m[1]);
    for (const a of m[2].matchAll(/([\w:-]+)="([^"]*)"/g)) attrs.push([a[1], a[2]]);
  }
  const stripped = svg.replace(/<\/?([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*)\s*\/?>/g, '');
  return { tags, attrs, strayMarkup: /[<>]/.test(stripped) };
}

t.test('badges', async (t) => {
  const h = await startHarness({ plugins: [badges] });
  t.teardown(() => h.close());
  const get = (path: string, key?: string) => h.request('GET', path, { key });

  t.test('verified / status badges: SVG, short public cache', async (t) => {
    const yes = await get('/badge/verified?verified=true');
    t.equal(yes.status, 200);
    t.equal(yes.headers.get('content-type'), 'image/svg+xml');
    t.equal(yes.headers.get('cache-control'), 'public, max-age=300');
    t.match(yes.text, /^<svg /);
    t.match(yes.text, />verified</);
    t.match((await get('/badge/verified?verified=false')).text, />failed</);
    t.match((await get('/badge/verified?status=VERIFIED')).text, />verified</);
    t.match((await get('/badge/verified?status=blocked')).text, />failed</);
    t.equal((await get('/badge/verified')).status, 400, 'neither flag nor status');
    t.equal((await get('/badge/verified?verified=true&status=BLOCKED')).status, 400, 'contradiction');
    t.equal((await get('/badge/verified?verified=maybe')).status, 400);
    t.equal((await get('/badge/verified?verified=true&label=%EF%BF%BE')).status, 400, 'not an XML character');
    t.equal((await get('/badge/verified?verified=true&label=%C2%A0%F0%9F%98%80')).status, 200, 'other non-ASCII text is fine');
    for (const s of ['VERIFIED', 'FAILED', 'CORRECTED', 'BLOCKED', 'PENDING', 'ERROR', 'unverifiable']) {
      const r = await get(`/badge/status/${s}`);
      t.equal(r.status, 200, s);
      t.match(r.text, new RegExp(`>${s.toUpperCase()}<`), s);
    }
    t.equal((await get('/badge/status/NOPE')).status, 400);
    t.equal((await get('/badge/status/%3Cscript%3E')).status, 400);
    const anonymous = await h.request('GET', '/badge/status/VERIFIED', { key: null });
    t.equal(anonymous.status, 200, 'public: an <img> sends no credentials');
    t.match(anonymous.headers.get('etag'), /^"[A-Za-z0-9_-]{27}"$/);
  });

  t.test('custom: text and colours checked, everything escaped', async (t) => {
    const ok = await get('/badge/custom?label=build&message=passing&color=%23abc&logo=on');
    t.equal(ok.status, 200);
    t.match(ok.text, /fill="#abc"/);
    t.match(ok.text, /<image [^>]*href="data:image\/svg\+xml;base64,/);
    t.notMatch((await get('/badge/custom?message=x&logo=off')).text, /<image/);
    t.match((await get('/badge/custom?message=x&color=orange')).text, /fill="#ea7233"/, 'palette name');
    const invalid = [
      'label=x',
      'message=',
      `message=${'m'.repeat(65)}`,
      `message=x&label=${'l'.repeat(65)}`,
      'message=x&color=%2312345',
      'message=x&color=javascript:alert(1)',
      'message=x&color=url(%23a)',
      'message=x&color=red;fill:url(x)',
      'message=x&logo=maybe',
      'message=a%00b',
      'message=a%0Ab',
      // U+FFFE and U+FFFF are not XML characters, escaped or not: the SVG would not parse
      'message=a%EF%BF%BEb',
      'message=x&label=%EF%BF%BF',
      'message=x&onload=1',
    ];
    for (const q of invalid) {
      const r = await get(`/badge/custom?${q}`);
      t.equal(r.status, 400, q);
      t.equal(r.headers.get('content-type'), 'application/problem+json', q);
    }
    t.equal((await get(`/badge/custom?message=${'m'.repeat(64)}`)).status, 200, '64 characters allowed');
  });

  t.test('XSS attempts come out escaped', async (t) => {
    const attacks = [
      '<script>alert(1)</script>',
      '"><svg onload=alert(1)>',
      "' onmouseover='alert(1)",
      '</text><script>x</script>',
      '&lt;already&gt; & amp',
      ']]><![CDATA[<script>',
    ];
    for (const a of attacks) {
      const r = await get(`/badge/custom?label=${encodeURIComponent(a)}&message=${encodeURIComponent(a)}`);
      t.equal(r.status, 200, a);
      t.notMatch(r.text, /<script/i, a);
      t.notMatch(r.text, /<!\[CDATA\[/, a);
      const s = structure(r.text);
      t.equal(s.strayMarkup, false, `${a}: no markup outside tags`);
      t.same(s.tags.filter((x) => !TAGS.has(x)), [], `${a}: only badge elements`);
      t.same(s.attrs.map(([n]) => n).filter((n) => !ATTRS.has(n)), [], `${a}: only badge attributes`);
      t.equal(s.tags.filter((x) => x === 'svg').length, 2, `${a}: one svg element (open + close)`);
      const escaped = a.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
      t.ok(r.text.includes(escaped), `${a}: present as escaped text`);
      t.ok(s.attrs.some(([n, v]) => n === 'aria-label' && v.includes(escaped)), `${a}: escaped inside the aria-label value`);
    }
  });

  t.test('attestation badge: through a signed URL only, reflecting the stored status', async (t) => {
    const issued = await h.request('POST', '/test/attestable', { body: { expression: '2+2=4' } });
    const id = issued.body.attestation_id;
    const link = async (att: string, key = 'a-owner') => h.request('POST', `/attestation/${att}/badge-url`, { key });
    const l = await link(id);
    t.equal(l.status, 200);
    const valid = await h.request('GET', l.body.path, { key: null });
    t.equal(valid.status, 200);
    t.equal(valid.headers.get('cache-control'), 'no-cache');
    t.equal(valid.headers.get('content-type'), 'image/svg+xml');
    t.match(valid.text, />valid</);
    t.equal((await link(id, 'b-owner')).status, 404, 'another organisation cannot sign a link to it');
    t.equal((await h.request('GET', `/badge/attestation/${id}`, { key: 'a-owner' })).status, 400, 'a key is no substitute for the signature');
    const now = Math.floor(Date.now() / 1000);
    const c = claimsFor({ proof_ref: issued.body.proof_ref, iat: now - 7200, exp: now - 10 });
    await h.kernel.app.store.collection<AttestationRecord>('attestations').put(c.jti, recordFor(c));
    t.match((await h.request('GET', (await link(c.jti)).body.path, { key: null })).text, />expired</);
    t.equal((await h.request('POST', `/attestation/${id}/revoke`, { key: 'a-operator' })).status, 200);
    t.match((await h.request('GET', l.body.path, { key: null })).text, />revoked</, 'the same URL shows the revocation');
  });

  t.test('attestation badge of a claim proven false: red "claim false", never a green pass', async (t) => {
    // badge-maker's fills of the message's rect: brightgreen #4b0, red #dd4343
    const GREEN = /fill="#4b0"/;
    const RED = /fill="#dd4343"/;
    const holds = await h.request('POST', '/test/attestable', { body: { expression: '2+2=4' } });
    const trueBadge = (await h.request('GET', (await h.request('POST', `/attestation/${holds.body.attestation_id}/badge-url`)).body.path, { key: null })).text;
    t.match(trueBadge, />valid</);
    t.match(trueBadge, GREEN);
    const falseClaim = await h.request('POST', '/test/attestable', { body: { expression: '2+2=5', mode: 'false' } });
    t.equal(falseClaim.body.status, 'VERIFIED', 'a proof was done');
    t.equal((await h.request('GET', `/attestation/${falseClaim.body.attestation_id}`)).body.status, 'VALID', 'and its attestation is valid');
    const path = (await h.request('POST', `/attestation/${falseClaim.body.attestation_id}/badge-url`)).body.path;
    const r = await h.request('GET', path, { key: null });
    t.equal(r.status, 200);
    t.match(r.text, />claim false</);
    t.notMatch(r.text, />valid</);
    t.match(r.text, RED);
    t.notMatch(r.text, GREEN);
    t.equal((await h.request('POST', `/attestation/${falseClaim.body.attestation_id}/revoke`, { key: 'a-operator' })).status, 200);
    t.match((await h.request('GET', path, { key: null })).text, />revoked</, 'revocation still shows as such');
  });
});
