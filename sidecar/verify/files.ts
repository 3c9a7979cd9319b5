import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { UsageError, type Item, type Kind, type Outcome } from './items.js';

/**
 * Which files `proofgate verify` may read. The files come from a checkout, and a pull request can
 * add `leak.py -> ~/.aws/credentials` (or a symlinked directory): reading it would send the target's
 * content to the service. So every path is resolved (realpath, every symlink on the way) and read
 * only when the result lies inside the root's own realpath; a link that stays inside is followed.
 */
export const OUTSIDE_ROOT_RULE = 'verify.outside_root';

/** The root's realpath; a root that does not exist is a usage error. */
export function realRoot(dir: string): string {
  try {
    return realpathSync(dir);
  } catch (err) {
    throw new UsageError(`--root ${dir}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (err as Error).message}`);
  }
}

/**
 * The real path to read `file` from, or null when it resolves outside `root` (a realpath). A file
 * that does not exist (or a dangling link) throws, as a missing file always has.
 */
export function insideRoot(root: string, file: string): string | null {
  const real = realpathSync(file);
  const rel = relative(root, real);
  // a different drive makes `relative` return an absolute path; '' is the root itself (a directory, refused when read)
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? null : real;
}

/** The outcome of a file that was not read: denied, never verified, with one finding at its line 1. */
export function outsideRootOutcome(kind: Kind, file: string, root: string): Outcome {
  const message = `not read: ${file} resolves outside the root ${root} (a symlink leading out of it, or a path named outside it; see --root)`;
  const item: Item = { file, line: 1, kind, body: {} };
  const answer = { status: 'UNVERIFIABLE', admission: 'DENY', agent_message: message, developer_fields: { constraint_id: OUTSIDE_ROOT_RULE } };
  return { item, answer, admitted: false, findings: [{ ruleId: OUTSIDE_ROOT_RULE, severity: 'ERROR', message, line: 1, column: 1 }] };
}
