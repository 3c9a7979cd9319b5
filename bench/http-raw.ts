import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The reference of `npm run bench -- http`: raw node:http answering a fixed JSON body, run as its
 * own process (like the sidecar) so the ratio compares servers, not a server with its load
 * generator. Prints its port on stdout.
 */
const body = JSON.stringify({ status: 'VERIFIED', agent_message: 'ok', developer_fields: {}, proof_ref: null });
const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
