import type { Guard } from './types.js';

/**
 * `general` and `data_query` have no deterministic verifier: the gateway says so (`unverifiable`,
 * no JWT) instead of pretending. Also stands in for a payload type whose enable_* flag is off.
 */
export const passthroughGuard: Guard = {
  name: 'passthrough',
  check(_payload, ctx) {
    return {
      status: 'unverifiable',
      reason: `No deterministic verifier for payload type ${ctx.payloadType}`,
      details: { payload_type: ctx.payloadType },
    };
  },
};

export function disabledGuard(flag: string): Guard {
  return {
    name: 'passthrough',
    check(_payload, ctx) {
      return {
        status: 'unverifiable',
        reason: `Verification of ${ctx.payloadType} payloads is disabled on this gateway`,
        details: { payload_type: ctx.payloadType, disabled_by: flag },
      };
    },
  };
}
