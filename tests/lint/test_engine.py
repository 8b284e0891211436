"""The engine: discovery, the prefilter, bad input, noqa, positions and internal errors."""

from __future__ import annotations

import libcst as cst

from jitlint.engine.discovery import discover
from jitlint.engine.lint import lint_file, lint_source
from jitlint.engine.settings import Settings
from jitlint.rules.base import Rule

BAD = b"import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


def _codes(result):
    return [(f.location.row, f.code) for f in result.findings]


def test_discovery_recurses_and_skips_tool_and_environment_dirs(tmp_path):
    for rel in [
        "pkg/a.py",
        "pkg/sub/b.py",
        "pkg/notes.txt",
        ".git/c.py",
        ".venv/lib/d.py",
        "venv/e.py",
        "myenv/f.py",
        "build/g.py",
        "dist/h.py",
        "pkg/__pycache__/i.py",
        "node_modules/j.py",
        "generated/k.py",
    ]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr\n")
    settings = Settings(exclude=("generated",), root=str(tmp_path))
    found = sorted(p for p, err in discover([str(tmp_path)], settings) if err is None)
    assert found == [str(tmp_path / "pkg/a.py"), str(tmp_path / "pkg/sub/b.py")]


def test_nonexistent_path_is_an_error_line(tmp_path):
    missing = str(tmp_path / "nope.py")
    assert list(discover([missing], Settings())) == [
        (missing, f"{missing}: No such file or directory")
    ]


def test_prefilter_skips_files_that_never_mention_jax():
    result = lint_source("a.py", b"def f(x):\n    if x > 0:\n        pass\n(", Settings())
    assert result.skipped and not result.findings


def test_configured_wrapper_name_passes_the_prefilter():
    source = b"from mylib import compile_step\n\n@compile_step\ndef f(x):\n    if x:\n  pass\n"
    settings = Settings(extend_jit_wrappers=frozenset({"mylib.compile_step"}))
    assert not lint_source("a.py", source, settings).skipped


def test_syntax_error_is_a_file_level_finding():
    result = lint_source("a.py", b"import jax\ndef f(:\n", Settings())
    [finding] = result.findings
    assert (finding.code, finding.name, finding.location.row) == ("JIT900", "syntax-error", 2)
    assert result.errors == []


def test_undecodable_bytes_are_reported_not_raised():
    result = lint_source("a.py", b"import jax\nx = '\xff\xfe'\n", Settings())
    [finding] = result.findings
    assert finding.code == "JIT900" and "decode" in finding.message


def test_empty_bom_and_crlf_files():
    assert lint_source("a.py", b"", Settings()).findings == []
    bom = b"\xef\xbb\xbf" + BAD
    assert _codes(lint_source("a.py", bom, Settings())) == [(5, "JIT101")]
    crlf = BAD.replace(b"\n", b"\r\n")
    assert _codes(lint_source("a.py", crlf, Settings())) == [(5, "JIT101")]


def test_positions_are_one_based():
    [finding] = lint_source("a.py", BAD, Settings()).findings
    assert (finding.location.row, finding.location.column) == (5, 8)
    assert (finding.end_location.row, finding.end_location.column) == (5, 13)


def test_noqa_forms():
    def lint(line_suffix: str, extra: bytes = b"") -> list[tuple[int, str]]:
        source = BAD.replace(b"if x > 0:", b"if x > 0:" + line_suffix.encode()) + extra
        return _codes(lint_source("a.py", source, Settings()))

    assert lint("") == [(5, "JIT101")]
    assert lint("  # noqa") == []
    assert lint("  # noqa: JIT101") == []
    assert lint("  # noqa: JIT202, JIT101") == []
    assert lint("  # noqa: JIT202") == [(5, "JIT101")]
    assert lint("", b"# jitlint: noqa\n") == []


def test_per_file_ignores_and_selection():
    settings = Settings(per_file_ignores=(("tests/*", frozenset({"JIT1"})),))
    assert _codes(lint_source("tests/a.py", BAD, settings)) == []
    assert _codes(lint_source("src/a.py", BAD, settings)) == [(5, "JIT101")]
    assert _codes(lint_source("a.py", BAD, Settings(select=frozenset({"JIT203"})))) == []


class _Boom(Rule):
    code = "JIT999"
    name = "boom"
    message = "boom; never"

    def visit_If(self, node: cst.If, ctx) -> None:
        raise ValueError("rule bug")


def test_a_crashing_rule_is_an_internal_error_for_that_file_only():
    settings = Settings(select=frozenset({"JIT999"}))
    result = lint_source("a.py", BAD, settings, rules=[_Boom()])
    assert result.errors == ["a.py: internal error: ValueError: rule bug"]
    assert lint_source("b.py", BAD, Settings()).errors == []


def test_unreadable_file_is_an_error_line(tmp_path):
    directory = tmp_path / "dir.py"
    directory.mkdir()
    result = lint_file(str(directory), Settings())
    assert len(result.errors) == 1 and result.errors[0].startswith(str(directory))


def test_deeply_nested_expression_does_not_crash():
    source = b"import jax\n@jax.jit\ndef f(x):\n    return " + b"(" * 60 + b"x" + b")" * 60 + b"\n"
    result = lint_source("a.py", source, Settings())
    assert result.findings == []


def test_long_operator_chain_deeper_than_the_default_recursion_limit():
    chain = " + ".join(["x"] * 1500).encode()
    source = (
        b"import jax\n@jax.jit\ndef f(x):\n    y = "
        + chain
        + b"\n    if y > 0:\n        return y\n"
    )
    result = lint_source("a.py", source, Settings())
    assert result.errors == []
    assert _codes(result) == [(5, "JIT101")]
