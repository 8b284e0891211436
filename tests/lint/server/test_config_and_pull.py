"""Configuration (pyproject per workspace folder, client settings) and pulled diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lint.server.conftest import capabilities
from tests.lint.server.lsp import Session

BUG = (
    "import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n"
    "    if x > 0:\n        x = -x\n    return x\n"
)


def _codes(diags: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diags)


def _watched(session: Session, path: Path) -> None:
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Changed)]
        )
    )


@pytest.mark.slow
def test_folders_config_client_settings_and_reload(tmp_path: Path):
    """Two workspace folders with their own [tool.jitlint]; edits to either re-publish."""
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (one, two):
        folder.mkdir()
    (one / "pyproject.toml").write_text('[tool.jitlint]\nignore = ["JIT203"]\n')
    session = Session(
        tmp_path,
        capabilities("emacs_v29.1"),  # pushes; prefers UTF-32 positions
        folders=[one, two],
        init_options={"severity": {"JIT101": "error"}},
    )
    try:
        assert session.init_result.capabilities.position_encoding == "utf-32"
        session.wait_until(
            lambda: any(
                r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in session.registrations
            )
        )
        uri_one = session.open(one / "m.py", BUG)
        uri_two = session.open(two / "m.py", BUG)
        assert _codes(session.diagnostics(uri_one, predicate=bool)) == ["JIT101"]
        diags = session.diagnostics(uri_two, predicate=lambda d: len(d) == 2)
        assert _codes(diags) == ["JIT101", "JIT203"]
        assert [d.severity for d in diags if d.code == "JIT101"] == [types.DiagnosticSeverity.Error]

        # The file changes on disk: the server hears of it and re-publishes.
        (one / "pyproject.toml").write_text('[tool.jitlint]\nselect = ["JIT203"]\n')
        session.on_loop(lambda: session.published.clear())
        _watched(session, one / "pyproject.toml")
        assert _codes(session.diagnostics(uri_one, predicate=bool)) == ["JIT203"]
        assert _codes(session.diagnostics(uri_two, predicate=bool)) == ["JIT101", "JIT203"]

        # Client settings, sent with the notification: ignore JIT101 everywhere.
        session.on_loop(lambda: session.published.clear())
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"jitlint": {"ignore": ["traced-if"]}})
        )
        assert _codes(session.diagnostics(uri_two, predicate=bool)) == ["JIT203"]

        # A client that sends no settings is asked for them (workspace/configuration).
        session.configuration = {"select": ["JIT1"], "bogus": 1}
        session.on_loop(lambda: session.published.clear())
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=None)
        )
        assert _codes(session.diagnostics(uri_two, predicate=bool)) == ["JIT101"]
        session.wait_until(lambda: any("bogus" in m.message for m in session.messages))
    finally:
        assert session.close() == 0


@pytest.fixture(scope="module")
def pull_session(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("pull")
    session = Session(root, capabilities("neovim_v0.11.0"))  # pulls; prefers UTF-8
    yield session
    session.close()


def _pull(session: Session, uri: str, previous: str | None = None):
    params = types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous
    )
    return session.call(session.client.text_document_diagnostic_async(params))


def test_pulled_diagnostics_in_utf8(pull_session: Session):
    text = 'import jax\n\n\n@jax.jit\ndef f(x):\n    s = "é€"; print(x)\n    return x\n'
    uri = pull_session.open(pull_session.root / "pulled.py", text)
    report = _pull(pull_session, uri)
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    (diag,) = report.items
    assert diag.code == "JIT203"
    line = text.splitlines()[5]
    assert diag.range.start.character == len(line[: line.index("print")].encode("utf-8"))
    again = _pull(pull_session, uri, report.result_id)
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    pull_session.change(uri, text.replace("print(x)", "pass"))
    fresh = _pull(pull_session, uri, report.result_id)
    assert isinstance(fresh, types.RelatedFullDocumentDiagnosticReport) and not fresh.items
    assert uri not in pull_session.published  # a pulling client is not pushed to


def test_workspace_diagnostics(pull_session: Session):
    (pull_session.root / "pkg").mkdir()
    (pull_session.root / "pkg" / "on_disk.py").write_text(BUG, encoding="utf-8")
    (pull_session.root / "pkg" / "clean.py").write_text("x = 1\n", encoding="utf-8")
    open_uri = pull_session.open(
        pull_session.root / "pkg" / "opened.py", BUG.replace("print(x)\n    ", "")
    )
    params = types.WorkspaceDiagnosticParams(previous_result_ids=[])
    report = pull_session.call(pull_session.client.workspace_diagnostic_async(params))
    by_uri = {item.uri: item for item in report.items}
    on_disk = (pull_session.root / "pkg" / "on_disk.py").as_uri()
    assert _codes(list(by_uri[on_disk].items)) == ["JIT101", "JIT203"]
    assert _codes(list(by_uri[open_uri].items)) == ["JIT101"]
    assert by_uri[open_uri].version == 1
