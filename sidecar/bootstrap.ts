import type { Server } from 'node:http';
import type { Config } from '../core/config.js';
import { HttpError, Problems } from '../core/errors.js';
import { createHttpServer, listenOptions } from '../core/http/server.js';

/**
 * Opens the socket before the plugins are even imported, so a Kubernetes liveness probe gets its
 * answer in the time a bare Node process takes to start. Until the kernel takes this same server
 * over, `/healthz` says the process is alive, `/readyz` says it is starting, and everything else
 * is a 503 problem with Retry-After: nothing is accepted that cannot be served.
 */
export function listenEarly(config: Config): Promise<Server> {
  const server = createHttpServer(config, (req, res) => {
    const path = (req.url ?? '/').split('?')[0].replace(/^\/v1(?=\/)/, '').replace(/\/$/, '');
    const json = (status: number, body: unknown, type = 'application/json; charset=utf-8') => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', 'retry-after': '1' });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (path === '/healthz') return json(200, { status: 'ok' });
      if (path === '/readyz') return json(503, { status: 'starting' });
    }
    const err = new HttpError(Problems.unavailable, 'the sidecar is starting; retry in a second');
    json(503, err.toProblem(path || '/'), 'application/problem+json');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenOptions(config), () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
