import { connect, createServer, type Socket } from 'node:net';
import type { Test } from 'tap';

/**
 * PostgreSQL behind a switchable TCP relay, for tests of a database that goes away: while closed,
 * new connections are refused and `cut()` drops the open ones. `url` is the database's URL with
 * the relay's port. Torn down with the test.
 */
export async function pgRelay(t: Test, dbUrl: string, o: { open?: boolean } = {}): Promise<{ url: string; setOpen: (on: boolean) => void; cut: () => void }> {
  let open = o.open ?? true;
  const sockets = new Set<Socket>();
  const relay = createServer((inbound) => {
    if (!open) return inbound.destroy();
    const outbound = connect(5432, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  t.teardown(() => {
    cut();
    relay.close();
  });
  const url = new URL(dbUrl);
  url.port = String((relay.address() as { port: number }).port);
  return { url: url.toString(), setOpen: (on) => (open = on), cut };
}
