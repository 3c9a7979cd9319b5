import { isPayloadType, type PayloadType } from '../message.js';
import type { Guard } from './types.js';

/**
 * Payload type → guard. The built-ins are registered first; an operator plugin may then register
 * its own guard for a payload type (`app.service('a2a.guards').register(type, guard)`),
 * replacing the built-in once. Two operator guards for the same type is a start-up error: which one
 * runs must never depend on plugin order.
 */
export class GuardRegistry {
  private readonly guards = new Map<PayloadType, { guard: Guard; builtin: boolean }>();

  constructor(private readonly onReplace?: (type: PayloadType, previous: string, next: string) => void) {}

  /** @internal the gateway's own guards; operators use register() */
  registerBuiltin(type: PayloadType, guard: Guard): void {
    this.guards.set(type, { guard: validGuard(guard), builtin: true });
  }

  register(type: PayloadType, guard: Guard): void {
    if (!isPayloadType(type)) throw new TypeError(`a2a guard registry: unknown payload type ${JSON.stringify(type)}`);
    const prev = this.guards.get(type);
    if (prev && !prev.builtin) throw new Error(`a2a guard registry: ${type} already has the guard ${prev.guard.name}`);
    validGuard(guard);
    if (prev) this.onReplace?.(type, prev.guard.name, guard.name);
    this.guards.set(type, { guard, builtin: false });
  }

  get(type: PayloadType): Guard | undefined {
    return this.guards.get(type)?.guard;
  }

  /** every engine name a verdict can report: the bounded label set of the metrics */
  names(): string[] {
    return [...new Set([...this.guards.values()].map((g) => g.guard.name))];
  }
}

function validGuard(g: Guard): Guard {
  if (!g || typeof g.check !== 'function' || typeof g.name !== 'string' || !/^[a-z0-9_]{1,64}$/.test(g.name)) {
    throw new TypeError('an a2a guard needs a name matching [a-z0-9_]{1,64} and a check(payload, ctx) function');
  }
  return g;
}
