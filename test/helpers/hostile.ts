/**
 * Builds request bodies that satisfy a route's JSON schema structurally (required members present,
 * right types) but carry hostile values, so the fuzz test reaches handlers, not just validation.
 * Only the keywords the schemas in schemas/ use are understood; anything else yields a plain value.
 */
type Schema = Record<string, any>;

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000\u0007\u001b[31m',
  '\u202e\u200b\ufeff',
  '😀'.repeat(50),
  '((((((((((((((((((((((((((((((((((((((((x',
  "' OR 1=1; DROP TABLE users; --",
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '../../../../etc/passwd',
  '9'.repeat(400),
  '1e308*1e308',
  'x'.repeat(5000),
];
const HOSTILE_NUMBERS = [0, -1, 1e308, -1e308, 5e-324, 2 ** 53 + 1, 0.1];

export class HostileBodies {
  private i = 0;
  constructor(private readonly resolveRef: (ref: string) => Schema | undefined) {}

  private pick<T>(list: readonly T[]): T {
    return list[this.i++ % list.length];
  }

  /** `count` bodies for one schema, each a different mix of hostile values. */
  bodies(schema: Schema, count: number): unknown[] {
    return Array.from({ length: count }, () => this.value(schema, 0));
  }

  private value(schema: Schema | undefined, depth: number): unknown {
    if (!schema || depth > 6) return 'x';
    if (schema.$ref) return this.value(this.resolveRef(schema.$ref), depth + 1);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum)) return this.pick(schema.enum);
    for (const k of ['oneOf', 'anyOf'] as const) if (Array.isArray(schema[k])) return this.value(this.pick(schema[k] as Schema[]), depth + 1);
    if (Array.isArray(schema.allOf) && schema.allOf.length) return this.value({ ...schema, allOf: undefined, ...schema.allOf[0] }, depth + 1);
    const type = Array.isArray(schema.type) ? this.pick(schema.type.filter((t: string) => t !== 'null').concat('null')) : schema.type;
    switch (type) {
      case 'string': {
        const s = this.pick(HOSTILE_STRINGS);
        const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
        const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
        return s.length > max ? s.slice(0, max) : s.length < min ? s.padEnd(min, 'z') : s;
      }
      case 'integer':
        return Math.trunc(this.clamp(this.pick(HOSTILE_NUMBERS), schema));
      case 'number':
        return this.clamp(this.pick(HOSTILE_NUMBERS), schema);
      case 'boolean':
        return this.i++ % 2 === 0;
      case 'null':
        return null;
      case 'array': {
        const n = Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3));
        return Array.from({ length: n }, () => this.value(schema.items, depth + 1));
      }
      case 'object':
      default: {
        const out: Record<string, unknown> = {};
        const props: Record<string, Schema> = schema.properties ?? {};
        const required: string[] = schema.required ?? [];
        for (const k of Object.keys(props)) if (required.includes(k) || this.i++ % 2 === 0) out[k] = this.value(props[k], depth + 1);
        for (const k of required) if (!(k in out)) out[k] = 'x';
        return out;
      }
    }
  }

  private clamp(n: number, schema: Schema): number {
    let v = n;
    if (typeof schema.minimum === 'number' && v < schema.minimum) v = schema.minimum;
    if (typeof schema.maximum === 'number' && v > schema.maximum) v = schema.maximum;
    return v;
  }
}
