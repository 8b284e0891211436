"""Project mode in the server: trace paths as related information, and saved files refresh
the open files that depend on them (through a real LSP client)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lint.server.conftest import capabilities
from tests.lint.server.lsp import Session

MODEL = (
    "import jax.numpy as jnp\n\n\ndef helper(x):\n    if jnp.sum(x) > 0:\n        return x\n"
    "    return -x\n"
)
TRAIN = (
    "import jax\n\nfrom pkg.model import helper\n\n\n@jax.jit\ndef step(x):\n    return helper(x)\n"
)


def _start(root: Path, client: str) -> Session:
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "train.py").write_text(TRAIN, encoding="utf-8")
    return Session(root, capabilities(client), init_options={"project": True})


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Session]:
    session = _start(tmp_path, "visual_studio_code_v1.65.2")  # pushed diagnostics
    yield session
    session.close()


@pytest.fixture
def pulling(tmp_path: Path) -> Iterator[Session]:
    session = _start(tmp_path, "neovim_v0.11.0")  # pulled diagnostics
    yield session
    session.close()


def _save(session: Session, path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    session.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(path.as_uri()))
    )


def test_trace_path_becomes_related_information(project: Session) -> None:
    model = project.root / "pkg" / "model.py"
    uri = project.open(model, MODEL)
    (diag,) = project.diagnostics(uri, predicate=bool)
    assert diag.code == "JIT101"
    assert diag.range.start == types.Position(line=4, character=7)
    related = diag.related_information or []
    train_uri = (project.root / "pkg" / "train.py").as_uri()
    assert [(r.location.uri, r.location.range.start.line) for r in related] == [
        (train_uri, 6),  # `def step` (0-based line 6), jitted: where the trace starts
        (uri, 3),  # `def helper`, which it calls
    ]
    assert related[0].message == "traced by jax.jit from `step`"
    assert related[1].message == "which calls `helper`"


def test_saving_a_file_refreshes_the_open_files_that_depend_on_it(project: Session) -> None:
    model, train = project.root / "pkg" / "model.py", project.root / "pkg" / "train.py"
    model_uri = project.open(model, MODEL)
    assert project.diagnostics(model_uri, predicate=bool)
    train_uri = project.open(train, TRAIN)
    project.diagnostics(train_uri)
    # The entry point stops jitting: once saved, helper is no longer traced.
    untraced = TRAIN.replace("@jax.jit\n", "")
    project.change(train_uri, untraced)
    project.on_loop(lambda: project.published.pop(model_uri, None))
    _save(project, train, untraced)
    assert project.diagnostics(model_uri, predicate=lambda d: True) == []
    # And back: saving the jit again brings the finding back in the other file.
    project.change(train_uri, TRAIN)
    project.on_loop(lambda: project.published.pop(model_uri, None))
    _save(project, train, TRAIN)
    (diag,) = project.diagnostics(model_uri, predicate=bool)
    assert diag.code == "JIT101" and diag.related_information


def test_unsaved_text_keeps_its_project_findings(project: Session) -> None:
    model = project.root / "pkg" / "model.py"
    uri = project.open(model, MODEL)
    assert project.diagnostics(uri, predicate=bool)
    # Unsaved: the project analysis reads the open text, not the disk.
    project.change(uri, "\n" + MODEL)
    (diag,) = project.diagnostics(uri, predicate=bool)
    assert diag.code == "JIT101" and diag.range.start.line == 5


PLAIN = MODEL.replace("    if jnp.sum(x) > 0:\n        return x\n", "")


def test_an_unsaved_edit_gets_the_findings_its_importers_cause(project: Session) -> None:
    model = project.root / "pkg" / "model.py"
    uri = project.open(model, PLAIN)
    assert project.diagnostics(uri) == []
    # helper, traced from train.py's jitted step (on disk), gains a traced `if`: not saved.
    project.change(
        uri, PLAIN.replace("    return -x", "    if x > 0:\n        x = -x\n    return x")
    )
    (diag,) = project.diagnostics(uri, predicate=bool)
    assert diag.code == "JIT101" and diag.range.start == types.Position(line=4, character=7)
    assert diag.related_information
    assert model.read_text(encoding="utf-8") == PLAIN


def test_an_unsaved_edit_refreshes_the_open_files_that_depend_on_it(project: Session) -> None:
    model, train = project.root / "pkg" / "model.py", project.root / "pkg" / "train.py"
    model_uri = project.open(model, MODEL)
    assert project.diagnostics(model_uri, predicate=bool)
    train_uri = project.open(train, TRAIN)
    project.diagnostics(train_uri)
    # train.py stops jitting, unsaved: model.py's helper is no longer traced.
    project.on_loop(lambda: project.published.pop(model_uri, None))
    project.change(train_uri, TRAIN.replace("@jax.jit\n", ""))
    assert project.diagnostics(model_uri) == []
    # And jits again, through another name, still unsaved: the finding is back in model.py.
    project.on_loop(lambda: project.published.pop(model_uri, None))
    rejit = TRAIN.replace("@jax.jit\ndef step", "def step") + "\n\nfast = jax.jit(step)\n"
    project.change(train_uri, rejit)
    (diag,) = project.diagnostics(model_uri, predicate=bool)
    assert diag.code == "JIT101" and diag.related_information
    assert train.read_text(encoding="utf-8") == TRAIN


def _pull(session: Session, uri: str, previous: str | None = None) -> object:
    params = types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous
    )
    return session.call(session.client.text_document_diagnostic_async(params))


def test_a_pulling_client_sees_the_refresh_after_a_save(pulling: Session) -> None:
    model, train = pulling.root / "pkg" / "model.py", pulling.root / "pkg" / "train.py"
    uri = pulling.open(model, MODEL)
    report = _pull(pulling, uri)
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    (diag,) = report.items
    assert diag.code == "JIT101" and diag.related_information
    train_uri = pulling.open(train, TRAIN)
    untraced = TRAIN.replace("@jax.jit\n", "")
    pulling.change(train_uri, untraced)
    _save(pulling, train, untraced)
    # Same version of model.py, but its diagnostics changed: not "unchanged".
    fresh = _pull(pulling, uri, report.result_id)
    assert isinstance(fresh, types.RelatedFullDocumentDiagnosticReport)
    assert list(fresh.items) == []
