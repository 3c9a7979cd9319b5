/**
 * Hard-coded credential rule shared by both languages: a string literal assigned to (or passed as,
 * or stored under a key named like) a secret. The name decides, split into words (snake_case and
 * camelCase), so `password_hash`, `token_url` or `secretsModule` are not secrets but `DB_PASSWORD`,
 * `apiKey` and `client_secret` are.
 */
const LAST_WORD = new Set(['password', 'passwd', 'passphrase', 'pwd', 'secret', 'token', 'apikey', 'credential', 'credentials']);
const LAST_TWO = new Set(['api key', 'secret key', 'private key', 'access key', 'auth key', 'signing key', 'encryption key', 'client secret', 'access token', 'auth token', 'bearer token', 'refresh token']);
const PLACEHOLDER = /^(?:|x+|\*+|\.+|-+|changeme|change[_-]?me|example|placeholder|dummy|test|none|null|undefined|todo|tbd|password|secret|token|your[_-].*|<.*>|\{\{.*\}\}|\$\{.*\}|%\(.*\)s|\{.*\})$/i;

export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

export function isSecretName(name: string): boolean {
  const w = words(name.normalize('NFKC'));
  if (!w.length) return false;
  const last = w[w.length - 1];
  return LAST_WORD.has(last) || (w.length >= 2 && LAST_TWO.has(`${w[w.length - 2]} ${last}`));
}

/** A value that looks like a real credential rather than a placeholder or an empty default. */
export function isCredentialValue(value: string): boolean {
  const v = value.trim();
  return v.length >= 6 && v.length <= 512 && !PLACEHOLDER.test(v) && !/\s{2,}|\n/.test(v);
}

/**
 * Secrets recognised by their value, whatever they are named: AWS access-key ids and PEM private
 * key blocks. Applied to the exact value of string literals on the tree (never to comments).
 */
const AWS_KEY_ID = /(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z2-7]{16}(?![A-Z0-9])/;
const PRIVATE_KEY = /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/;

export function secretByValue(value: string): { rule: string; message: string } | null {
  if (AWS_KEY_ID.test(value) && !/EXAMPLE/.test(value)) return { rule: 'secrets.aws_access_key', message: 'a literal AWS access key id' };
  if (PRIVATE_KEY.test(value)) return { rule: 'secrets.private_key', message: 'a literal private key block' };
  return null;
}

/** A literal that can be a real key (not a placeholder, not a one-character test value). */
export function isKeyLiteral(value: string): boolean {
  return value.length >= 8 && !PLACEHOLDER.test(value.trim());
}

/** Words naming a password in an identifier (`password`, `user_pwd`, `passwd`, `passphrase`). */
export function isPasswordName(name: string): boolean {
  return words(name.normalize('NFKC')).some((w) => w === 'password' || w === 'passwd' || w === 'pwd' || w === 'passphrase' || w === 'pass');
}
