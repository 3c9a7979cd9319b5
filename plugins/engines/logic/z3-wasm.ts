import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';

/**
 * z3's wasm without its `name` section. V8 keeps a module's whole binary for the module's life (lazy
 * compilation reads function bodies from it), and 4.9 of z3-built.wasm's 35 MB is the name section:
 * function names that only wasm stack traces show. Dropping it changes no instruction, so no verdict;
 * a trap's message is the same, its stack shows function indices instead of names.
 */
const WASM = createRequire(import.meta.url).resolve('z3-solver/build/z3-built.wasm');

/**
 * glibc raises its mmap threshold to the size of a freed mmap'd block of up to 32 MiB, and every
 * later malloc below that lands in heap arenas that keep freed pages resident. The file buffer is
 * freed once compiled, so it is allocated above 32 MiB (only the pages written are resident): freeing
 * a block of 30 MB raised the threshold and the worker ended up 5 MB larger instead of smaller.
 */
const ABOVE_GLIBC_MMAP_THRESHOLD_MAX = 32 * 1024 * 1024 + 64 * 1024;

/**
 * [start, end) byte ranges of a wasm binary of `size` bytes to keep: every section but custom
 * sections named `name`. `head(pos)` gives the bytes from `pos` on, at least a section header's worth.
 */
export async function keptRanges(head: (pos: number) => Promise<Uint8Array>, size: number): Promise<Array<[number, number]>> {
  const keep: Array<[number, number]> = [];
  let from = 0;
  let pos = 8; // magic and version
  while (pos < size) {
    const h = await head(pos);
    const [len, at] = leb(h, 1);
    const end = pos + at + len;
    if (end > size) throw new Error('z3 wasm: a section runs past the end of the file');
    if (h[0] === 0) {
      const [nameLen, nameAt] = leb(h, at);
      if (nameLen === 4 && Buffer.from(h.subarray(nameAt, nameAt + 4)).toString('latin1') === 'name') {
        if (pos > from) keep.push([from, pos]);
        from = end;
      }
    }
    pos = end;
  }
  if (size > from) keep.push([from, size]);
  return keep;
}

/** an unsigned LEB128 at `i`: its value and the index after it */
function leb(b: Uint8Array, i: number): [number, number] {
  let v = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (i >= b.length) break;
    const byte = b[i++];
    v += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [v, i];
  }
  throw new Error('z3 wasm: malformed section header');
}

/** the part of the WebAssembly API used here (the project's `lib` settings carry no WebAssembly types) */
type WasmModule = object;
type WasmInstance = { exports: object };
const wasm = (globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule>; Instance: new (module: WasmModule, imports: object) => WasmInstance };
}).WebAssembly;

let compiled: Promise<WasmModule> | null = null;

/**
 * The compiled module, shared by every z3 instance this thread loads (a fresh one after a trap needs
 * fresh memory, not a fresh compilation: a module holds no state).
 */
export function z3Module(): Promise<WasmModule> {
  compiled ??= compile();
  compiled.catch(() => {
    compiled = null;
  });
  return compiled;
}

async function compile(): Promise<WasmModule> {
  const fh = await open(WASM);
  try {
    const { size } = await fh.stat();
    const header = Buffer.alloc(32);
    const keep = await keptRanges(async (pos) => {
      const { bytesRead } = await fh.read(header, 0, header.length, pos);
      return header.subarray(0, bytesRead);
    }, size);
    const total = keep.reduce((n, [s, e]) => n + e - s, 0);
    const bytes = Buffer.allocUnsafeSlow(Math.max(total, ABOVE_GLIBC_MMAP_THRESHOLD_MAX)).subarray(0, total);
    let at = 0;
    for (const [s, e] of keep) {
      for (let p = s; p < e; ) {
        const { bytesRead } = await fh.read(bytes, at, e - p, p);
        if (bytesRead === 0) throw new Error('z3 wasm: the file ended early');
        p += bytesRead;
        at += bytesRead;
      }
    }
    return await wasm.compile(bytes);
  } finally {
    await fh.close();
  }
}

/**
 * emscripten's `instantiateWasm` hook: the glue's imports instantiated on the module above. Synchronous,
 * so a failure reaches the glue's own error path (init() rejects) instead of leaving init() pending.
 */
export function instantiateWith(module: WasmModule) {
  return (imports: object, receive: (instance: WasmInstance, module: WasmModule) => unknown): object => {
    const instance = new wasm.Instance(module, imports);
    receive(instance, module);
    return instance.exports;
  };
}
