/**
 * The text hidden in base64 (or base64url) runs of a string, for the credential detectors: encoding
 * a key is the cheapest way past a pattern. It runs on the event loop beside the other detectors, so
 * a run is first read sextet by sextet without allocating, and decoded only when its bytes look
 * like text; a body of thousands of random tokens then costs a few operations per character.
 */

// long enough to hold the shortest credential the detectors know once encoded (20 characters → 27 and a pad)
const MIN_RUN = 27;
// the lookbehind starts a match only where a run starts, not again at every character inside one
const BASE64_RUN = new RegExp(`(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{${MIN_RUN},}={0,2}`, 'g');

const SEXTET = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => (SEXTET[c.charCodeAt(0)] = i));
SEXTET['-'.charCodeAt(0)] = 62;
SEXTET['_'.charCodeAt(0)] = 63;

/** 1 for a control byte (tab, line feed and carriage return are text) */
const CONTROL = new Uint8Array(256);
for (let b = 0; b < 32; b++) CONTROL[b] = b === 9 || b === 10 || b === 13 ? 0 : 1;
CONTROL[127] = 1;

/**
 * Whether the bytes `run` encodes from character `shift` on look like text: it gives up as soon as
 * control bytes are denser than one in twenty (with a little slack at the start), which random
 * bytes (one in eight) reach within a few dozen bytes.
 */
function looksText(run: string, shift: number): boolean {
  let bad = 0;
  let n = 0;
  const end = run.length;
  for (let i = shift; i + 1 < end; i += 4) {
    const a = SEXTET[run.charCodeAt(i) & 127];
    const b = SEXTET[run.charCodeAt(i + 1) & 127];
    if (a < 0 || b < 0) break;
    bad += CONTROL[((a << 2) | (b >> 4)) & 255];
    n++;
    const c = i + 2 < end ? SEXTET[run.charCodeAt(i + 2) & 127] : -1;
    if (c >= 0) {
      bad += CONTROL[(((b & 15) << 4) | (c >> 2)) & 255];
      n++;
      const d = i + 3 < end ? SEXTET[run.charCodeAt(i + 3) & 127] : -1;
      if (d >= 0) {
        bad += CONTROL[(((c & 3) << 6) | d) & 255];
        n++;
      } else break;
    } else break;
    if (bad * 20 > n + 20) return false;
  }
  return n > 0 && bad * 20 <= n;
}

/**
 * Decoded UTF-8 with replacement characters as rare as control bytes may be: text, not bytes that
 * merely avoid control codes (a few are allowed: letters glued in front, a multiple of four, leave
 * a broken first character)
 */
function validText(s: string): boolean {
  let bad = 0;
  for (let i = s.indexOf('\ufffd'); i !== -1; i = s.indexOf('\ufffd', i + 1)) if (++bad * 20 > s.length) return false;
  return true;
}

/**
 * The text inside the base64 runs of `text`, one line per run, `depth` levels down (a run inside a
 * decoded run is read too). A run that does not decode to text is read again from its second,
 * third and fourth character, since letters glued in front of an encoding shift it. No cap on the
 * number of runs (decoys in front would hide the one that matters): each level reads what it is
 * given at most four times, so the work is linear in the input.
 */
export function base64Text(text: string, depth: number): string {
  const parts: string[] = [];
  for (const m of text.matchAll(BASE64_RUN)) {
    const run = m[0];
    for (let shift = 0; shift < 4 && run.length - shift >= MIN_RUN; shift++) {
      if (!looksText(run, shift)) continue;
      // Node's decoder reads both alphabets; a JWT's segments decode to JSON, which the JWT pattern reads already
      const decoded = Buffer.from(shift ? run.slice(shift) : run, 'base64').toString('utf8');
      if (!validText(decoded)) continue;
      parts.push(decoded);
      break;
    }
  }
  const joined = parts.join('\n');
  return depth > 1 && joined ? `${joined}\n${base64Text(joined, depth - 1)}` : joined;
}
