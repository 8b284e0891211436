"""Autofix: fixture pairs to the character, the fix invariants, --fix/--diff on the CLI."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from jitlint.cli import main
from jitlint.engine.fixing import fix_source
from jitlint.engine.lint import lint_source
from jitlint.engine.settings import Settings
from jitlint.fixes import edits
from jitlint.fixes.apply import applicable, apply, apply_checked
from jitlint.model import Applicability, Edit, Fix, Location

FIXTURES = Path(__file__).parent / "fixes"
PAIRS = sorted(p.name.removesuffix(".in.py") for p in FIXTURES.glob("*.in.py"))
SETTINGS = Settings()


def _fix(source: bytes, unsafe: bool = True, name: str = "case.py") -> bytes:
    return fix_source(name, source, SETTINGS, unsafe=unsafe).source


def test_every_input_has_an_expected_output():
    assert len(PAIRS) >= 6
    for name in PAIRS:
        assert (FIXTURES / f"{name}.out.py").is_file(), name


@pytest.mark.parametrize("name", PAIRS)
def test_fix_output_to_the_character(name):
    before = (FIXTURES / f"{name}.in.py").read_bytes()
    expected = (FIXTURES / f"{name}.out.py").read_text(encoding="utf-8")
    after = _fix(before)
    assert after.decode() == expected
    cst.parse_module(after)  # a fixed file always parses
    assert _fix(after) == after, "fixing twice changes nothing the second time"
    left = lint_source("case.py", after, SETTINGS).findings
    assert [f for f in left if applicable(f, unsafe=True)] == [], "fixed findings are gone"


@pytest.mark.parametrize("name", PAIRS)
def test_every_fixable_finding_is_fixed_or_explained(name):
    """Each input line with a finding either changes or says why it has no fix."""
    before = (FIXTURES / f"{name}.in.py").read_bytes()
    result = lint_source("case.py", before, SETTINGS)
    assert result.findings, "a fixture must have findings"
    lines = before.decode().splitlines()
    for f in result.findings:
        if f.fix is None:
            assert "no fix" in lines[f.location.row - 1], (f.code, f.location)


def test_safe_fixes_leave_unsafe_ones_alone():
    source = (FIXTURES / "mixed_no_imports.in.py").read_bytes()
    outcome = fix_source("case.py", source, SETTINGS, unsafe=False)
    text = outcome.source.decode()
    assert 'print("value", x)' in text  # JIT203's fix is unsafe
    assert "jnp.sqrt(x)" in text and "import jax.numpy as jnp" in text  # JIT402's is safe
    assert outcome.fixed == 1
    assert [f.code for f in outcome.result.findings] == ["JIT203"]


def test_fix_keeps_bom_crlf_and_declared_encoding():
    source = (
        "\ufeffimport jax\r\nimport numpy as np\r\n\r\n@jax.jit\r\ndef f(x):\r\n"
        "    return np.sqrt(x)  # é\r\n"
    ).encode("utf-8")
    after = _fix(source)
    assert after.startswith(b"\xef\xbb\xbf")
    text = after.decode("utf-8-sig")
    assert "jax.numpy.sqrt(x)  # é\r\n" in text and "\n" not in text.replace("\r\n", "")
    latin = (
        "# -*- coding: latin-1 -*-\nimport jax\n\n@jax.jit\ndef f(x):\n    print('café', x)\n"
    ).encode("latin-1")
    after = _fix(latin)
    assert 'jax.debug.print("café {}", x)'.encode("latin-1") in after


def test_new_imports_go_after_docstring_and_before_code_when_none_exist():
    source = b'"""Doc."""\n\n@__import__("jax").jit\ndef f(x):\n    print(x)\n'
    # No import at all: the fix cannot reach `jax` through any alias, so it adds one.
    module = cst.parse_module(source)
    ref, imports = edits.reference(module, "jax.debug.print")
    assert (ref, imports) == ("jax.debug.print", ("import jax",))
    module = cst.parse_module("import jax.numpy as jnp\nimport numpy as np\n")
    assert edits.reference(module, "jax.numpy.sum") == ("jnp.sum", ())
    module = cst.parse_module("import numpy as np\njnp = None\n")
    assert edits.reference(module, "jax.numpy.sum") == ("jax.numpy.sum", ("import jax",))
    module = cst.parse_module("jax = 1\n")
    with pytest.raises(LookupError):
        edits.reference(module, "jax.debug.print")


def _edit(row: int, col: int, end_col: int, content: str) -> Edit:
    return Edit(Location(row, col), Location(row, end_col), content)


def test_overlapping_fixes_wait_for_the_next_round_and_shared_imports_merge():
    text = "a = [1]\n"
    imp = _edit(1, 1, 1, "import x\n")
    first = Fix("one", Applicability.SAFE, (_edit(1, 5, 8, "(1,)"), imp))
    second = Fix("two", Applicability.SAFE, (_edit(1, 6, 7, "2"), imp))
    third = Fix("three", Applicability.SAFE, (_edit(1, 1, 2, "b"), imp))
    new, count = apply(text, [second, first, third])
    assert count == 2
    assert new == "import x\nb = [2]\n"


def test_a_fix_that_breaks_the_file_is_never_applied():
    text = "x = 1\ny = 2\nz = 3\n"
    broken = Fix("bad", Applicability.SAFE, (_edit(1, 5, 6, "(("),))
    good = Fix("good", Applicability.SAFE, (_edit(2, 5, 6, "3"),))
    other = Fix("other", Applicability.SAFE, (_edit(3, 5, 6, "4"),))
    new, count = apply_checked(text, [broken, good, other])
    assert (new, count) == ("x = 1\ny = 3\nz = 4\n", 2)  # the good ones still go in
    assert apply_checked(text, [broken]) == (text, 0)


# The command line -------------------------------------------------------------------------
BAD = (FIXTURES / "mixed_no_imports.in.py").read_text(encoding="utf-8")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text(BAD)
    return tmp_path


def test_diff_prints_and_writes_nothing(project, capsys):
    code = main(["--diff", "--unsafe-fixes", "bad.py"])
    out, err = capsys.readouterr()
    assert code == 1
    assert out.startswith("--- a/bad.py\n+++ b/bad.py\n")
    assert '+    jax.debug.print("value {}", x)\n' in out and "+import jax\n" in out
    assert (project / "bad.py").read_text() == BAD
    assert err.strip() == "Would fix 2 errors."
    (project / "clean.py").write_text("import jax\n")
    assert main(["--diff", "clean.py"]) == 0


def test_fix_writes_reports_what_is_left_and_summarises(project, capsys):
    code = main(["--fix", "bad.py"])
    out, err = capsys.readouterr()
    assert code == 1  # the unsafe print fix was not applied
    assert out.startswith("bad.py:10:5: JIT203 `print`")  # moved down by the added import
    assert err.splitlines()[0] == "Found 2 errors (1 fixed, 1 remaining)."
    assert "jnp.sqrt(x)" in (project / "bad.py").read_text()
    code = main(["--fix", "--unsafe-fixes", "bad.py"])
    out, err = capsys.readouterr()
    assert (code, out) == (0, "")
    assert err.strip() == "Found 1 error (1 fixed, 0 remaining)."
    # Same lines as the one-shot fix; only the order of the two added imports differs.
    got = (project / "bad.py").read_text().splitlines()
    assert sorted(got) == sorted((FIXTURES / "mixed_no_imports.out.py").read_text().splitlines())


def test_fixable_findings_are_marked(project, capsys):
    main(["bad.py"])
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert "JIT203 `print`" in lines[0] and "[*]" not in lines[0]  # unsafe: not marked by default
    assert "JIT402 [*] " in lines[1]
    assert "[*] 1 fixable with `jitlint --fix`." in err
    main(["--unsafe-fixes", "bad.py"])
    out, _ = capsys.readouterr()
    assert "JIT203 [*] " in out


def test_fix_from_stdin_writes_the_fixed_source(project, capsysbinary, monkeypatch):
    import io
    import sys

    stdin = io.TextIOWrapper(io.BytesIO(BAD.encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    code = main(["--fix", "--unsafe-fixes", "-", "--stdin-filename", "bad.py"])
    out, _ = capsysbinary.readouterr()
    assert code == 0
    assert out == (FIXTURES / "mixed_no_imports.out.py").read_bytes()
