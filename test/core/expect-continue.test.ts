import t from 'tap';
import { startServer, testAuthPlugin } from '../helpers/server.js';
import { probePlugin } from '../helpers/probe-plugin.js';
import { waitFor } from '../helpers/wait.js';
import { openRaw } from '../helpers/raw-http.js';

// POST /probe/echo takes a JSON body of at most 64 bytes; GET /probe/secure needs an admin:all key
const s = await startServer({ plugins: [probePlugin(), testAuthPlugin(['verify:read'])] });
t.teardown(() => s.close());
const port = Number(new URL(s.url).port);

const open = () => openRaw(port);

const head = (method: string, path: string, extra: string) => `${method} ${path} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n${extra}\r\n`;

t.test('a request refused before its body is read gets its final status, not 100 Continue', async (t) => {
  const cases: Array<[string, string, string, number]> = [
    ['GET', '/probe/secure', 'Content-Length: 20\r\n', 401],
    ['POST', '/nope', 'Content-Type: application/json\r\nContent-Length: 20\r\n', 404],
    ['DELETE', '/probe/echo', 'Content-Type: application/json\r\nContent-Length: 20\r\n', 405],
    ['POST', '/probe/echo', 'Content-Type: application/json\r\nContent-Length: 1000000\r\n', 413],
  ];
  for (const [method, path, extra, status] of cases) {
    const c = await open();
    c.sock.write(head(method, path, extra));
    // the client keeps its body back: the server must answer on the headers alone
    const text = await waitFor(() => (c.closed() || /\r\n\r\n\{.*\}$/s.test(c.got()) ? c.got() : null), { what: `the answer to ${method} ${path}` });
    t.notMatch(text, /^HTTP\/1\.1 100 /, `${method} ${path}: no 100 Continue before the refusal`);
    t.match(text, new RegExp(`^HTTP/1\\.1 ${status} `), `${method} ${path}: ${status}`);
    t.match(text, /content-type: application\/problem\+json/i);
    c.sock.destroy();
  }
});

t.test('an accepted request gets 100 Continue, then its answer once the body is sent', async (t) => {
  const c = await open();
  const body = '{"name":"x"}';
  c.sock.write(head('POST', '/probe/echo', `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`));
  await waitFor(() => /^HTTP\/1\.1 100 Continue\r\n\r\n/.test(c.got()), { what: '100 Continue' });
  c.sock.write(body);
  const text = await waitFor(() => (/\r\n\r\n\{.*\}$/s.test(c.got().replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '')) ? c.got() : null), { what: 'the 200' });
  t.match(text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  t.match(text, /"got":\{"name":"x"/);
  c.sock.destroy();
});
