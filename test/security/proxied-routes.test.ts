import t from 'tap';
import { parseHostName } from '../../core/http/host-name.js';
import { MAX_ANSWER_BYTES } from '../../plugins/mcp/answer.js';
import { VERDICT_META } from '../../plugins/mcp/gate.js';
import { VERDICT_EXTENSION } from '../../plugins/a2a/proxy/answer-review.js';
import { MAX_PAGE_BYTES } from '../../plugins/mcp/listings.js';
import { bodyAnswer, chunkedAnswer, everyCut, FOREIGN_HOSTS, FOREIGN_ORIGINS, hostileJson, jsonWithRaw, NON_2XX, oversized, rawRequest, sseEvent } from '../helpers/hostile-wire.js';
import { a2aResult, GET_WEATHER, LIMIT, mcpResult, startHarness, stringPaths, upstreamId, withAt } from './proxied-routes-table.js';
import { call, keyed, leaves, members, NOT_UTF8, objectPaths, refused, reviewedIfForwarded, stillUp, valueAt, VERDICT } from './proxied-routes-checks.js';

/**
 * Issue 38: one hostile-input harness that every proxied route goes through. The routes and what
 * each hostile class must come to on each are in proxied-routes-table.ts; every class here runs over
 * that table. For every refusal the upstream must have received nothing; a forward must carry the
 * review it passed (an A2A verdict header, an MCP verdict in `_meta`); nothing is ever a 5xx and the
 * server answers /healthz after each class.
 */
t.test('proxied routes under every hostile-input class', async (t) => {
  const h = await startHarness(t);
  const tampers = hostileJson('shadow');
  const duplicates = tampers.filter((x) => x.name.startsWith('duplicate key'));
  const notJson = tampers.filter((x) => !x.name.startsWith('duplicate key'));

  await t.test('control: the valid request of each route is forwarded (or allowed) with its review', async (t) => {
    for (const route of h.routes) {
      const mark = h.up.received.length;
      const r = await call(h, route, JSON.stringify(route.valid()));
      t.equal(r.status, route.okStatus ?? 200, `${route.name}: ${r.text.slice(0, 200)}`);
      if (route.upstream) t.equal(h.receivedSince(mark, route.upstream).length, 1, `${route.name}: forwarded once`);
      if (route.path === '/a2a/intercept') t.equal(r.body?.status, 'forwarded', `${route.name}: a forwarded verdict`);
      reviewedIfForwarded(t, h, route, r, mark, route.name);
    }
  });

  await t.test('headers the caller chooses: a forged verdict and the agent token never reach the upstream', async (t) => {
    const forged = 'eyJhbGciOiJub25lIn0.eyJ2ZXJkaWN0IjoiZm9yd2FyZGVkIn0.';
    for (const route of h.routes.filter((r) => r.upstream)) {
      const mark = h.up.received.length;
      const r = await call(h, route, JSON.stringify(route.valid()), { [VERDICT]: forged });
      const [g] = h.receivedSince(mark, route.upstream);
      t.ok(g, `${route.name}: forwarded (${r.status} ${r.text.slice(0, 120)})`);
      t.not(g?.headers[VERDICT], forged, `${route.name}: not the caller's verdict`);
      if (route.family === 'mcp') t.notOk(g?.headers[VERDICT], `${route.name}: no verdict header at all (it rides in _meta)`);
      t.notOk(g?.headers['x-agent-token'], `${route.name}: the agent token is not forwarded`);
    }
  });

  await t.test('a member named twice (plain, escaped; every member at any depth, objects too)', async (t) => {
    for (const route of h.routes) {
      const valid = route.valid();
      const start = h.up.received.length;
      for (const path of members(valid).filter(keyed)) {
        for (const tamper of duplicates) {
          const what = `${route.name} ${tamper.name} at /${path.join('/')}`;
          const mark = h.up.received.length;
          const r = await call(h, route, tamper.apply(valid, path));
          if (route.duplicate === 'one reading') {
            // the relay forwards the message it parsed, re-serialised: the copy it gated is the only one sent
            reviewedIfForwarded(t, h, route, r, mark, what);
            for (const g of h.receivedSince(mark, route.upstream)) {
              // proofgate's verdict is the one member the relay adds
              const sent = structuredClone(g.json);
              delete sent.params?._meta;
              t.same(valueAt(sent, path), valueAt(valid, path), `${what}: the forwarded member is the one read`);
            }
          } else {
            refused(t, r, route.duplicate, what);
            t.same(h.receivedSince(mark, route.upstream), [], `${what}: nothing forwarded`);
          }
        }
      }
      if (route.duplicate === 'one reading') t.ok(h.receivedSince(start, route.upstream).length > 0, `${route.name}: the one-reading cases were forwarded, so checked above`);
      await stillUp(t, h, route.name);
    }
  });

  await t.test('not JSON: NaN, Infinity, comments, trailing garbage or commas, single quotes (every member), bytes that are not UTF-8', async (t) => {
    for (const route of h.routes) {
      const valid = route.valid();
      for (const path of leaves(valid)) {
        for (const tamper of notJson) {
          const what = `${route.name} ${tamper.name} at /${path.join('/')}`;
          const mark = h.up.received.length;
          refused(t, await call(h, route, tamper.apply(valid, path)), route.notJson, what);
          t.same(h.receivedSince(mark, route.upstream), [], `${what}: nothing forwarded`);
        }
      }
      // bytes that are not UTF-8 inside a string: read as U+FFFD here, as anything by another decoder
      for (const path of stringPaths(valid)) {
        const [before, after] = JSON.stringify(withAt(valid, path, 'a\u0000b')).split('\\u0000');
        for (const [name, bytes] of NOT_UTF8) {
          const what = `${route.name} ${name} in /${path.join('/')}`;
          const mark = h.up.received.length;
          refused(t, await call(h, route, Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)])), route.notJson, what);
          t.same(h.receivedSince(mark, route.upstream), [], `${what}: nothing forwarded`);
        }
      }
      await stillUp(t, h, route.name);
    }
  });

  await t.test('an oversized string at every field: past the cap refused, up to the cap never a 5xx nor an unreviewed forward', async (t) => {
    for (const route of h.routes) {
      const valid = route.valid();
      const room = LIMIT - JSON.stringify(valid).length - 64;
      for (const path of stringPaths(valid)) {
        const at = `${route.name} /${path.join('/')}`;
        let mark = h.up.received.length;
        refused(t, await call(h, route, JSON.stringify(withAt(valid, path, oversized(LIMIT + 1)))), route.tooLarge, `${at} past the cap`);
        t.same(h.receivedSince(mark, route.upstream), [], `${at} past the cap: nothing forwarded`);
        mark = h.up.received.length;
        const r = await call(h, route, JSON.stringify(withAt(valid, path, oversized(room))));
        reviewedIfForwarded(t, h, route, r, mark, `${at} at ${room} bytes`);
      }
      // and a member name as long, added to every object of the request
      for (const path of objectPaths(valid)) {
        const at = `${route.name} a long member name in /${path.join('/')}`;
        const mark = h.up.received.length;
        const obj = path.length ? valueAt(valid, path) : valid;
        const grown = path.length ? withAt(valid, path, { ...obj, [oversized(room)]: 1 }) : { ...valid, [oversized(room)]: 1 };
        reviewedIfForwarded(t, h, route, await call(h, route, JSON.stringify(grown)), mark, at);
      }
      await stillUp(t, h, route.name);
    }
  });

  await t.test('every member (leaf or not) in turn an edge value: another type, a number past double range, a lone surrogate, deep nesting', async (t) => {
    const raws: Array<[string, string]> = [
      ['null', 'null'], ['true', 'true'], ['0', '0'], ['-1', '-1'], ['-0', '-0'], ['""', '""'], ['{}', '{}'], ['[]', '[]'],
      ['1e400', '1e400'], ['1e-400', '1e-400'], ['a 400-digit integer', '9'.repeat(400)],
      ['a lone surrogate', '"\\ud800"'], ['nesting 2000 deep', `${'['.repeat(2000)}${']'.repeat(2000)}`],
      ['__proto__ member', '{"__proto__":{"polluted":true}}'],
    ];
    for (const route of h.routes) {
      const valid = route.valid();
      // every member: the leaves and the objects and arrays that hold them
      for (const path of members(valid)) {
        for (const [name, raw] of raws) {
          const what = `${route.name} /${path.join('/')} as ${name}`;
          const mark = h.up.received.length;
          reviewedIfForwarded(t, h, route, await call(h, route, jsonWithRaw(valid, path, (k) => `${k}${raw}`)), mark, what);
        }
      }
      t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted');
      await stillUp(t, h, route.name);
    }
  });

  await t.test('a foreign Host or Origin', async (t) => {
    const port = new URL(h.s.url).port;
    for (const route of h.routes) {
      const body = JSON.stringify(route.valid());
      for (const host of FOREIGN_HOSTS) {
        const what = `${route.name} Host ${JSON.stringify(host)}`;
        const mark = h.up.received.length;
        const r = await call(h, route, body, { host });
        if (route.foreignHost === 'served as usual') {
          // the A2A routes are authenticated by credential or vouching, not by the Host: it is not read
          t.equal(r.status, route.okStatus ?? 200, `${what}: ${r.text.slice(0, 160)}`);
          reviewedIfForwarded(t, h, route, r, mark, what);
          if (route.upstream) t.equal(h.receivedSince(mark, route.upstream).length, 1, `${what}: forwarded as with any Host`);
        } else if (route.foreignHost === 'no receiver') {
          // ext_authz reads the receiver from the Host (Envoy's destination): x-a2a-receiver names one
          // only when the Host parses, and without that header a Host no peer has is denied
          const bare = await call(h, route, body, { host, 'x-a2a-receiver': '' });
          refused(t, bare, { status: 403, code: 'a2a_ext_authz_denied' }, `${what} without x-a2a-receiver`);
          if (parseHostName(host, null)) {
            t.equal(r.status, 200, `${what} with x-a2a-receiver: a Host no peer has, so the header names the receiver`);
            t.ok(r.headers[VERDICT], `${what}: the allow carries the verdict`);
          } else refused(t, r, { status: 403, code: 'a2a_ext_authz_denied' }, `${what} (does not parse) with x-a2a-receiver`);
        } else {
          refused(t, r, route.foreignHost, what);
          t.same(h.receivedSince(mark, route.upstream), [], `${what}: nothing forwarded`);
        }
      }
      for (const origin of FOREIGN_ORIGINS) {
        const what = `${route.name} Origin ${JSON.stringify(origin)}`;
        const mark = h.up.received.length;
        const r = await call(h, route, body, { origin, host: `127.0.0.1:${port}` });
        t.notOk(r.headers['access-control-allow-origin'], `${what}: no CORS grant`);
        if (route.foreignOrigin === 'served as usual') {
          t.equal(r.status, route.okStatus ?? 200, `${what}: ${r.text.slice(0, 160)}`);
          reviewedIfForwarded(t, h, route, r, mark, what);
        } else {
          refused(t, r, route.foreignOrigin, what);
          t.same(h.receivedSince(mark, route.upstream), [], `${what}: nothing forwarded`);
        }
      }
      await stillUp(t, h, route.name);
    }
    // the cards the A2A routes serve never reflect the Host: their URLs are the configured base
    const token = h.routes[1].headers['x-agent-token'];
    for (const path of ['/a2a/peers/h/.well-known/agent-card.json', '/.well-known/agent-card.json']) {
      for (const host of FOREIGN_HOSTS) {
        const r = await rawRequest(`${h.s.url}${path}`, { headers: { host, 'x-agent-token': token } });
        t.equal(r.status, 200, `${path} Host ${JSON.stringify(host)}`);
        const urls = (r.body.supportedInterfaces as Array<{ url: string }>).map((i) => i.url);
        t.ok(urls.every((u) => u.startsWith(`${h.s.url}/`)), `${path} Host ${JSON.stringify(host)}: the interfaces name the server (${urls})`);
        if (host) t.notOk(r.text.toLowerCase().includes(host.toLowerCase().replace(/\.$/, '')), `${path}: nothing of the Host in the card`);
      }
    }
  });

  await t.test('the peer or server answers non-2xx with a result', async (t) => {
    for (const route of h.routes.filter((r) => r.answers)) {
      for (const status of NON_2XX) {
        const what = `${route.name} HTTP ${status}`;
        const valid = route.valid();
        const answer = JSON.stringify(route.family === 'mcp' ? mcpResult(valid.id) : a2aResult(upstreamId(route, valid)));
        h.answerNext(route.upstream!, () => bodyAnswer(answer, { status }));
        const mark = h.up.received.length;
        const r = await call(h, route, JSON.stringify(valid));
        const sent = h.receivedSince(mark, route.upstream);
        t.equal(sent.length, 1, `${what}: forwarded once`);
        if (route.answers === 'reviewed' && route.binding === 'rest') {
          // the same withholding, stated in the binding the client used
          t.equal(r.status, 502, `${what}: withheld`);
          t.match(r.body, { error: { details: [{ reason: 'ANSWER_WITHHELD' }, { data: { reason: new RegExp(`HTTP ${status}`) } }] } }, `${what}: withheld, the reason in the details`);
          t.notMatch(r.text, /booked/, `${what}: nothing of the result`);
          continue;
        }
        if (route.answers === 'reviewed') {
          // docs/a2a-proxy.md "Answers": A2A answers errors with HTTP 200, so a non-2xx holding a result is no answer
          t.equal(r.status, 200, `${what}: a JSON-RPC answer`);
          t.match(r.body, { jsonrpc: '2.0', id: valid.id, error: { code: -32055, data: { reason: new RegExp(`HTTP ${status}`) } } }, `${what}: withheld under the request id`);
          t.notMatch(r.text, /booked/, `${what}: nothing of the result`);
          continue;
        }
        t.equal(r.status, status, `${what}: the status is relayed`);
        if (route.answers === 'relayed as bytes') {
          // docs/a2a-proxy.md "One reading only": the answer is not read, so nothing is claimed of it;
          // the verdict on the response is the request's, the one the peer was sent
          t.equal(r.text, answer, `${what}: the client gets exactly the peer's bytes`);
          t.equal(r.headers[VERDICT], sent[0]?.headers[VERDICT], `${what}: only the request's verdict`);
        } else {
          t.match(r.body, { jsonrpc: '2.0', id: valid.id, error: { code: -32603, data: { code: 'mcp_upstream_protocol' } } }, `${what}: withheld under the request id`);
          t.notMatch(r.text, /sunny/, `${what}: nothing of the result`);
        }
      }
      if (route.answers === 'reviewed') {
        // read strictly: an answer JSON.parse would refuse or read otherwise is withheld, never repaired
        for (const tamper of tampers) {
          const valid = route.valid();
          const answer = tamper.apply(a2aResult(upstreamId(route, valid)), ['result', 'message', 'parts', 0, 'text']);
          h.answerNext(route.upstream!, () => bodyAnswer(answer));
          const r = await call(h, route, JSON.stringify(valid));
          if (route.binding === 'rest') t.match(r, { status: 502, body: { error: { details: [{ reason: 'ANSWER_WITHHELD' }] } } }, `${route.name} answer with ${tamper.name}: withheld`);
          else {
            t.equal(r.status, 200, `${route.name} answer with ${tamper.name}`);
            t.match(r.body, { id: valid.id, error: { code: -32055 } }, `${route.name} answer with ${tamper.name}: withheld`);
          }
        }
        const valid = route.valid();
        h.answerNext(route.upstream!, () => bodyAnswer(JSON.stringify(a2aResult(upstreamId(route, valid)))));
        const clean = await call(h, route, JSON.stringify(valid));
        const result = route.binding === 'rest' ? clean.body : clean.body?.result;
        t.ok(result?.message?.metadata?.[VERDICT_EXTENSION]?.verdicts?.length, `${route.name} a clean answer: reviewed, with the verdict in its metadata`);
      }
      if (route.answers === 'relayed as bytes') {
        // nor under 200: an answer JSON.parse would refuse or read otherwise is neither repaired nor vouched for
        for (const tamper of tampers) {
          const valid = route.valid();
          const answer = tamper.apply(a2aResult(valid.id), ['result', 'message', 'parts', 0, 'text']);
          h.answerNext(route.upstream!, () => bodyAnswer(answer));
          const mark = h.up.received.length;
          const r = await call(h, route, JSON.stringify(valid));
          t.equal(r.status, 200, `${route.name} answer with ${tamper.name}`);
          t.equal(r.text, answer, `${route.name} answer with ${tamper.name}: the peer's bytes`);
          t.equal(r.headers[VERDICT], h.receivedSince(mark, route.upstream)[0]?.headers[VERDICT], `${route.name} answer with ${tamper.name}: only the request's verdict`);
        }
      }
      await stillUp(t, h, route.name);
    }
  });

  await t.test('the MCP server answers with an oversized string at every field: reviewed or withheld, never a 5xx', async (t) => {
    const route = h.routes.find((r) => r.family === 'mcp')!;
    const listing = { jsonrpc: '2.0', id: 8, result: { tools: [GET_WEATHER] } };
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, number]> = [
      ['tools/list', { jsonrpc: '2.0', id: 8, method: 'tools/list' }, listing, MAX_PAGE_BYTES],
      ['tools/call', route.valid(), mcpResult(route.valid().id), MAX_ANSWER_BYTES],
    ];
    for (const [method, request, answer, cap] of cases) {
      for (const path of stringPaths(answer)) {
        for (const size of [64 * 1024, cap + 1]) {
          const what = `${method} answer with ${size} bytes at /${path.join('/')}`;
          h.answerNext('/mcp', () => bodyAnswer(JSON.stringify(withAt(answer, path, oversized(size)))));
          const r = await call(h, route, JSON.stringify(request));
          t.equal(r.status, 200, `${what}: ${r.text.slice(0, 160)}`);
          t.equal(r.body?.id, request.id, `${what}: the answer to the request`);
          if (size > cap) t.match(r.body, { error: { code: -32603, message: /larger than/ } }, `${what}: withheld`);
          else t.ok(r.body?.result || r.body?.error?.code === -32603, `${what}: reviewed, or withheld`);
          if (r.body?.result?.tools) t.ok(r.body.result.tools.every((x: { name: string }) => x.name === 'get_weather'), `${what}: only the pinned definition`);
          if (method === 'tools/call') t.ok(r.body?.result?._meta?.[VERDICT_META] || r.body?.error, `${what}: the call was forwarded and its answer reviewed`);
        }
        // a listing that changed get_weather left that in its last-seen record: the clean one puts it back
        const clean = await call(h, route, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }));
        t.same(clean.body?.result?.tools, [GET_WEATHER], `${method} /${path.join('/')}: listed clean again`);
      }
    }
    const mark = h.up.received.length;
    const again = await call(h, route, JSON.stringify(route.valid()));
    reviewedIfForwarded(t, h, route, again, mark, 'the control call after');
    t.equal(h.receivedSince(mark, route.upstream).length, 1, 'and it is forwarded');
    await stillUp(t, h, route.name);
  });

  await t.test('an upstream event stream split at every byte offset', async (t) => {
    for (const route of h.routes.filter((r) => r.streamMethod)) {
      // a REST stream is its own path, the same body; a JSON-RPC one the same path, another method
      const valid: Record<string, unknown> = route.streamPath ? route.valid() : { ...route.valid(), method: route.streamMethod };
      const at = route.streamPath ? { ...route, path: route.streamPath } : route;
      if (route.answers === 'reviewed') {
        // read event by event at every cut: the event is handed on reviewed, with the verdict in the task's metadata
        const event = sseEvent(JSON.stringify({ jsonrpc: '2.0', id: upstreamId(route, valid), result: { task: { id: 't-1', status: { state: 'TASK_STATE_WORKING' } } } }));
        for (const cut of everyCut(event)) {
          h.answerNext(route.upstream!, () => chunkedAnswer(event, [cut]));
          const r = await call(h, at, JSON.stringify(valid), { accept: 'text/event-stream' });
          const msgs = [...r.text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]));
          t.equal(msgs.length, 1, `${route.name} cut at ${cut}: one event`);
          const result = route.binding === 'rest' ? msgs[0] : msgs[0]?.result;
          t.ok(result?.task?.metadata?.[VERDICT_EXTENSION], `${route.name} cut at ${cut}: reviewed, with the verdict`);
          t.match(r.headers['content-type'], /^text\/event-stream/);
        }
      } else if (route.family === 'a2a') {
        // relayed chunk by chunk without being read: the client gets the peer's bytes, whatever the cut
        const event = sseEvent(JSON.stringify({ jsonrpc: '2.0', id: valid.id, result: { task: { id: 't-1', status: { state: 'TASK_STATE_WORKING' } } } }));
        for (const cut of everyCut(event)) {
          h.answerNext(route.upstream!, () => chunkedAnswer(event, [cut]));
          const mark = h.up.received.length;
          const r = await call(h, route, JSON.stringify(valid), { accept: 'text/event-stream' });
          t.equal(r.text, event, `${route.name} cut at ${cut}: the peer's bytes`);
          t.match(r.headers['content-type'], /^text\/event-stream/);
          t.ok(h.receivedSince(mark, route.upstream)[0]?.headers[VERDICT], `${route.name} cut at ${cut}: forwarded with its verdict`);
        }
      } else {
        // parsed strictly and reviewed at every cut: the result gains its verdict, a NaN is withheld
        const clean = sseEvent(JSON.stringify(mcpResult(valid.id)));
        const nan = sseEvent(JSON.stringify(mcpResult(valid.id)).replace('"sunny"', 'NaN'));
        for (const [name, event] of [['clean', clean], ['NaN', nan]] as const) {
          for (const cut of everyCut(event)) {
            h.answerNext(route.upstream!, () => chunkedAnswer(event, [cut]));
            const r = await call(h, route, JSON.stringify(valid));
            const msgs = [...r.text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]));
            t.equal(msgs.length, 1, `${route.name} ${name} cut at ${cut}: one message`);
            if (name === 'clean') t.ok(msgs[0]?.result?._meta?.[VERDICT_META], `${route.name} clean cut at ${cut}: reviewed, with the verdict`);
            else t.match(msgs[0], { id: valid.id, error: { code: -32603 } }, `${route.name} NaN cut at ${cut}: withheld`);
          }
        }
      }
      await stillUp(t, h, route.name);
    }
  });
});
