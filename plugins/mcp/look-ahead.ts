/**
 * The look-ahead of a relayed event stream (answer.ts streamReply): what the relay yields before
 * the event loop's next turn, and the rest of the stream after it. Whether the relay finished within
 * the turn decides whether the answer goes out whole, in one write, or streamed.
 */
/** text, or a large event's bytes as the worker left them (never copied here) */
export type Piece = string | Uint8Array;

const LATER = Symbol('later');
/**
 * The pieces the relay yields before a setImmediate fires: microtasks and ticks (a chunk already
 * read, its review, the body's end) come first, I/O and anything on a worker or the store after.
 * `pending` is the read still running when the turn ended, absent when the relay finished.
 */
export async function ahead(events: AsyncGenerator<Piece>): Promise<{ pieces: Piece[]; pending?: Promise<IteratorResult<Piece>> }> {
  const pieces: Piece[] = [];
  let immediate: NodeJS.Immediate | undefined;
  const turn = new Promise<typeof LATER>((resolve) => (immediate = setImmediate(resolve, LATER)));
  try {
    for (;;) {
      const pending = events.next();
      const r = await Promise.race([pending, turn]);
      if (r === LATER) {
        // awaited by rest() once the reply is written; should it fail first, it is not an unhandled rejection
        pending.catch(() => undefined);
        return { pieces, pending };
      }
      if (r.done) return { pieces };
      pieces.push(r.value);
    }
  } finally {
    clearImmediate(immediate);
  }
}

/** the stream's body after the look-ahead: its pieces, the read in flight, then the relay's own */
export async function* rest(first: Piece[], pending: Promise<IteratorResult<Piece>>, events: AsyncGenerator<Piece>): AsyncGenerator<Piece> {
  try {
    yield* first;
    for (let r = await pending; !r.done; r = await events.next()) yield r.value;
  } finally {
    // a relayed stream torn down early: the relay's own finally releases the upstream request
    await events.return(undefined);
  }
}

/** what the look-ahead gathered, as one body */
export function joined(pieces: Piece[]): string | Buffer {
  if (pieces.length === 0) return '';
  if (pieces.length === 1) return typeof pieces[0] === 'string' ? pieces[0] : Buffer.from(pieces[0].buffer, pieces[0].byteOffset, pieces[0].byteLength);
  return Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}
