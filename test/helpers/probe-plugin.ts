import { EventEmitter, once } from 'node:events';
import type { Plugin } from '../../core/types.js';

export const PROBE_SCHEMA = 'https://proofgate.dev/schemas/test/probe.json';

/** Emits 'slow-started' when /probe/slow's handler begins: tests wait on it instead of on a clock. */
export const probeEvents = new EventEmitter();

/** Routes that exercise the kernel's pipeline in tests: a validated echo, a slow handler, worker tasks. */
export function probePlugin(opts: { bodyLimit?: number } = {}): Plugin {
  return {
    name: 'probe',
    register(app) {
      app.schema({
        $id: PROBE_SCHEMA,
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1 }, count: { type: 'integer', minimum: 0, default: 1 } },
      });
      app.schema({
        $id: 'https://proofgate.dev/schemas/test/probe-query.json',
        type: 'object',
        properties: { n: { type: 'integer', minimum: 1, maximum: 5 } },
      });
      const engine = app.engine({ name: 'probe', version: '0', module: new URL('../fixtures/test-engine.js', import.meta.url), timeoutMs: 1500 });
      app.route({
        method: 'POST',
        path: '/probe/echo',
        auth: 'none',
        bodyLimit: opts.bodyLimit ?? 64,
        schema: { body: PROBE_SCHEMA },
        handler: (ctx) => ({ body: { got: ctx.body } }),
      });
      app.route({
        method: 'GET',
        path: '/probe/items/:id',
        auth: 'none',
        schema: { query: 'https://proofgate.dev/schemas/test/probe-query.json' },
        handler: (ctx) => ({ body: { id: ctx.params.id, query: ctx.query } }),
      });
      app.route({
        method: 'GET',
        path: '/probe/slow',
        auth: 'none',
        handler: async () => {
          // in flight until the test lets it go (after close() has begun), however loaded the machine
          const released = once(probeEvents, 'slow-release');
          probeEvents.emit('slow-started');
          await released;
          return { body: { finished: true } };
        },
      });
      app.route({
        method: 'POST',
        path: '/probe/upload',
        auth: 'none',
        bodyType: 'multipart',
        bodyLimit: 1024,
        handler: (ctx) => {
          const b = ctx.body as { fields: Record<string, string>; files: Array<{ field: string; filename: string; data: Buffer }> };
          return { body: { fields: b.fields, files: b.files.map((f) => ({ field: f.field, filename: f.filename, size: f.data.length })) } };
        },
      });
      app.route({
        method: 'POST',
        path: '/probe/task/:fn',
        auth: 'none',
        handler: async (ctx) => ({ body: { result: await engine.run(ctx.params.fn, ctx.body ?? null) } }),
      });
      app.route({
        method: 'GET',
        path: '/probe/secure',
        auth: 'apiKey',
        scope: 'admin:all',
        handler: () => ({ body: { ok: true } }),
      });
    },
  };
}
