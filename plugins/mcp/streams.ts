import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../core/json/canonical.js';
import type { Store } from '../../core/store/store.js';

/**
 * What each relayed event stream was opened for, so that a client resuming it (GET with
 * `Last-Event-ID`, event-ids.ts) gets the resumed events reviewed as the first ones were. One
 * record per stream that relayed an event id (`mcp.streams`), written before that id reaches the
 * client, keyed by the session (or agent, for a server without sessions) and a random token: a
 * resume names its token, and a token of another session, agent or server finds nothing. In the
 * shared store, as the session binding is: the resume may reach another replica. Records go with
 * their session (`DELETE`) and, past the session lifetime, with the sweep (expiry.ts).
 */
export const STREAM_COLLECTION = 'mcp.streams';

export interface StreamRecord {
  server: string;
  agent_id: string;
  /** the request the stream answers; null: the standalone GET stream */
  request_id: string | number | null;
  method: string | null;
  /** a tools/call's verdict, put on its result again when the result comes on a resumed stream */
  verdict?: string;
  created_at: string;
}

/** the key prefix of one session's (or one agent's, without sessions) stream records */
export function streamScope(server: string, sid: string | undefined, agentId: string): string {
  return sha256Hex(sid === undefined ? `agent\0${server}\0${agentId}` : `session\0${server}\0${sid}`);
}

export const newToken = () => randomBytes(16).toString('base64url');

/**
 * One relayed stream's record: `record()` before its first id goes out, `forget()` as the answer it
 * was opened for goes out (nothing is left to resume, so one record per request does not pile up
 * for a session's lifetime; a client whose connection drops with the answer in flight cannot
 * resume, and its request fails — fail closed).
 */
export interface StreamEvents {
  token: string;
  record(): Promise<void>;
  forget(): Promise<void>;
}

export class StreamRecords {
  constructor(private readonly store: Store) {}

  private get records() {
    return this.store.collection<StreamRecord>(STREAM_COLLECTION);
  }

  /**
   * `record()` writes the record once, on first call; later calls wait for that write. The scope
   * and token may be given as functions: most answers relay no event id, and neither is then drawn
   * or hashed.
   */
  lazy(scope: string | (() => string), token: string | (() => string), rec: Omit<StreamRecord, 'created_at'>): StreamEvents {
    let scopeText = typeof scope === 'string' ? scope : undefined;
    let tokenText = typeof token === 'string' ? token : undefined;
    const key = () => `${(scopeText ??= (scope as () => string)())}.${(tokenText ??= (token as () => string)())}`;
    let written: Promise<void> | undefined;
    return {
      get token() {
        return (tokenText ??= (token as () => string)());
      },
      record: () =>
        (written ??= this.records.insert(key(), { ...rec, created_at: new Date().toISOString() }).then((fresh) => {
          // 128 random bits collide with nothing: an existing key means a bug, and reusing it would mix two streams
          if (!fresh) throw new Error('stream token already recorded');
        })),
      forget: async () => {
        if (written) await this.forgetKey(key());
      },
    };
  }

  /** a stream resumed: its record exists already */
  resumed(scope: string, token: string): StreamEvents {
    return { token, record: async () => undefined, forget: () => this.forgetKey(`${scope}.${token}`) };
  }

  private async forgetKey(key: string): Promise<void> {
    // best effort: a record left behind goes with its session or the sweep
    await this.records.delete(key).catch(() => false);
  }

  async get(scope: string, token: string, server: string, agentId: string): Promise<StreamRecord | undefined> {
    const rec = await this.records.get(`${scope}.${token}`);
    return rec && rec.server === server && rec.agent_id === agentId ? rec : undefined;
  }

  /** the session ended: its streams cannot be resumed */
  async end(scope: string): Promise<void> {
    for (;;) {
      const page = await this.records.list({ prefix: `${scope}.`, limit: 500 });
      if (!page.length) return;
      await this.store.commit(page.map((e) => ({ collection: STREAM_COLLECTION, key: e.key })));
      if (page.length < 500) return;
    }
  }
}

/**
 * Standalone streams open now, per agent, on this replica: each holds a connection to the client
 * and one to the server for up to `mcp.stream_max_seconds`, so an agent holds at most `max` of them.
 */
export class OpenStreams {
  private readonly open = new Map<string, number>();
  constructor(readonly max: number) {}

  /** a release function, or null when the agent holds `max` streams already */
  take(agentId: string): (() => void) | null {
    const n = this.open.get(agentId) ?? 0;
    if (n >= this.max) return null;
    this.open.set(agentId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(agentId) ?? 1) - 1;
      if (left <= 0) this.open.delete(agentId);
      else this.open.set(agentId, left);
    };
  }

  count(agentId: string): number {
    return this.open.get(agentId) ?? 0;
  }
}
