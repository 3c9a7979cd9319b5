import { sha256Hex } from '../../../core/json/canonical.js';
import type { Store, WriteOp } from '../../../core/store/store.js';

export const INBOUND_VERDICTS_COLLECTION = 'a2a_inbound_verdicts';

/** one vouching verdict, by what makes it unique and when it stops verifying */
export interface PresentedVerdict {
  iss: string;
  jti: string;
  exp: number;
}

const EXP_DIGITS = 12;
const keyExp = (exp: number) => String(Math.max(0, Math.ceil(exp))).padStart(EXP_DIGITS, '0');

/**
 * The inbound guard's record of the vouching verdicts it has accepted, so that each is accepted once.
 * A voucher binds the data parts' hashes, the sender and the receiver, not the rest of the message:
 * without this record whoever saw a delivered message and its X-Proofgate-Verdict could present the
 * verdict again, with other text beside the same data part, and be taken as that sender until `exp`.
 *
 * The record lives in the store (replicas and processes sharing a data directory see each other's),
 * written with insert-if-absent so two replicas racing on one verdict accept it once. Keys lead with
 * the verdict's `exp`: after it the token no longer verifies, so the record is pruned in key order
 * (the work is what expired, whatever the collection's size). iss and jti are hashed into the key so
 * no issuer string can reach into another's key space.
 */
export class SeenVerdicts {
  constructor(
    private readonly store: Store,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  static key(v: PresentedVerdict): string {
    return `${keyExp(v.exp)}/${sha256Hex(`${v.iss}\n${v.jti}`)}`;
  }

  /**
   * Records every verdict of one message in one commit: true when none had been presented before;
   * false (nothing written) when any had, or when the message repeats one.
   */
  async accept(verdicts: readonly PresentedVerdict[]): Promise<boolean> {
    const keys = new Set(verdicts.map(SeenVerdicts.key));
    if (keys.size !== verdicts.length) return false;
    const ops: WriteOp[] = [...keys].map((key) => ({ collection: INBOUND_VERDICTS_COLLECTION, key, value: 1, ifAbsent: true }));
    return this.store.commit(ops);
  }

  /** deletes the records of verdicts that expired more than `graceSeconds` ago; returns how many */
  async prune(graceSeconds = 60, pageSize = 2000): Promise<number> {
    const col = this.store.collection<number>(INBOUND_VERDICTS_COLLECTION);
    const end = `${keyExp(this.now() - graceSeconds)}/`;
    let deleted = 0;
    for (;;) {
      const page = await col.list({ end, limit: pageSize });
      if (!page.length) return deleted;
      await this.store.commit(page.map(({ key }) => ({ collection: INBOUND_VERDICTS_COLLECTION, key })));
      deleted += page.length;
      if (page.length < pageSize) return deleted;
    }
  }
}
