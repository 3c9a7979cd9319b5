import t from 'tap';
import { keptRanges, z3Module } from '../../../../plugins/engines/logic/z3-wasm.js';
import { solve, warmup } from '../../../../plugins/engines/logic/engine.js';

interface Wasm {
  validate(bytes: Uint8Array): boolean;
  Module: { customSections(module: object, name: string): ArrayBuffer[] };
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

/** a custom section: id 0, size, name, payload (sizes below 128, one LEB byte each) */
const custom = (name: string, payload: number[]): number[] => {
  const body = [name.length, ...Buffer.from(name, 'latin1'), ...payload];
  return [0, body.length, ...body];
};
const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
/** a type section declaring one () -> () function type */
const TYPES = [1, 4, 1, 0x60, 0, 0];

const from = (bytes: number[]) => async (pos: number) => Uint8Array.from(bytes.slice(pos, pos + 32));
const cut = (bytes: number[], ranges: Array<[number, number]>) => Uint8Array.from(ranges.flatMap(([s, e]) => bytes.slice(s, e)));

t.test('keptRanges drops the name section wherever it sits and keeps every other section', async (t) => {
  const names = custom('name', [1, 2, 3, 4, 5]);
  const features = custom('target_features', [0]);
  const bytes = [...HEADER, ...TYPES, ...names, ...features];
  const ranges = await keptRanges(from(bytes), bytes.length);
  const kept = cut(bytes, ranges);
  t.same([...kept], [...HEADER, ...TYPES, ...features]);
  t.ok(wasm.validate(kept), 'what is left is a valid module');

  const middle = [...HEADER, ...names, ...TYPES];
  t.same([...cut(middle, await keptRanges(from(middle), middle.length))], [...HEADER, ...TYPES]);

  // a custom section whose name merely starts with "name" stays
  const other = [...HEADER, ...custom('names', [9]), ...TYPES];
  t.same(await keptRanges(from(other), other.length), [[0, other.length]]);
});

t.test('keptRanges refuses a section that runs past the end of the file', async (t) => {
  const bytes = [...HEADER, 1, 100, 1];
  await t.rejects(keptRanges(from(bytes), bytes.length), /past the end/);
});

t.test("z3's module is compiled without its name section, keeps its other custom sections, and solves", async (t) => {
  const module = await z3Module();
  t.equal(wasm.Module.customSections(module, 'name').length, 0, 'no name section');
  t.equal(wasm.Module.customSections(module, 'target_features').length, 1, 'target_features kept');
  t.equal(await z3Module(), module, 'one compilation per thread');
  await warmup();
  t.match(await solve({ query: '(AND (GT x 5) (LT x 7))' }), { status: 'SAT', model: { x: '6' } });
  t.match(await solve({ query: '(AND (GT x 5) (LT x 5))' }), { status: 'UNSAT' });
});
