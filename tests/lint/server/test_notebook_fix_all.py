"""`source.fixAll.jitlint` in notebook cells equals `jitlint --fix` on the same .ipynb."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lsprotocol import types

from tests.lint.server.lsp import Session, apply_edits, workspace_edits

# Fixes in two cells (one needs a second round), a magic line, a markdown cell between, and
# an unsafe fix that fix-all leaves alone.
CELLS: list[tuple[str, str]] = [
    ("code", "import jax\nimport jax.numpy as jnp\n%matplotlib inline\n"),
    ("markdown", "# The step"),
    (
        "code",
        "@jax.jit\ndef f(x, i):\n    x[i] = 0\n    x[0] += jnp.sum(x)\n    print(x)\n    return x",
    ),
    ("code", "@jax.jit\ndef g(y):\n    y[1] = 2\n    return y\n"),
    ("code", "f(jnp.ones(3), 0)\n"),
]
EVERYWHERE = types.Range(
    start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
)


def _write_ipynb(path: Path) -> None:
    cells = []
    for kind, text in CELLS:
        cell: dict[str, object] = {
            "cell_type": kind,
            "metadata": {},
            "source": text.splitlines(keepends=True),
        }
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    nb = {
        "cells": cells,
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb, indent=1) + "\n", encoding="utf-8")


def _open(session: Session, name: str) -> list[str]:
    nb_uri = (session.root / name).as_uri()
    uris = [f"{nb_uri}#cell{i}" for i in range(len(CELLS))]
    kinds = {"code": types.NotebookCellKind.Code, "markdown": types.NotebookCellKind.Markup}
    session.client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=nb_uri,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[
                    types.NotebookCell(kind=kinds[k], document=u)
                    for (k, _), u in zip(CELLS, uris, strict=True)
                ],
            ),
            cell_text_documents=[
                types.TextDocumentItem(
                    uri=u, language_id="python" if k == "code" else "markdown", version=1, text=t
                )
                for (k, t), u in zip(CELLS, uris, strict=True)
            ],
        )
    )
    return uris


def _cli_fixed_cells(tmp_path: Path) -> list[str]:
    on_disk = tmp_path / "cli.ipynb"
    _write_ipynb(on_disk)
    subprocess.run(
        [sys.executable, "-m", "jitlint", "--fix", "--no-cache", str(on_disk)],
        capture_output=True,
        check=False,
    )
    nb = json.loads(on_disk.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"]]


def test_fix_all_per_cell_equals_cli_fix_of_the_ipynb(push_session: Session, tmp_path: Path):
    uris = _open(push_session, "fixall.ipynb")
    push_session.wait_until(lambda: bool(push_session.published.get(uris[2])))
    in_editor = []
    for (kind, text), uri in zip(CELLS, uris, strict=True):
        if kind != "code":
            in_editor.append(text)
            continue
        actions = push_session.code_actions(uri, EVERYWHERE, only=["source.fixAll"])
        assert [a.kind for a in actions] == (["source.fixAll.jitlint"] if "[" in text else [])
        for action in actions:
            assert action.edit is not None and action.edit.document_changes
            assert {c.text_document.uri for c in action.edit.document_changes} == {uri}
            text = apply_edits(text, workspace_edits(action, uri))
        in_editor.append(text)
    expected = _cli_fixed_cells(tmp_path)
    assert in_editor == expected
    assert expected[2] != CELLS[2][1] and expected[3] != CELLS[3][1]
    assert "x = x.at[i].set(0)" in expected[2] and "print(x)" in expected[2]
    assert "%matplotlib inline" in expected[0]


def test_notebook_fix_all_edits_every_cell(push_session: Session, tmp_path: Path):
    uris = _open(push_session, "whole.ipynb")
    push_session.wait_until(lambda: bool(push_session.published.get(uris[2])))
    (action,) = push_session.code_actions(uris[0], EVERYWHERE, only=["notebook.source.fixAll"])
    assert action.kind == "notebook.source.fixAll.jitlint"
    texts = [
        apply_edits(t, workspace_edits(action, u)) for (_, t), u in zip(CELLS, uris, strict=True)
    ]
    assert texts == _cli_fixed_cells(tmp_path)
