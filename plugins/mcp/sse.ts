/**
 * Server-sent events as the Streamable HTTP transport uses them: events separated by a blank line,
 * `data:` lines joined with \n, `id:`/`event:`/`retry:` kept so a client can resume. The parser is
 * incremental (events are handed on as soon as their blank line arrives) and bounded: an event
 * larger than `maxEvent` bytes is an error rather than unbounded buffering.
 */
export interface SseEvent {
  id?: string;
  event?: string;
  retry?: string;
  data: string;
  /** a comment-only block (keep-alive): relayed as is */
  comment?: string;
  /**
   * An event longer than the parser's `rawAbove`, unparsed: its text in the pieces it came in
   * (parseBlock(raw.join('')) reads it). Joining and splitting 8 MiB of text held the event loop
   * ~100 ms: the relay hands the pieces to a worker instead (relay-review.ts).
   */
  raw?: string[];
}

/**
 * The blank line that ends an event: two line ends in a row, each CRLF, LF or CR (a CR followed by
 * LF is one line end), so `\n\r\n` ends an event as a client's parser reads it. Its longest form
 * is 4 characters.
 */
const EVENT_END = /(?:\r\n|\n|\r(?!\n))(?:\r\n|\n|\r)/g;

export class SseParser {
  /**
   * The unfinished event, in the chunks it came in, joined only once its blank line arrives: one
   * buffer searched from its start on every chunk cost ~0.7 s of event loop for a single 8 MiB event
   * in 64 KiB chunks. It never holds a blank line (each is consumed when found).
   */
  private pending: string[] = [];
  private pendingLength = 0;
  constructor(
    private readonly maxEvent = 8 * 1024 * 1024,
    private readonly rawAbove = Infinity,
  ) {}

  push(chunk: string): SseEvent[] {
    // a blank line split across chunks starts in the last 3 characters before this one
    const carry = this.carry();
    EVENT_END.lastIndex = 0;
    const first = EVENT_END.exec(carry + chunk);
    if (!first) {
      this.pending.push(chunk);
      this.pendingLength += chunk.length;
      if (this.pendingLength > this.maxEvent) throw new Error('server-sent event too large');
      return [];
    }
    // the first event ends here: its text is the pending pieces and the start of this chunk (the
    // blank line may begin in the carry, but ends in this chunk: pending never holds one)
    const endAt = this.pendingLength - carry.length + first.index;
    const pieces: string[] = [];
    let need = endAt;
    for (const p of this.pending) {
      if (need <= 0) break;
      pieces.push(need >= p.length ? p : p.slice(0, need));
      need -= p.length;
    }
    if (need > 0) pieces.push(chunk.slice(0, need));
    const out: SseEvent[] = [];
    if (endAt > this.rawAbove) out.push({ data: '', raw: pieces });
    else {
      const ev = parseBlock(pieces.join(''));
      if (ev) out.push(ev);
    }
    const text = chunk.slice(endAt + first[0].length - this.pendingLength);
    let start = 0;
    EVENT_END.lastIndex = 0;
    for (let m = EVENT_END.exec(text); m !== null; m = EVENT_END.exec(text)) {
      const ev = parseBlock(text.slice(start, m.index));
      if (ev) out.push(ev);
      start = EVENT_END.lastIndex;
    }
    const rest = text.slice(start);
    this.pending = rest ? [rest] : [];
    this.pendingLength = rest.length;
    if (this.pendingLength > this.maxEvent) throw new Error('server-sent event too large');
    return out;
  }

  /** what is left at the end of the stream: a last event without its blank line still counts */
  end(): SseEvent[] {
    const rest = this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    const ev = rest.trim() ? parseBlock(rest) : null;
    return ev ? [ev] : [];
  }

  /** the last 3 characters of the pending text */
  private carry(): string {
    let c = '';
    for (let i = this.pending.length - 1; i >= 0 && c.length < 3; i--) c = this.pending[i].slice(-(3 - c.length)) + c;
    return c;
  }
}

export function parseBlock(block: string): SseEvent | null {
  const ev: SseEvent = { data: '' };
  const data: string[] = [];
  const comments: string[] = [];
  for (const line of lines(block)) {
    if (line.startsWith(':')) {
      comments.push(line);
      continue;
    }
    const i = line.indexOf(':');
    const field = i === -1 ? line : line.slice(0, i);
    let value = i === -1 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'id') ev.id = value;
    else if (field === 'event') ev.event = value;
    else if (field === 'retry') ev.retry = value;
  }
  ev.data = data.join('\n');
  if (!data.length && ev.id === undefined && ev.event === undefined && ev.retry === undefined) {
    return comments.length ? { data: '', comment: comments.join('\n') } : null;
  }
  return ev;
}

/**
 * `block.split(/\r\n|\n|\r/)` with native searches: the regex split held the event loop ~100 ms
 * on an 8 MiB event. Each search resumes only once passed, so it stays linear.
 */
function lines(block: string): string[] {
  const out: string[] = [];
  let nl = block.indexOf('\n');
  let cr = block.indexOf('\r');
  for (let start = 0; ; ) {
    if (nl !== -1 && nl < start) nl = block.indexOf('\n', start);
    if (cr !== -1 && cr < start) cr = block.indexOf('\r', start);
    const end = nl === -1 ? cr : cr === -1 ? nl : Math.min(nl, cr);
    if (end === -1) {
      out.push(block.slice(start));
      return out;
    }
    out.push(block.slice(start, end));
    start = end + (block[end] === '\r' && block[end + 1] === '\n' ? 2 : 1);
  }
}

/**
 * An event whose data is JSON text already in UTF-8 bytes (one line: JSON.stringify writes no line
 * ends): its fields and `data: ` before it, the blank line after it, so the bytes are never decoded.
 */
export function formatJsonEvent(ev: SseEvent, json: Uint8Array): Uint8Array[] {
  return [Buffer.from(formatEvent({ ...ev, data: '' }).slice(0, -2)), json, Buffer.from('\n\n')];
}

export function formatEvent(ev: SseEvent): string {
  if (ev.comment !== undefined) return `${ev.comment}\n\n`;
  let s = '';
  if (ev.id !== undefined) s += `id: ${ev.id}\n`;
  if (ev.event !== undefined) s += `event: ${ev.event}\n`;
  if (ev.retry !== undefined) s += `retry: ${ev.retry}\n`;
  for (const line of ev.data.split('\n')) s += `data: ${line}\n`;
  return s + '\n';
}
