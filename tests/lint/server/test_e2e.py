"""Drive ``jitlint server`` through a real LSP client: the editor's whole loop, end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsprotocol import types

from tests.lint.server.lsp import Session, apply_edits, workspace_edits

# Tabs, a non-ASCII identifier and an emoji before the findings on their lines: columns in
# code points (jitlint) and in UTF-16 code units (LSP) differ there.
BUGGY = (
    "import jax\n"
    "import jax.numpy as jnp\n"
    "\n"
    "\n"
    "@jax.jit\n"
    "def f(x):\n"
    "\tgröße = x\n"
    "\tif jnp.sum(größe) > 0:\n"
    "\t\tx = -x\n"
    '\ts = "🎉🎉"; x[0] = 1\n'
    "\treturn x\n"
)
CLEAN = BUGGY.replace("\tif jnp.sum(größe) > 0:\n\t\tx = -x\n", "").replace("; x[0] = 1", "")


def _code(diags: list[types.Diagnostic], code: str) -> types.Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in diags]
    return found[0]


def _utf16(line: str, prefix: str) -> int:
    """UTF-16 column of the first occurrence of ``prefix`` in ``line``."""
    return len(line[: line.index(prefix)].encode("utf-16-le")) // 2


def test_buggy_file_gets_diagnostics_at_utf16_ranges(push_session: Session, tmp_path: Path):
    uri = push_session.open(push_session.root / "ranges.py", BUGGY)
    diags = push_session.diagnostics(uri, predicate=lambda d: len(d) >= 2)
    jit101 = _code(diags, "JIT101")
    line8 = BUGGY.splitlines()[7]
    assert jit101.range == types.Range(
        start=types.Position(line=7, character=_utf16(line8, "jnp.sum")),
        end=types.Position(line=7, character=len(line8) - 1),  # up to the colon
    )
    assert jit101.source == "jitlint"
    assert jit101.severity == types.DiagnosticSeverity.Warning
    jit501 = _code(diags, "JIT501")
    line10 = BUGGY.splitlines()[9]
    start = _utf16(line10, "x[0]")
    assert start == len(line10.index("x[0]") * "a") + 2  # two emoji: two extra code units
    assert jit501.range.start == types.Position(line=9, character=start)
    assert jit501.range.end == types.Position(line=9, character=_utf16(line10, "x[0]") + 8)
    assert jit501.data["fix"]["applicability"] == "safe"


def test_editing_clean_clears_diagnostics(push_session: Session):
    uri = push_session.open(push_session.root / "clears.py", BUGGY)
    assert push_session.diagnostics(uri, predicate=bool)
    push_session.change(uri, CLEAN)
    assert push_session.diagnostics(uri) == []


def test_crlf_document_ranges(push_session: Session):
    text = BUGGY.replace("\n", "\r\n")
    uri = push_session.open(push_session.root / "crlf.py", text)
    diags = push_session.diagnostics(uri, predicate=lambda d: len(d) >= 2)
    assert _code(diags, "JIT101").range.start.line == 7
    jit501 = _code(diags, "JIT501")
    fixed = apply_edits(text, [types.TextEdit(range=jit501.range, new_text="y[0] = 2")])
    assert '\ts = "🎉🎉"; y[0] = 2\r\n' in fixed


def test_quick_fix_yields_fixed_text(push_session: Session):
    uri = push_session.open(push_session.root / "quickfix.py", BUGGY)
    diags = push_session.diagnostics(uri, predicate=lambda d: len(d) >= 2)
    jit501 = _code(diags, "JIT501")
    actions = push_session.code_actions(uri, jit501.range)
    fixes = [a for a in actions if a.kind == types.CodeActionKind.QuickFix and a.is_preferred]
    assert len(fixes) == 1, [a.title for a in actions]
    fixed = apply_edits(BUGGY, workspace_edits(fixes[0], uri))
    assert '\ts = "🎉🎉"; x = x.at[0].set(1)\n' in fixed
    # The edit is versioned (VS Code takes documentChanges), so a stale one is refused.
    assert fixes[0].edit is not None and fixes[0].edit.document_changes


def test_unsafe_fix_is_labelled(push_session: Session):
    text = "import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"
    uri = push_session.open(push_session.root / "unsafe.py", text)
    diag = _code(push_session.diagnostics(uri, predicate=bool), "JIT203")
    actions = push_session.code_actions(uri, diag.range)
    unsafe = [a for a in actions if "unsafe" in a.title]
    assert len(unsafe) == 1 and not unsafe[0].is_preferred
    assert "jax.debug.print" in apply_edits(text, workspace_edits(unsafe[0], uri))


def test_noqa_action_silences_the_finding(push_session: Session):
    uri = push_session.open(push_session.root / "noqa.py", BUGGY)
    diags = push_session.diagnostics(uri, predicate=lambda d: len(d) >= 2)
    jit101 = _code(diags, "JIT101")
    actions = push_session.code_actions(uri, jit101.range)
    ignore = [a for a in actions if a.title == "Ignore JIT101 on this line"]
    assert len(ignore) == 1
    silenced = apply_edits(BUGGY, workspace_edits(ignore[0], uri))
    assert "\tif jnp.sum(größe) > 0:  # noqa: JIT101\n" in silenced
    push_session.change(uri, silenced)
    left = push_session.diagnostics(uri)
    assert [d.code for d in left] == ["JIT501"]
    # A second code on the same line extends the comment instead of adding another.
    jit501 = left[0]
    actions = push_session.code_actions(uri, jit501.range)
    ignore = [a for a in actions if a.title == "Ignore JIT501 on this line"]
    twice = apply_edits(silenced, workspace_edits(ignore[0], uri))
    assert '\ts = "🎉🎉"; x[0] = 1  # noqa: JIT501\n' in twice
    push_session.change(uri, twice)
    assert push_session.diagnostics(uri) == []


def test_fix_all_equals_cli_fix(push_session: Session, tmp_path: Path):
    text = (
        "import jax\nimport numpy as np\n\n\n@jax.jit\ndef f(x, i):\n"
        "    x[i] = 0\n    x[0] += np.sum(x)\n    print(x)\n    return x\n"
    )
    uri = push_session.open(push_session.root / "fixall.py", text)
    push_session.diagnostics(uri, predicate=bool)
    everywhere = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
    )
    actions = push_session.code_actions(uri, everywhere, only=["source.fixAll"])
    assert [a.kind for a in actions] == ["source.fixAll.jitlint"]
    in_editor = apply_edits(text, workspace_edits(actions[0], uri))
    on_disk = tmp_path / "fixall.py"
    on_disk.write_text(text, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "jitlint", "--fix", "--no-cache", str(on_disk)],
        capture_output=True,
        check=False,
    )
    assert in_editor == on_disk.read_text(encoding="utf-8") != text
    assert "print(x)" in in_editor  # the unsafe fix is not part of fix-all


def test_hover_shows_rule_doc(push_session: Session):
    uri = push_session.open(push_session.root / "hover.py", BUGGY)
    jit101 = _code(push_session.diagnostics(uri, predicate=bool), "JIT101")
    params = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=jit101.range.start
    )
    hover = push_session.call(push_session.client.text_document_hover_async(params))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value.startswith("**JIT101** `traced-if`")
    assert "## Why is this bad" in hover.contents.value
    outside = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=0, character=0),
    )
    assert push_session.call(push_session.client.text_document_hover_async(outside)) is None


def test_notebook_cells_get_their_own_diagnostics(push_session: Session):
    nb_uri = (push_session.root / "analysis.ipynb").as_uri()
    cells = [
        ("import jax\n", types.NotebookCellKind.Code),
        ("# Notes about `f`", types.NotebookCellKind.Markup),
        (
            "@jax.jit\ndef f(x):\n    if x > 0:\n        x = -x\n    return x\n",
            types.NotebookCellKind.Code,
        ),
    ]
    cell_uris = [f"{nb_uri}#cell{i}" for i in range(len(cells))]
    params = types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=nb_uri,
            notebook_type="jupyter-notebook",
            version=1,
            cells=[
                types.NotebookCell(kind=k, document=u)
                for (_, k), u in zip(cells, cell_uris, strict=True)
            ],
        ),
        cell_text_documents=[
            types.TextDocumentItem(
                uri=u,
                language_id="python" if k == types.NotebookCellKind.Code else "markdown",
                version=1,
                text=t,
            )
            for (t, k), u in zip(cells, cell_uris, strict=True)
        ],
    )
    push_session.client.notebook_document_did_open(params)
    push_session.wait_until(lambda: bool(push_session.published.get(cell_uris[2])))
    (diag,) = push_session.published[cell_uris[2]].diagnostics
    assert diag.code == "JIT101"
    assert diag.range.start == types.Position(line=2, character=7)
    assert list(push_session.published[cell_uris[0]].diagnostics) == []


def _open_notebook(session: Session, name: str, cells: list[str]) -> list[str]:
    nb_uri = (session.root / name).as_uri()
    cell_uris = [f"{nb_uri}#cell{i}" for i in range(len(cells))]
    session.client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=nb_uri,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[
                    types.NotebookCell(kind=types.NotebookCellKind.Code, document=u)
                    for u in cell_uris
                ],
            ),
            cell_text_documents=[
                types.TextDocumentItem(uri=u, language_id="python", version=3, text=t)
                for t, u in zip(cells, cell_uris, strict=True)
            ],
        )
    )
    return cell_uris


def test_quick_fixes_noqa_and_hover_inside_notebook_cells(push_session: Session):
    second = "@jax.jit\ndef f(x):\n    if x > 0:\n        x = -x\n    x[0] = 1\n    return x\n"
    cells = _open_notebook(push_session, "fixes.ipynb", ["import jax\n", second])
    push_session.wait_until(
        lambda: len(getattr(push_session.published.get(cells[1]), "diagnostics", [])) == 2
    )
    diags = list(push_session.published[cells[1]].diagnostics)
    jit501 = _code(diags, "JIT501")
    assert jit501.range.start == types.Position(line=4, character=4)
    actions = push_session.code_actions(cells[1], jit501.range)
    (fix,) = [a for a in actions if a.is_preferred]
    edit = fix.edit
    assert edit is not None and edit.document_changes
    (change,) = edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == cells[1] and change.text_document.version == 3
    assert apply_edits(second, list(change.edits)) == second.replace(
        "x[0] = 1", "x = x.at[0].set(1)"
    )
    jit101 = _code(diags, "JIT101")
    (ignore,) = [
        a for a in push_session.code_actions(cells[1], jit101.range) if a.title.startswith("Ignore")
    ]
    assert "    if x > 0:  # noqa: JIT101\n" in apply_edits(
        second, workspace_edits(ignore, cells[1])
    )
    hover = push_session.call(
        push_session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=cells[1]),
                position=jit101.range.start,
            )
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value.startswith("**JIT101** `traced-if`")
    # The first cell has no findings: no actions, no hover.
    start = types.Position(line=0, character=0)
    assert push_session.code_actions(cells[0], types.Range(start=start, end=start)) == []
