import type { PyNode, PyParse } from '../pynode.js';

/**
 * The start-up check of the fast path: on a sample that uses every construct the fast parser
 * builds, its tree must be tree-sitter's, node for node. A tree-sitter-python whose trees differ
 * (an upgrade that renames or reshapes nodes) turns the fast path off for the thread instead of
 * handing the rules trees of the old shape.
 */
export const SAMPLE = `# sample: every construct of the fast path
import os, sys as system
from . import sibling
from ..pkg.mod import (a as b, c)
from m import *


@decorator(arg, key=1)
class C(Base, metaclass=M):
    """doc \\x41 \\n"""
    x: int = 1
    y: List[Dict[str, int]]

    def m(self, a, /, b=2, *args: int, c: "T" = None, **kw) -> Optional[str]:
        global g
        nonlocal_ = lambda p, q=1, *r, **s: p if q else -r
        for i, (j, k) in enumerate(zip(a, b)):  # trailing
            if i < j <= k and not i in a or i is not None:
                continue
            elif j != k:
                break
            else:
                pass
        else:
            del a[0], b.c
        while a:
            a -= 1
        try:
            with open(f) as fh, lock:
                data = fh.read()[1:-1:2]
        except (OSError, ValueError) as exc:
            raise RuntimeError("x") from exc
        except Exception:
            raise
        else:
            assert data, "empty"
        finally:
            x = y = [n ** 2 for n in range(10) if n % 2]
        s = {k: v for k, v in kw.items()}
        t = {1, 2, *args}
        u = (yield), (n for n in a)
        v = f"{a!r:>10} {b.c[0]} {{}}" rb"x\\d" 'q' + ~1 // 2 << 3 | 4 & 5 ^ 6 @ m
        w = [*args], (*args,), {**kw}, (), [], {}, ..., 1.5e3, 0x1F, True, False
        return a, b


async def co(session, *urls):
    async with session.get(urls[0]) as r:
        async for chunk in r:
            yield await chunk.read() ** 2
`;

function line(n: PyNode, at: Map<PyNode, number>): string {
  return `${n.type}|${n.field}|${n.named}|${n.start}|${n.end}|${n.children.length}|${n.parent ? at.get(n.parent) : -1}`;
}

/** Whether the two parses of the sample are the same tree (and the fast one exists). */
export function sameTrees(fast: PyParse | null, slow: PyParse): boolean {
  if (!fast || !fast.root || !slow.root || slow.error || fast.nodes.length !== slow.nodes.length) return false;
  const fastAt = new Map(fast.nodes.map((n, i) => [n, i]));
  const slowAt = new Map(slow.nodes.map((n, i) => [n, i]));
  return fast.nodes.every((n, i) => line(n, fastAt) === line(slow.nodes[i], slowAt));
}
