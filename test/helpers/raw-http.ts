import { connect, type Socket } from 'node:net';

/** A raw TCP connection to a test server and everything the server has written to it so far. */
export async function openRaw(port: number): Promise<{ sock: Socket; got: () => string; closed: () => boolean }> {
  const sock = connect(port, '127.0.0.1');
  let text = '';
  let ended = false;
  sock.on('data', (d) => (text += d.toString('latin1')));
  sock.on('close', () => (ended = true));
  sock.on('error', () => undefined);
  await new Promise((r) => sock.once('connect', r));
  return { sock, got: () => text, closed: () => ended };
}
