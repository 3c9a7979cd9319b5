import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusDir } from './harness.js';

/** Request bodies of the HTTP bench: corpus lines cut to a route's fields, and forwarded finance messages. */
export const lines = (file: string) =>
  readFileSync(join(corpusDir(), file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

export function pick(o: Record<string, unknown>, keys: string[]): string {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return JSON.stringify(out);
}

export function financeMessages(): string[] {
  const out: string[] = [];
  for (let i = 1; i <= 50; i++) {
    const a = (i * 1.37).toFixed(2);
    const b = (i * 0.5 + 3).toFixed(2);
    const total = ((Number(a) * 100 * 3 + Number(b) * 100) / 100).toFixed(2);
    out.push(
      JSON.stringify({
        sender_agent_id: 'bench-buyer',
        receiver_agent_id: 'bench-seller',
        payload_type: 'financial_transaction',
        payload: { data: { claimed_total: total, line_items: [{ description: 'widget', amount: a, quantity: 3 }, { description: 'shipping', amount: b }] } },
        timestamp: '2026-11-23T01:00:00Z',
      }),
    );
  }
  return out;
}
