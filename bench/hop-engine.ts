/** The engine of the worker-hop bench (bench/pool-hop.ts): nothing but the round trip. */
export function echo(input: unknown): unknown {
  return input;
}
