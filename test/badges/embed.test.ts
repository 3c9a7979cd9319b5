import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request as httpRequest } from 'node:http';
import badges from '../../plugins/badges/index.js';
import { badgeSignature } from '../../plugins/attestation/index.js';
import { startHarness } from '../helpers/attestation/harness.js';
import attestation from '../../plugins/attestation/index.js';
import type { AttestationRecord } from '../../plugins/attestation/types.js';
import { claimsFor, recordFor } from '../helpers/attestation/forge.js';
import { startServer, testAuthPlugin, TEST_API_KEY, TEST_SECRETS } from '../helpers/server.js';

// A README or dashboard embeds the badge as <img src="…">: the browser sends no key. The URL from
// POST /attestation/{id}/badge-url must work exactly so, and nothing else may.

const h = await startHarness({ plugins: [badges], config: { server: { public_url: null } } as never });
t.teardown(() => h.close());

/** a GET the way an <img> makes it: no credentials, no custom headers beyond what caching adds */
function imgGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers: { accept: 'image/avif,image/webp,image/svg+xml,image/*;q=0.8', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}

t.test('a signed badge URL pasted into an HTML page loads without credentials', async (t) => {
  const issued = await h.request('POST', '/test/attestable', { body: { expression: '2+2=4' } });
  const id = issued.body.attestation_id as string;
  const made = await h.request('POST', `/attestation/${id}/badge-url?ttl_seconds=3600`);
  t.equal(made.status, 200);
  t.match(made.body, { attestation_id: id, url: new RegExp(`^${h.url}/badge/attestation/`), expires_at: Number });
  t.ok(Math.abs(made.body.expires_at - (Math.floor(Date.now() / 1000) + 3600)) <= 5);

  // a page on another local server embeds it, as a README would
  const page = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><p>Proof: <img alt="attestation" src="${made.body.url.replace(/&/g, '&amp;')}"></p>`);
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => page.close(() => r())));
  const html = await (await fetch(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`)).text();
  const src = /<img [^>]*src="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  t.ok(src, 'the page holds the image URL');

  const img = await imgGet(src!);
  t.equal(img.status, 200);
  t.equal(img.headers['content-type'], 'image/svg+xml');
  t.match(img.body, /^<svg /);
  t.match(img.body, />valid</);
  t.equal(img.headers['cache-control'], 'no-cache');
  const etag = img.headers.etag as string;
  t.match(etag, /^"[A-Za-z0-9_-]{27}"$/);

  const again = await imgGet(src!, { 'if-none-match': etag });
  t.equal(again.status, 304, 'a cached badge revalidates for free');
  t.equal(again.body, '');
  t.equal(again.headers.etag, etag);

  // revocation changes the image, so the old ETag no longer matches
  t.equal((await h.request('POST', `/attestation/${id}/revoke`, { key: 'a-operator' })).status, 200);
  const revoked = await imgGet(src!, { 'if-none-match': etag });
  t.equal(revoked.status, 200);
  t.match(revoked.body, />revoked</);
  t.not(revoked.headers.etag, etag);
});

t.test('forged, altered and expired links are refused as images that say so', async (t) => {
  const issued = await h.request('POST', '/test/attestable', { body: { expression: '3+3=6' } });
  const id = issued.body.attestation_id as string;
  const other = (await h.request('POST', '/test/attestable', { body: { expression: '1+1=2' } })).body.attestation_id as string;
  const { path, expires_at } = (await h.request('POST', `/attestation/${id}/badge-url`)).body as { path: string; expires_at: number };
  const sig = new URL(path, h.url).searchParams.get('sig')!;

  const forged = await imgGet(`${h.url}/badge/attestation/${id}?exp=${expires_at}&sig=${'A'.repeat(43)}`);
  t.equal(forged.status, 403);
  t.equal(forged.headers['content-type'], 'image/svg+xml');
  t.match(forged.body, />invalid link</);
  t.notMatch(forged.body, />valid</);
  t.equal((await imgGet(`${h.url}/badge/attestation/${id}?exp=${expires_at + 86400}&sig=${sig}`)).status, 403, 'a later expiry breaks the signature');
  t.equal((await imgGet(`${h.url}/badge/attestation/${other}?exp=${expires_at}&sig=${sig}`)).status, 403, 'a signature is bound to one id');
  const wrongKey = badgeSignature('another-secret-0123456789', id, expires_at);
  t.equal((await imgGet(`${h.url}/badge/attestation/${id}?exp=${expires_at}&sig=${wrongKey}`)).status, 403, 'signed with another secret');

  const past = Math.floor(Date.now() / 1000) - 60;
  const expired = await imgGet(`${h.url}/badge/attestation/${id}?exp=${past}&sig=${badgeSignature(TEST_SECRETS.badge_url_secret, id, past)}`);
  t.equal(expired.status, 410);
  t.match(expired.body, />link expired</);
  t.ok(expired.headers.etag, 'error badges carry an ETag too');

  for (const q of ['', `?exp=${expires_at}`, `?sig=${sig}`, `?exp=soon&sig=${sig}`, `?exp=${expires_at}&sig=${sig}&x=1`]) {
    const r = await imgGet(`${h.url}/badge/attestation/${id}${q}`);
    t.equal(r.status, 400, `malformed: ${q}`);
    t.match(r.headers['content-type'], /problem\+json/);
  }
});

t.test('issuing a link needs an API key with attestation:read, for an attestation of its own organisation', async (t) => {
  const id = (await h.request('POST', '/test/attestable', { body: { expression: '5+5=10' } })).body.attestation_id as string;
  t.equal((await h.request('POST', `/attestation/${id}/badge-url`, { key: null })).status, 401);
  t.equal((await h.request('POST', `/attestation/${id}/badge-url`, { key: 'a-verify-only' })).status, 403);
  const foreign = await h.request('POST', `/attestation/${id}/badge-url`, { key: 'b-owner' });
  t.equal(foreign.status, 404);
  t.equal(foreign.body.code, (await h.request('POST', '/attestation/att_missing/badge-url')).body.code, 'another organisation’s id reads as missing');
  t.equal((await h.request('POST', `/attestation/${id}/badge-url?ttl_seconds=10`)).status, 400, 'ttl below a minute');
  t.equal((await h.request('POST', `/attestation/${id}/badge-url?ttl_seconds=${400 * 86400}`)).status, 400, 'ttl above a year');
});

t.test('public badges: ETag and Cache-Control, 304 on a match', async (t) => {
  for (const p of ['/badge/verified?verified=true', '/badge/status/VERIFIED', '/badge/custom?message=ok']) {
    const r = await imgGet(h.url + p);
    t.equal(r.status, 200, p);
    t.equal(r.headers['cache-control'], 'public, max-age=300', p);
    const etag = r.headers.etag as string;
    t.ok(etag, p);
    t.equal((await imgGet(h.url + p, { 'if-none-match': `W/${etag}, "other"` })).status, 304, `${p}: weak match`);
    t.equal((await imgGet(h.url + p, { 'if-none-match': '"other"' })).status, 200, `${p}: no match`);
  }
});

t.test('without a badge secret, links are neither issued nor accepted', async (t) => {
  const s = await startServer({ plugins: [testAuthPlugin(), attestation, badges], config: { secrets: { badge_url_secret: null } } as never });
  t.teardown(() => s.close());
  const now = Math.floor(Date.now() / 1000);
  const c = claimsFor({ proof_ref: 'sha256:' + '0'.repeat(64), iat: now, exp: now + 3600 });
  await s.kernel.app.store.collection<AttestationRecord>('attestations').put(c.jti, recordFor(c, 'org-test'));
  const issue = await s.request('POST', `/attestation/${c.jti}/badge-url`, { apiKey: TEST_API_KEY });
  t.equal(issue.status, 503);
  t.equal(issue.body.code, 'badge_url_unavailable');
  // a link signed with the secret another server used is worthless here
  const sig = badgeSignature(TEST_SECRETS.badge_url_secret, c.jti, now + 3600);
  const r = await imgGet(`${s.url}/badge/attestation/${c.jti}?exp=${now + 3600}&sig=${sig}`);
  t.equal(r.status, 503);
  t.match(r.body, />unavailable</);
});
