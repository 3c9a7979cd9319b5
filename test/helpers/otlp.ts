import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** one span as the OTLP/HTTP JSON exporter sends it */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 2 SERVER, 3 CLIENT */
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
  /** nanoseconds since the epoch, as a decimal string or number (the JSON encoding of a uint64) */
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
}

/**
 * An OTLP/HTTP receiver on a free port, as a collector listens on 4318: keeps every span posted to
 * it and the method, path and content type of each export.
 */
export async function startOtlpReceiver(t: { teardown(fn: () => unknown): void }): Promise<{ endpoint: string; spans: OtlpSpan[]; exports: string[] }> {
  const spans: OtlpSpan[] = [];
  const exports: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => server.close(r)));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, exports };
}

export const spanAttr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v ? (v.stringValue ?? v.intValue ?? v.boolValue) : undefined;
};
