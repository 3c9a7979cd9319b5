/**
 * The console's one way to the server: the same HTTP routes the CLI and SDK use. Credentials live in
 * this module's memory only (never localStorage, sessionStorage or a cookie): a reload signs out.
 */
export interface Problem {
  status: number;
  code: string;
  detail: string;
}

/** an audit entry as the API lists it (GET /logs, GET /audit/logs) and streams it (GET /audit/stream) */
export interface AuditEntry {
  log_id: string;
  timestamp: string;
  route: string;
  method: string;
  status: string;
  engine: string | null;
  http_status: number;
  constraint_id: string | null;
  proof_ref: string | null;
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

export interface Me {
  id: string;
  email: string;
  org_id: string;
  role: 'owner' | 'admin' | 'member';
  organization: { id: string; name: string; tier: string };
}

type Cred = 'jwt' | 'key' | 'none';

let token: string | null = null;
let apiKey: string | null = null;

export const session = {
  signedIn: () => token !== null,
  hasKey: () => apiKey !== null,
  setToken(t: string | null) {
    token = t;
  },
  setKey(k: string | null) {
    apiKey = k;
  },
};

export async function call<T>(method: string, path: string, o: { cred?: Cred; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const cred = o.cred ?? 'jwt';
  if (cred === 'jwt' && token) headers.authorization = `Bearer ${token}`;
  if (cred === 'key' && apiKey) headers['x-api-key'] = apiKey;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError({ status: 0, code: 'network', detail: 'the server did not answer' });
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const p = (parsed ?? {}) as Partial<Problem>;
    throw new ApiError({ status: res.status, code: typeof p.code === 'string' ? p.code : `http_${res.status}`, detail: typeof p.detail === 'string' ? p.detail : res.statusText });
  }
  return parsed as T;
}

export async function signIn(email: string, password: string): Promise<Me> {
  const r = await call<{ access_token: string }>('POST', '/auth/signin', { cred: 'none', body: { email, password } });
  token = r.access_token;
  try {
    return await call<Me>('GET', '/auth/me');
  } catch (err) {
    token = null;
    throw err;
  }
}

export function describe(err: unknown): string {
  if (err instanceof ApiError) return `${err.problem.detail} (${err.problem.code}, HTTP ${err.problem.status})`;
  return 'unexpected error';
}

/**
 * A server-sent-event stream read with fetch, not EventSource: EventSource cannot send the
 * Authorization header, and a token in the URL would land in logs. Resolves when the stream ends.
 */
export async function stream(path: string, onEvent: (event: string, data: unknown) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(path, { headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) }, credentials: 'omit', cache: 'no-store', signal });
  if (!res.ok || !res.body) {
    const p = ((await res.json().catch(() => ({}))) ?? {}) as Partial<Problem>;
    throw new ApiError({ status: res.status, code: typeof p.code === 'string' ? p.code : `http_${res.status}`, detail: typeof p.detail === 'string' ? p.detail : res.statusText });
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let cut: number;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let name = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) name = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (!data) continue;
      try {
        onEvent(name, JSON.parse(data));
      } catch {
        // a malformed event is skipped, not shown
      }
    }
  }
}

/** A non-JSON answer (the audit CSV) fetched with the credentials, as a Blob the page can offer for download. */
export async function fetchBlob(path: string, cred: Cred = 'jwt'): Promise<Blob> {
  const headers: Record<string, string> = {};
  if (cred === 'jwt' && token) headers.authorization = `Bearer ${token}`;
  if (cred === 'key' && apiKey) headers['x-api-key'] = apiKey;
  const res = await fetch(path, { headers, credentials: 'omit', cache: 'no-store' });
  if (!res.ok) {
    const p = ((await res.json().catch(() => ({}))) ?? {}) as Partial<Problem>;
    throw new ApiError({ status: res.status, code: typeof p.code === 'string' ? p.code : `http_${res.status}`, detail: typeof p.detail === 'string' ? p.detail : res.statusText });
  }
  return res.blob();
}
