import { startPeer } from '../test/helpers/a2a-peer.js';

/**
 * The peer of `npm run bench -- a2a-proxy`: the tests' official-SDK A2A server (its request
 * handler and Express transport), run as its own process so that the proxy, the peer and the load
 * generator each have their own event loop, as they would beside an agent. Prints its URL.
 */
const peer = await startPeer();
// the fixture records every message and header for the tests' assertions: a long run must not grow it
setInterval(() => {
  peer.messages.length = 0;
  peer.received.length = 0;
}, 1000).unref();
process.stdout.write(`${peer.url}\n`);
process.on('SIGTERM', () => void peer.close().then(() => process.exit(0)));
