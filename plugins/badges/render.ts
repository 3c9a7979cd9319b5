import type { BadgesCustomQuery } from '../../schemas/gen/index.js';

/**
 * SVG rendering. badge-maker escapes every text and attribute it writes; on top of that the
 * routes only accept printable text (XML 1.0 cannot carry most control characters, nor U+FFFE/U+FFFF, even escaped)
 * and colours from a closed set, so nothing a caller sends can become markup or an attribute.
 */
export const PALETTE = ['brightgreen', 'green', 'yellowgreen', 'yellow', 'orange', 'red', 'blue', 'grey', 'gray', 'lightgrey', 'lightgray'] as const;
export type PaletteColor = (typeof PALETTE)[number];

/** Colour of each status a badge can show (verification statuses, legacy names, attestation states). */
export const STATUS_COLORS: Readonly<Record<string, PaletteColor>> = {
  VERIFIED: 'brightgreen',
  VALID: 'brightgreen',
  CORRECTED: 'yellowgreen',
  INCONCLUSIVE: 'yellow',
  UNVERIFIABLE: 'yellow',
  PENDING: 'lightgrey',
  UNKNOWN: 'lightgrey',
  EXPIRED: 'orange',
  FAILED: 'red',
  BLOCKED: 'red',
  REVOKED: 'red',
  ERROR: 'red',
};

// a small shield with a check mark (our own drawing), embedded as a data URI when logo=on
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path fill="#fff" d="M8 1 2 3.5v4C2 11 4.6 14 8 15c3.4-1 6-4 6-7.5v-4z"/>' +
  '<path fill="none" stroke="#4b0" stroke-width="1.8" d="m5 8 2 2 4-4"/></svg>';
const LOGO_DATA_URI = `data:image/svg+xml;base64,${Buffer.from(LOGO_SVG).toString('base64')}`;

/**
 * What a badge shows: GET /badge/custom's query (schemas/badges/custom.query.json, generated:
 * schemas/gen/badges.gen.ts) once its defaults are applied, so label and colour (a palette name or
 * #rgb / #rrggbb) are always there, and with the query's logo=on|off read as a boolean. The other
 * badges fill the same fields from a status.
 */
export type BadgeSpec = Required<Omit<BadgesCustomQuery, 'logo'>> & { logo?: boolean };

/**
 * badge-maker is imported on the first badge: its font-width tables are ~5 MB of the main thread's
 * heap, held from start-up by every sidecar whether or not anything asks it for a badge.
 */
let maker: Promise<typeof import('badge-maker')> | null = null;

export async function renderBadge(b: BadgeSpec): Promise<string> {
  maker ??= import('badge-maker');
  maker.catch(() => {
    maker = null;
  });
  const { makeBadge } = await maker;
  return makeBadge({ label: b.label, message: b.message, color: b.color, style: 'flat', ...(b.logo ? { logoBase64: LOGO_DATA_URI } : {}) });
}
