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
/** when the held JWT expires (ms since the epoch, from its `exp`) */
let expiresAt = 0;
let expiryTimer: ReturnType<typeof setTimeout> | undefined;
let onExpired: (() => void) | null = null;
/** set while the expiry callback signs out, so the timer and a request do not both start one */
let expiring = false;
/**
 * The console signs out this long before the JWT's `exp`: the sign-out still revokes the key it
 * created, which takes the JWT. A timer in a background tab may fire late, so every request checks too.
 */
export const EXPIRY_MARGIN_MS = 30_000;

/**
 * When a JWT received now expires, in this browser's ms; null when it carries no readable `exp` (the
 * console then holds no session). The lifetime is the server's `exp - iat`, counted from now, so a
 * browser clock that is off does not end a session early or keep it past its end.
 */
export function expiryOf(jwt: string): number | null {
  try {
    const part = jwt.split('.')[1] ?? '';
    const claims = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown; iat?: unknown };
    const { exp, iat } = claims;
    if (typeof exp !== 'number' || !Number.isFinite(exp)) return null;
    return typeof iat === 'number' && Number.isFinite(iat) && exp > iat ? Date.now() + (exp - iat) * 1000 : exp * 1000;
  } catch {
    return null;
  }
}

function expire(): void {
  if (token === null || expiring) return;
  expiring = true;
  const cb = onExpired;
  // the callback revokes the console's key with the token, then clears it
  if (cb) cb();
  else session.setToken(null);
}

const expired = () => token !== null && Date.now() >= expiresAt - EXPIRY_MARGIN_MS;

export const session = {
  signedIn: () => token !== null,
  hasKey: () => apiKey !== null,
  /** ms since the epoch at which the console signs out (the JWT's exp less the margin); 0 signed out */
  signsOutAt: () => (token === null ? 0 : expiresAt - EXPIRY_MARGIN_MS),
  setToken(t: string | null) {
    clearTimeout(expiryTimer);
    expiryTimer = undefined;
    expiring = false;
    const exp = t === null ? null : expiryOf(t);
    // fail closed: a token whose expiry cannot be read is not held
    token = exp === null ? null : t;
    expiresAt = exp ?? 0;
    if (token !== null) expiryTimer = setTimeout(expire, Math.max(0, expiresAt - EXPIRY_MARGIN_MS - Date.now()));
  },
  setKey(k: string | null) {
    apiKey = k;
  },
  /** what runs when the session expires (the shell signs out); null: just drop the credentials */
  onExpire(cb: (() => void) | null) {
    onExpired = cb;
  },
};

function sessionExpired(): ApiError {
  return new ApiError({ status: 401, code: 'session_expired', detail: 'your session expired: sign in again' });
}

export async function call<T>(method: string, path: string, o: { cred?: Cred; body?: unknown; atSignOut?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const cred = o.cred ?? 'jwt';
  // the revocation at sign-out runs inside the margin, before the token itself has expired
  if (cred === 'jwt' && expired() && !o.atSignOut) {
    expire();
    throw sessionExpired();
  }
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
    // the server no longer takes the token (expired by its clock, or revoked): the session is over
    if (res.status === 401 && cred === 'jwt' && token !== null && !o.atSignOut) {
      expire();
      throw sessionExpired();
    }
    const p = (parsed ?? {}) as Partial<Problem>;
    throw new ApiError({ status: res.status, code: typeof p.code === 'string' ? p.code : `http_${res.status}`, detail: typeof p.detail === 'string' ? p.detail : res.statusText });
  }
  return parsed as T;
}

export async function signIn(email: string, password: string): Promise<Me> {
  const r = await call<{ access_token: string }>('POST', '/auth/signin', { cred: 'none', body: { email, password } });
  session.setToken(r.access_token);
  if (!session.signedIn()) throw new ApiError({ status: 0, code: 'token_without_expiry', detail: 'the server issued a token whose expiry cannot be read: not signed in' });
  try {
    return await call<Me>('GET', '/auth/me');
  } catch (err) {
    session.setToken(null);
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
  if (expired()) {
    expire();
    throw sessionExpired();
  }
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
