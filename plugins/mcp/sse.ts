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
}

export class SseParser {
  private buf = '';
  constructor(private readonly maxEvent = 8 * 1024 * 1024) {}

  push(chunk: string): SseEvent[] {
    this.buf += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n\r\n|\n\n|\r\r/.exec(this.buf);
      if (!m) break;
      const block = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      const ev = parseBlock(block);
      if (ev) out.push(ev);
    }
    if (this.buf.length > this.maxEvent) throw new Error('server-sent event too large');
    return out;
  }

  /** what is left at the end of the stream: a last event without its blank line still counts */
  end(): SseEvent[] {
    const rest = this.buf;
    this.buf = '';
    const ev = rest.trim() ? parseBlock(rest) : null;
    return ev ? [ev] : [];
  }
}

function parseBlock(block: string): SseEvent | null {
  const ev: SseEvent = { data: '' };
  const data: string[] = [];
  const comments: string[] = [];
  for (const line of block.split(/\r\n|\n|\r/)) {
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

export function formatEvent(ev: SseEvent): string {
  if (ev.comment !== undefined) return `${ev.comment}\n\n`;
  let s = '';
  if (ev.id !== undefined) s += `id: ${ev.id}\n`;
  if (ev.event !== undefined) s += `event: ${ev.event}\n`;
  if (ev.retry !== undefined) s += `retry: ${ev.retry}\n`;
  for (const line of ev.data.split('\n')) s += `data: ${line}\n`;
  return s + '\n';
}
