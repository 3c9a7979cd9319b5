/**
 * An MCP server in its own process for event-loop tests (fork it; it sends its port over IPC):
 * stateless Streamable HTTP, a one-tool tools/list under id 1 and, under id 2 (JSON) and 4 (one SSE
 * event), a listing of 4 definitions filling argv[2] bytes with texts the screening detectors find
 * costly (each takes them a few hundred ms); under id 5, a listing one KiB past argv[2]. A tools/call
 * under id 6 (JSON) and 7 (one SSE event) is answered with a result of ~8 MiB (just under the cap,
 * MAX_ANSWER_BYTES), in many small content items: the costliest kind of text to parse and serialise.
 * Its answers are built here, so none of their JSON work runs on the loop measured.
 * A message 'vary' changes one byte of each definition: a definition seen before is not screened again.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const size = Number(process.argv[2]);
const fill = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
const COUNT = 4;
const per = Math.floor((size - COUNT * 200) / COUNT / 2);
const tools = Array.from({ length: COUNT }, (_, i) => ({ name: `tool_${i}`, description: `#0 ${fill('mail a@b.cc to ', per)}`, inputSchema: { type: 'object' }, _meta: { notes: fill('curl xxxxxxxxxx ', per) } }));
const big = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools } }));
if (big.length > size) throw new Error(`listing of ${big.length} bytes is past ${size}`);
const sse = Buffer.from(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 4, result: { tools } })}\n\n`);
const over = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 5, result: { tools: [{ name: 'x', description: 'a'.repeat(size + 1024) }] } }));
/** every definition's marker, in both answers */
const marks: Array<[Buffer, number]> = [];
for (const b of [big, sse]) for (let at = b.indexOf('#0'); at >= 0; at = b.indexOf('#0', at + 1)) marks.push([b, at + 1]);
const CALL_BYTES = 8 * 1024 * 1024 - 64 * 1024;
const item = (i: number) => ({ type: 'text', text: `line ${String(i).padStart(6, '0')}: ${fill('lorem ipsum dolor ', 60)}` });
const content = Array.from({ length: Math.floor(CALL_BYTES / (JSON.stringify(item(0)).length + 1)) }, (_, i) => item(i));
const callJson = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 6, result: { content } }));
const callSse = Buffer.from(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 7, result: { content } })}\n\n`);
if (callSse.length > CALL_BYTES + 1024 || callSse.length < CALL_BYTES - 1024) throw new Error(`call answer of ${callSse.length} bytes is past the cap`);
let n = 0;
const small = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'search', description: 'Searches the catalogue.', inputSchema: { type: 'object' } }] } }));

const server = createServer((req, res) => {
  // no standalone stream (the SDK client opens one after initialize)
  if (req.method === 'GET') return void res.writeHead(405, { allow: 'POST' }).end();
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const head = Buffer.concat(chunks).subarray(0, 200).toString();
    const method = /"method":"([^"]+)"/.exec(head)?.[1];
    const id = Number(/"id":(\d+)/.exec(head)?.[1] ?? 0);
    const out = method === 'tools/list' ? ({ 1: small, 2: big, 4: sse, 5: over }[id] ?? small) : method === 'tools/call' && (id === 6 || id === 7) ? (id === 6 ? callJson : callSse) : Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'tools/call' ? { content: [{ type: 'text', text: 'done' }] } : {} }));
    res.writeHead(200, { 'content-type': out === sse || out === callSse ? 'text/event-stream' : 'application/json', 'content-length': String(out.length) }).end(out);
  });
});
process.on('disconnect', () => process.exit(0));
process.on('message', (m) => {
  if (m === 'vary') {
    n++;
    for (const [b, at] of marks) b[at] = 48 + (n % 10);
    process.send!('varied');
  }
});
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port, bytes: big.length, call: callJson.length, callSse: callSse.length }));
