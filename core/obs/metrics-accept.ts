/**
 * Content negotiation of a scrape (RFC 9110 §12.5.1 q-values). Prometheus offers, in order of preference,
 * `application/openmetrics-text;version=1.0.0`, then `text/plain;version=0.0.4`; OpenMetrics is chosen when
 * it is acceptable and weighted at least as high as the text format. Anything else — no header, `*\/*`, an
 * OpenMetrics version this renderer does not write — gets the Prometheus text format, which every scraper
 * reads: a scrape is never refused for its Accept header.
 */
const OPENMETRICS = 'application/openmetrics-text';
const MAX_ACCEPT = 4096;

export function wantsOpenMetrics(accept: string | undefined): boolean {
  if (!accept || accept.length > MAX_ACCEPT) return false;
  let om = 0;
  let text = 0;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((s) => s.trim());
    let q = 1;
    let version: string | null = null;
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      const value = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (key === 'q') q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
      else if (key === 'version') version = value;
    }
    const t = type.toLowerCase();
    if (t === OPENMETRICS && (version === null || version === '1.0.0')) om = Math.max(om, q);
    else if (t === 'text/plain' || t === 'text/*' || t === '*/*') text = Math.max(text, q);
  }
  return om > 0 && om >= text;
}
