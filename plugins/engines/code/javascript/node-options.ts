/**
 * NODE_OPTIONS is read by every node process a program starts later, and again by every Worker
 * thread, whatever program started it (`npm`, a bin script, `new Worker('./w.js')`). Options in it
 * load code (`--require`, `--import data:text/javascript,…`, `--loader`), open a debugger
 * (`--inspect`) or load native engines (`--openssl-config`): setting it makes those otherwise fixed
 * programs run other code. Options are therefore admitted by name from the list below (tuning,
 * warnings, TLS and resolution switches that load nothing); anything else, or a value the rules
 * cannot read, is a finding.
 */
const HARMLESS = new Set([
  'max-old-space-size', 'max-semi-space-size', 'max-http-header-size', 'stack-size', 'stack-trace-limit', 'v8-pool-size', 'expose-gc', 'jitless',
  'no-warnings', 'no-deprecation', 'throw-deprecation', 'pending-deprecation', 'trace-warnings', 'trace-deprecation', 'trace-uncaught', 'trace-exit', 'trace-sigint', 'trace-sync-io',
  'unhandled-rejections', 'enable-source-maps', 'abort-on-uncaught-exception', 'dns-result-order', 'use-openssl-ca', 'use-bundled-ca', 'openssl-legacy-provider',
  'tls-min-v1.0', 'tls-min-v1.1', 'tls-min-v1.2', 'tls-min-v1.3', 'tls-max-v1.2', 'tls-max-v1.3', 'preserve-symlinks', 'preserve-symlinks-main', 'no-addons',
  'disable-proto', 'frozen-intrinsics', 'zero-fill-buffers', 'no-experimental-fetch', 'no-experimental-global-webcrypto', 'experimental-vm-modules', 'conditions', 'title',
]);

/** Why a NODE_OPTIONS value is a finding, or null when every option in it is harmless. */
export function nodeOptionsFinding(value: string | null): string | null {
  if (value === null) return 'NODE_OPTIONS is set to a computed value: it may load code into every node process started later';
  for (const token of value.split(/\s+/).filter(Boolean)) {
    const m = /^--([a-z0-9.-]+)(=[^'"\\]*)?$/.exec(token);
    const name = m ? m[1].replace(/_/g, '-') : null;
    if (name === null || !HARMLESS.has(name)) return `NODE_OPTIONS is set to ${JSON.stringify(value)}: ${JSON.stringify(token)} can load code (--require, --import, --loader, --inspect, …) into every node process or worker started later`;
  }
  return null;
}
