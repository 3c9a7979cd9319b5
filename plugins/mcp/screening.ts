import { EngineError } from '../../core/workers/engine-error.js';
import { HttpError, Problems } from '../../core/errors.js';
import type { EngineHandle } from '../../core/types.js';
import { evaluateAdmitted, type ToolEvaluation } from '../agents/index.js';
import type { Finding, ToolDefinition } from './definitions.js';
import { checkInline, type CheckDefinitions } from './pins.js';
import type { Reviewed, ReviewTask } from './relay-review.js';

/**
 * Where the cost of a check runs. Hashing and screening a tools/list page, and screening a
 * tools/call's arguments, grow with input a server or an agent chooses (up to an 8 MiB answer, a
 * 1 MiB body by default): past `INLINE_BYTES` they run in the kernel's worker pool, so /healthz and
 * every other request keep the event loop meanwhile. Below it they stay inline, where a worker hop
 * would cost more than the check.
 */
export const INLINE_BYTES = 32 * 1024;
/**
 * An answer (a JSON body, one SSE event) longer than this is parsed, reviewed and re-serialised in
 * the pool (relay-review.ts). Inline that work costs ~20 ms per MiB of event loop, so at 256 KiB
 * ~5 ms; the hop costs two copies of the text (~1 ms per MiB each on the loop) and a round trip,
 * which below it would cost about what it saves. Most answers (a tool's text, a notification) are
 * far smaller and stay inline.
 */
export const ANSWER_INLINE_CHARS = 256 * 1024;
/** a large page goes to the pool in slices of about this size: each is copied to a thread in one synchronous step */
export const SLICE_BYTES = 256 * 1024;
/** slices in flight at once */
const SLICES_IN_FLIGHT = 2;

/**
 * A size estimate of a JSON value (string lengths plus a few bytes per value and key), walked until
 * it passes `limit`: the walk itself stays cheap on a value of any size.
 */
export function sizeOver(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length && size <= limit) {
    const v = stack.pop();
    size += 8;
    if (typeof v === 'string') size += v.length;
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        size += k.length;
        stack.push(x);
      }
    }
  }
  return size;
}

export class McpScreening {
  constructor(private readonly engine: EngineHandle | null) {}

  /** Hashes (and, in the pool, screens) one tools/list page; see Pins' CheckDefinitions. */
  readonly check: CheckDefinitions = async (tools, known) => {
    if (!this.engine || sizeOver(tools, INLINE_BYTES) <= INLINE_BYTES) return checkInline(tools, known);
    const slices: ToolDefinition[][] = [];
    let cur: ToolDefinition[] = [];
    let curSize = 0;
    for (const t of tools) {
      const n = sizeOver(t, SLICE_BYTES);
      if (cur.length && curSize + n > SLICE_BYTES) {
        slices.push(cur);
        cur = [];
        curSize = 0;
      }
      cur.push(t);
      curSize += n;
    }
    if (cur.length) slices.push(cur);
    const out: Array<Array<{ hash: string | null; findings?: Finding[] }>> = new Array(slices.length);
    const skip = [...known];
    let next = 0;
    const runner = async () => {
      for (let i = next++; i < slices.length; i = next++) out[i] = await this.run('checkDefinitions', { tools: slices[i], known: skip });
    };
    await Promise.all(Array.from({ length: Math.min(SLICES_IN_FLIGHT, slices.length) }, runner));
    return out.flat();
  };

  /** The agents plugin's argument screening of one call of a tool the server's policy admitted. */
  async evaluate(tool: string, args: Record<string, unknown>, admitted: { sandbox: boolean; why: string }, signal?: AbortSignal): Promise<ToolEvaluation> {
    if (!this.engine || sizeOver(args, INLINE_BYTES) <= INLINE_BYTES) return evaluateAdmitted(tool, args, admitted);
    return this.run('evaluateCall', { tool, args, admitted }, signal);
  }

  /** whether reviewAnswer hands this text to the pool (a caller skips building the task otherwise) */
  offloads(text: ReviewTask['text']): boolean {
    const length = Array.isArray(text) ? text.reduce((n, p) => n + p.length, 0) : text.length;
    return !!this.engine && length > ANSWER_INLINE_CHARS;
  }

  /**
   * A large answer's review in the pool, or undefined when it is small enough to stay inline. What
   * the pool cannot review in time is withheld (the relay answers a JSON-RPC error), never relayed.
   */
  reviewAnswer(task: ReviewTask): Promise<Reviewed> | undefined {
    if (!this.offloads(task.text)) return undefined;
    return this.engine!.run<Reviewed>('reviewAnswer', task).catch((err: unknown) => {
      if (err instanceof EngineError) return { ok: false, reason: `sent an answer the worker pool could not review (${err.kind})` };
      throw err;
    });
  }

  private async run<O>(fn: string, input: unknown, signal?: AbortSignal): Promise<O> {
    try {
      return await this.engine!.run<O>(fn, input, { signal });
    } catch (err) {
      // fail closed: what could not be screened is neither offered nor called
      if (err instanceof EngineError) {
        throw new HttpError(err.kind === 'timeout' ? Problems.engineTimeout : Problems.engineUnavailable, `MCP screening did not complete (${err.kind}): nothing unscreened is relayed`);
      }
      throw err;
    }
  }
}
