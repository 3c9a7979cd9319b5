import type { Verifier } from '../../core/types.js';
import type { BatchRequest } from '../../schemas/gen/index.js';

/**
 * The item types of schemas/batch/request.json (generated: schemas/gen/batch.gen.ts). An item's
 * result carries its type (item-result.json lists the same enum), so a type the request admits
 * and the result cannot carry fails to compile in run.ts.
 */
export type ItemType = NonNullable<BatchRequest['items'][number]['type']>;

export interface BatchItem {
  query: string;
  type?: ItemType;
  params?: Record<string, unknown>;
}

/**
 * A batch item names its payload `query` whatever the engine; each engine's own request names it
 * differently. This is the one place that maps an item onto the engine route's body, so a batch
 * item and a direct call are verified by exactly the same code.
 */
export function engineInput(type: ItemType, item: BatchItem): Record<string, unknown> {
  const params = item.params ?? {};
  switch (type) {
    case 'math':
      return { ...params, expression: item.query };
    case 'code':
      return { ...params, code: item.query };
    case 'fact':
      return { ...params, claim: item.query };
    case 'sql':
    case 'logic':
    case 'natural_language':
      return { ...params, query: item.query };
  }
}

export function verifierFor(lookup: (name: `verifier.${string}`) => Verifier | undefined, type: ItemType): Verifier | undefined {
  return lookup(`verifier.${type}`);
}
