import type { PyNode } from './parser.js';
import type { Resolver } from './resolve.js';
import type { Severity } from '../types.js';

/** Reports one finding at a node; rule ids are prefixed with `python.` by the caller. */
export type Report = (node: PyNode, severity: Severity, type: string, rule: string, message: string) => void;

/** What a call's rules need (rules.ts, process-rules.ts, plumbum.ts): its own module, so none of them imports another's types. */
export interface CallCtx {
  r: Resolver;
  report: Report;
}
