import { startUpstream } from '../test/mcp/fixtures.js';

/**
 * The upstream of `npm run bench -- mcp-proxy`: the tests' official-SDK MCP server (Streamable
 * HTTP, stateful sessions, SSE answers), run as its own process so that the proxy, the server and
 * the load generator each have their own event loop, as they would beside an agent. Prints its URL.
 */
const up = await startUpstream();
// the fixture records every call and header for the tests' assertions: a long run must not grow it
setInterval(() => {
  up.state.calls.length = 0;
  up.state.headers.length = 0;
}, 1000).unref();
process.stdout.write(`${up.url}\n`);
process.on('SIGTERM', () => void up.close().then(() => process.exit(0)));
