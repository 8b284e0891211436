"""Jupyter notebooks: code cells linted as one program, located by cell, fixed cell by cell."""

from __future__ import annotations

import json
import os

import pytest

from jitlint import api
from jitlint.cli import main


def notebook(*cells: str | list[str], kernel: str = "python") -> str:
    """Build notebook JSON the way Jupyter writes it (indent 1, sources as lists of lines)."""
    out = []
    for i, cell in enumerate(cells):
        if isinstance(cell, list):  # a markdown cell
            out.append({"cell_type": "markdown", "metadata": {}, "source": cell})
            continue
        lines = cell.splitlines(keepends=True)
        out.append(
            {
                "cell_type": "code",
                "execution_count": i,
                "metadata": {},
                "outputs": [],
                "source": lines,
            }
        )
    meta = {"kernelspec": {"language": kernel, "name": kernel}}
    data = {"cells": out, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


IMPORTS = "import jax\nimport jax.numpy as jnp\n%matplotlib inline\n!pip install -q optax"
TRACED_IF = "@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
IN_PLACE = "@jax.jit\ndef g(y):\n    %time y.block_until_ready()\n    y[0] = 2\n    return y"


@pytest.fixture
def nbdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *args):
    code = main(["--no-cache", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_findings_name_cell_row_and_column(nbdir, capsys):
    (nbdir / "nb.ipynb").write_text(notebook(["# Title"], IMPORTS, TRACED_IF, IN_PLACE))
    code, out, _ = run(capsys, "nb.ipynb")
    assert code == 1
    heads = [line.split(" ", 2)[:2] for line in out.splitlines()]
    # Code cells count from 1, markdown cells do not count; rows count within the cell.
    assert heads == [["nb.ipynb:cell", "2:3:8:"], ["nb.ipynb:cell", "3:4:5:"]]
    assert "JIT101" in out.splitlines()[0] and "JIT501" in out.splitlines()[1]


def test_cells_are_one_program(nbdir, capsys):
    # The import is in cell 1, the jitted function in cell 2, the stale global in cell 3:
    # traced there with the old value, called again after the rebinding.
    cells = [
        "import jax\nscale = 2.0",
        "@jax.jit\ndef f(x):\n    return x * scale",
        "f(1.0)\nscale = 3.0\nf(1.0)",
    ]
    (nbdir / "nb.ipynb").write_text(notebook(*cells))
    _, out, _ = run(capsys, "--select", "JIT201", "nb.ipynb")
    assert out.startswith("nb.ipynb:cell 2:3:16: JIT201"), out


def test_directory_walk_finds_notebooks_but_not_checkpoints(nbdir, capsys):
    (nbdir / "nb.ipynb").write_text(notebook(IMPORTS, TRACED_IF))
    (nbdir / ".ipynb_checkpoints").mkdir()
    (nbdir / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text(notebook(TRACED_IF))
    code, out, _ = run(capsys, "--show-files")
    assert code == 0 and [os.path.relpath(p) for p in out.split()] == ["nb.ipynb"]
    code, out, _ = run(capsys)
    assert code == 1 and out.count("JIT101") == 1


@pytest.mark.parametrize(
    "magic",
    [
        "%timeit f(x)",
        "!nvidia-smi",
        "files = !ls",
        "x = %env HOME",
        "jax.jit?",
        "?jax.jit",
        "%load_ext autoreload \\\n    --more",
    ],
)
def test_magics_and_shell_escapes_are_skipped(nbdir, capsys, magic):
    (nbdir / "nb.ipynb").write_text(notebook(IMPORTS + "\n" + magic, TRACED_IF))
    code, out, _ = run(capsys, "nb.ipynb")
    assert code == 1
    assert [line.split(": ")[0] for line in out.splitlines()] == ["nb.ipynb:cell 2:3:8"]


def test_cell_magic_makes_the_cell_another_language(nbdir, capsys):
    shell = "%%bash\nif [ -z x ]; then echo hi; fi"
    writefile = "%%writefile bug.py\nimport jax\n@jax.jit\ndef h(x):\n    if x:\n        return 1"
    (nbdir / "nb.ipynb").write_text(notebook(IMPORTS, shell, writefile, TRACED_IF))
    _, out, _ = run(capsys, "nb.ipynb")
    assert [line.split(": ")[0] for line in out.splitlines()] == ["nb.ipynb:cell 4:3:8"]


def test_noqa_in_a_cell(nbdir, capsys):
    silenced = TRACED_IF.replace("if x > 0:", "if x > 0:  # noqa: JIT101")
    (nbdir / "nb.ipynb").write_text(notebook(IMPORTS, silenced))
    assert run(capsys, "nb.ipynb")[0] == 0


def test_syntax_error_in_a_cell_is_reported_in_that_cell(nbdir, capsys):
    (nbdir / "nb.ipynb").write_text(notebook(IMPORTS, "x = 1", "def broken(:\n    pass"))
    code, out, _ = run(capsys, "nb.ipynb")
    assert code == 1
    assert out.startswith("nb.ipynb:cell 3:1:12: JIT900 syntax error"), out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"cells": ["import jax"', "invalid notebook JSON"),
        ('["import jax", 2]', "invalid notebook: no `cells` list"),
        ('{"cells": [{"cell_type": "code", "source": 3, "id": "jax"}]}', "neither a string"),
    ],
)
def test_unreadable_notebook_is_one_line(nbdir, capsys, text, message):
    (nbdir / "nb.ipynb").write_text(text)
    (nbdir / "ok.py").write_text("import jax\n\n@jax.jit\ndef f(x):\n    if x:\n        pass\n")
    code, out, err = run(capsys, ".")
    assert code == 1 and "Traceback" not in err
    lines = out.splitlines()
    assert len(lines) == 2 and lines[1].startswith("ok.py:5:8: JIT101")
    assert lines[0].startswith("nb.ipynb:1:1: JIT900") and message in lines[0]


def test_fix_rewrites_only_the_changed_cell(nbdir, capsys):
    original = notebook(["# Title"], IMPORTS, TRACED_IF, IN_PLACE, "print('done')")
    path = nbdir / "nb.ipynb"
    path.write_text(original)
    code, _, err = run(capsys, "--fix", "nb.ipynb")
    assert code == 1 and "1 fixed, 1 remaining" in err
    fixed = path.read_text()
    before, after = original.splitlines(), fixed.splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert changed == [('    "    y[0] = 2\\n",', '    "    y = y.at[0].set(2)\\n",')]
    cell = json.loads(fixed)["cells"][3]["source"]
    assert cell[2] == "    %time y.block_until_ready()\n"  # the magic is kept as it was
    assert run(capsys, "nb.ipynb")[1].count("JIT501") == 0


def test_fix_with_an_added_import_keeps_cells_apart(nbdir):
    cells = ["import jax", "@jax.jit\ndef f(x):\n    x[0] = 1\n    return x"]
    outcome = api.fix_source(notebook(*cells), filename="nb.ipynb")
    fixed = json.loads(outcome.source)
    assert [c["source"] for c in fixed["cells"]][1][2] == "    x = x.at[0].set(1)\n"
    assert fixed["cells"][0]["source"] == ["import jax"]


def test_string_sources_and_unchanged_bytes(nbdir):
    data = json.dumps(
        {
            "cells": [
                {"cell_type": "code", "source": "import jax"},
                {"cell_type": "code", "source": "@jax.jit\ndef g(y):\n    y[0] = 2\n    return y"},
            ],
            "metadata": {},
        }
    )
    outcome = api.fix_source(data, filename="nb.ipynb")
    assert outcome.source.decode() == data.replace("y[0] = 2", "y = y.at[0].set(2)")
    clean = notebook(IMPORTS, "x = 1")
    assert api.fix_source(clean, filename="nb.ipynb").source == clean.encode()


def test_json_sarif_and_github_outputs_point_into_the_notebook(nbdir, capsys):
    text = notebook(IMPORTS, TRACED_IF)
    (nbdir / "nb.ipynb").write_text(text)
    _, out, _ = run(capsys, "--output-format", "json", "nb.ipynb")
    [finding] = json.loads(out)
    assert finding["cell"] == 2 and finding["location"] == {"row": 3, "column": 8}
    # SARIF and GitHub annotate the file itself: the JSON line holding the cell's line 3.
    json_line = next(i for i, line in enumerate(text.splitlines(), 1) if "if x > 0" in line)
    column = text.splitlines()[json_line - 1].index('"') + 1 + 1 + len("    if ")
    _, out, _ = run(capsys, "--output-format", "sarif", "nb.ipynb")
    [result] = json.loads(out)["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (json_line, column)
    assert result["properties"] == {"cell": 2, "row": 3, "column": 8}
    _, out, _ = run(capsys, "--output-format", "github", "nb.ipynb")
    assert f"file=nb.ipynb,line={json_line},col={column}," in out
    assert "::cell 2:3:8: `if` condition" in out
    _, out, _ = run(capsys, "--output-format", "full", "nb.ipynb")
    assert "3 |     if x > 0:" in out


def test_cache_keeps_cells(nbdir, capsys):
    (nbdir / "nb.ipynb").write_text(notebook(IMPORTS, TRACED_IF))
    first = main(["nb.ipynb"]), capsys.readouterr().out
    second = main(["nb.ipynb"]), capsys.readouterr().out
    assert first == second and "nb.ipynb:cell 2:3:8" in second[1]
    assert list((nbdir / ".jitlint_cache").rglob("*.json"))


def test_other_kernels_are_not_python(nbdir, capsys):
    (nbdir / "nb.ipynb").write_text(notebook("import jax\n" + TRACED_IF, kernel="julia"))
    assert run(capsys, "nb.ipynb")[0] == 0


def test_api_lints_notebook_text(nbdir):
    result = api.lint_source(notebook(IMPORTS, TRACED_IF), filename="nb.ipynb")
    [finding] = result.findings
    assert (finding.cell, finding.location.row, finding.code) == (2, 3, "JIT101")
