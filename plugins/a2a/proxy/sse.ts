/**
 * The server-sent events of an A2A stream, read so that each event can be reviewed before it is
 * handed on (answer.ts). Events end at a blank line (each line end CRLF, LF or CR); `data:` lines
 * are joined with \n; `id:` and comments are not carried by A2A streams and are dropped, and so is
 * `event:` except where asked for (the HTTP+JSON binding marks its error event `event: error`).
 * Bounded: an event larger than `maxEvent` characters is an error, never unbounded buffering.
 */
const EVENT_END = /(?:\r\n|\n|\r(?!\n))(?:\r\n|\n|\r)/g;

export class SseTooLarge extends Error {}

export class SseReader {
  private buf = '';
  /** how far `buf` is known to hold no blank line (less the 3 characters one could start in) */
  private scanned = 0;

  constructor(private readonly maxEvent: number) {}

  /** the data of every event this chunk completes; comment-only and data-less blocks yield nothing */
  push(chunk: string): string[] {
    return this.pushEvents(chunk).map((e) => e.data);
  }

  /** as push, with each event's `event:` type (null when it names none) */
  pushEvents(chunk: string): SseEvent[] {
    this.buf += chunk;
    const out: SseEvent[] = [];
    let start = 0;
    EVENT_END.lastIndex = Math.max(0, this.scanned - 3);
    for (let m = EVENT_END.exec(this.buf); m; m = EVENT_END.exec(this.buf)) {
      // a CR at the very end may be the first half of a CRLF: wait for the next chunk
      if (m.index + m[0].length === this.buf.length && this.buf.endsWith('\r')) break;
      const ev = eventOf(this.buf.slice(start, m.index));
      if (ev) out.push(ev);
      start = EVENT_END.lastIndex;
    }
    if (start) this.buf = this.buf.slice(start);
    this.scanned = this.buf.length;
    if (this.buf.length > this.maxEvent) throw new SseTooLarge(`server-sent event larger than ${this.maxEvent} characters`);
    return out;
  }

  /** what is left when the stream ends: an event the peer cut without its blank line */
  end(): string | null {
    return this.endEvent()?.data ?? null;
  }

  endEvent(): SseEvent | null {
    const rest = this.buf;
    this.buf = '';
    this.scanned = 0;
    return rest.trim() === '' ? null : eventOf(rest);
  }
}

export interface SseEvent {
  type: string | null;
  data: string;
}

function eventOf(block: string): SseEvent | null {
  const lines: string[] = [];
  let type: string | null = null;
  for (const line of block.split(/\r\n|\n|\r/)) {
    if (line === 'data') lines.push('');
    else if (line.startsWith('data:')) lines.push(line.slice(line[5] === ' ' ? 6 : 5));
    else if (line.startsWith('event:')) type = line.slice(line[6] === ' ' ? 7 : 6);
  }
  return lines.length ? { type, data: lines.join('\n') } : null;
}

export const sseEvent = (data: string): string => `data: ${data}\n\n`;
