"""The fast position pass and the fast ``children`` agree with libcst on real files."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from jitlint.analysis.cst_util import children, descendants
from jitlint.engine.positions import PositionCache, locate

LINT = Path(__file__).resolve().parent
FILES = sorted((LINT / "corpus").glob("*.py")) + sorted((LINT / "realworld").glob("*.py"))
# Layouts the corpus rarely has: tabs, CRLF and lone CR, non-ASCII, a file without a final
# newline, comments owned by a block's footer, a backslash continuation, decorators.
ODD = [
    'def f(x):\n\tr = "é😀\\\n"  # ü\n\treturn x\r\nclass A:\r  pass\n',
    "import jax\r\n\r\n@jax.jit\r\ndef f(x):\r\n    if x > 0:\r\n        return x\r\n    # end\r\n",
    "# header\n\nx = (1 +\n     2)  # c\ny = 1 \\\n    + 2\nif x:\n  pass\n"
    "  # footer\n# next\nz = [\n]",
    "@a\n@b(\n  c)\nclass K:\n    def m(self): return 1\n\n\n    # tail\n",
]


def _texts() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in FILES]
    return texts + [t.replace("\n", "\r\n") for t in texts[:20]] + ODD


def _expected(module: cst.Module) -> dict[int, tuple[tuple[int, int], tuple[int, int]]]:
    """libcst's positions, per statement as the engine used to compute them."""
    out = {}
    offset = len(module.header)
    for stmt in module.body:
        single = module.with_changes(body=(stmt,), header=(), footer=())
        ranges = MetadataWrapper(single, unsafe_skip_copy=True).resolve(PositionProvider)
        for node in descendants(stmt):
            r = ranges[node]
            out[id(node)] = (
                (r.start.line + offset, r.start.column),
                (r.end.line + offset, r.end.column),
            )
        offset += (
            len(module.code_for_node(stmt).replace("\r\n", "\n").replace("\r", "\n").split("\n"))
            - 1
        )
    return out


def _as_pairs(ranges: dict[int, CodeRange]) -> dict[int, tuple[tuple[int, int], tuple[int, int]]]:
    return {
        k: ((r.start.line, r.start.column), (r.end.line, r.end.column)) for k, r in ranges.items()
    }


@pytest.mark.parametrize("chunk", range(4))
def test_locate_matches_libcst_positions(chunk: int) -> None:
    texts = _texts()[chunk::4]
    assert texts
    for text in texts:
        module = cst.parse_module(text)
        nodes = [n for stmt in module.body for n in descendants(stmt)]
        expected = _expected(module)
        assert _as_pairs(locate(module, nodes)) == expected
        cache = PositionCache()
        assert _as_pairs(locate(module, nodes, cache)) == expected
        assert _as_pairs(locate(module, nodes, cache)) == expected  # from the cache


def test_locate_a_few_nodes_and_the_module() -> None:
    module = cst.parse_module(ODD[2])
    name = next(n for n in descendants(module) if isinstance(n, cst.Name) and n.value == "z")
    (found,) = locate(module, [name]).values()
    assert (found.start.line, found.start.column, found.end.column) == (11, 0, 1)
    whole = locate(module, [module])[id(module)]
    assert (whole.start.line, whole.start.column) == (1, 0)
    assert locate(module, []) == {}


def test_children_match_libcst() -> None:
    for text in _texts():
        stack: list[cst.CSTNode] = [cst.parse_module(text)]
        while stack:
            node = stack.pop()
            expected = list(node.children)
            got = list(children(node))
            assert len(got) == len(expected)
            assert all(a is b for a, b in zip(got, expected, strict=True)), type(node).__name__
            stack.extend(expected)
