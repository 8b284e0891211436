"""The language server: documents, scheduling, and the LSP features built on them."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError, JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path

from jitlint import FileResult, RuleInfo, Settings, __version__, list_rules, settings_for
from jitlint.server import convert
from jitlint.server.positions import LineIndex
from jitlint.server.settings import ClientSettings, parse
from jitlint.server.worker import Worker, WorkerCrashed

log = logging.getLogger("jitlint.server")
FIX_ALL_KIND = "source.fixAll.jitlint"
NOTEBOOK_FIX_ALL_KIND = "notebook.source.fixAll.jitlint"
_PYPROJECT = "pyproject.toml"


@dataclass
class Document:
    """One open document: its latest text, and the result of the latest finished lint."""

    uri: str
    path: str | None
    version: int | None
    text: str
    result: FileResult | None = None
    result_text: str | None = None
    # (document version, settings generation, refreshes): the text and settings of the result
    result_key: tuple[int | None, int, int] | None = None
    refreshes: int = 0  # bumped when files it may depend on were saved (project mode)
    task: asyncio.Task[None] | None = None
    waiters: list[asyncio.Future[None]] = field(default_factory=list)
    # A notebook: its code cells (uri, text) in order; ``text`` is then the .ipynb JSON.
    cells: list[tuple[str, str]] | None = None
    result_cells: list[tuple[str, str]] | None = None
    # Project mode: the file's text checked alone, first, at (version, settings generation);
    # ``cross``: the project analysis of the same text found more than that (then the quick
    # check is not shown: the project's findings would blink out while typing).
    preview: FileResult | None = None
    preview_key: tuple[int | None, int] | None = None
    cross: bool = False


class _Protocol(LanguageServerProtocol):
    """pygls' protocol, answering malformed requests and ignoring changes to unopened files."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as err:
            # JSON-RPC: a request whose params cannot be read still gets an error response.
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], None, err.to_response_error())
            raise

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if unquote(params.text_document.uri) not in self.workspace.text_documents:
            log.warning("ignored a change to %s, which is not open", params.text_document.uri)
            return
        yield from super().lsp_text_document__did_change(params)


class JitlintServer(LanguageServer):
    """Lint open documents in a worker process and answer from the latest results."""

    def __init__(self) -> None:
        super().__init__(
            "jitlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[
                    types.NotebookDocumentFilterWithCells(
                        notebook="jupyter-notebook",
                        cells=[types.NotebookCellLanguage(language="python")],
                    )
                ]
            ),
            protocol_cls=_Protocol,
        )
        self.documents: dict[str, Document] = {}
        self.client = ClientSettings()
        self.generation = 0  # bumped whenever settings change, so results are recomputed
        self.worker = Worker()
        # Project analyses get a process of their own: a long one never holds up the quick
        # check of the document being typed in.
        self.project_worker = Worker()
        self._project_task: asyncio.Task[None] | None = None
        self._project_again = False
        self.shutdown_requested = False
        self._settings: dict[str, Settings] = {}
        self._rules: dict[str, RuleInfo] = {r.code: r for r in list_rules()}

    # Positions and settings -------------------------------------------------------------
    @property
    def encoding(self) -> str:
        """Return the negotiated position encoding (UTF-16 unless the client chose another)."""
        chosen = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        return str(getattr(chosen, "value", chosen))  # an enum member, or the client's string

    @property
    def pull(self) -> bool:
        """Tell whether the client pulls diagnostics (then none are pushed)."""
        caps = self.client_capabilities.text_document
        return caps is not None and caps.diagnostic is not None

    def index(self, text: str) -> LineIndex:
        """Index ``text`` in the negotiated encoding."""
        return LineIndex(text, self.encoding)

    def settings_for(self, path: str | None) -> Settings:
        """Return the file's ``[tool.jitlint]`` settings with the client's applied on top."""
        where = str(Path(path).parent) if path else self._default_root()
        cached = self._settings.get(where)
        if cached is not None:
            return cached
        try:
            base = settings_for(path or where)
        except Exception as err:  # a broken pyproject.toml must not stop linting
            self.warn(f"configuration error: {err}; using the defaults")
            base = Settings()
        settings, unknown = self.client.apply(base, list(self._rules.values()))
        for sel in unknown:
            self.warn(f"unknown rule selector `{sel}` in the client settings")
        self._settings[where] = settings
        return settings

    def _default_root(self) -> str:
        folders = list(self.workspace.folders.values())
        if folders:
            return to_fs_path(folders[0].uri) or "."
        return self.workspace.root_path or "."

    def warn(self, message: str) -> None:
        """Log one line and show it to the user."""
        log.warning("%s", message)
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=f"jitlint: {message}")
        )

    def configure(self, raw: object) -> None:
        """Take new client settings, then re-lint every open document."""
        client, problems = parse(raw)
        for problem in problems:
            self.warn(f"settings: {problem}")
        self.client = client
        self.reload()

    def reload(self) -> None:
        """Forget cached settings and results; re-lint open documents; ask pullers to pull."""
        self._settings.clear()
        self.generation += 1
        for doc in self.documents.values():
            self.schedule(doc, delay=0)
        self._ask_to_pull()

    def _ask_to_pull(self) -> None:
        caps = self.client_capabilities.workspace
        if self.pull and caps and caps.diagnostics and caps.diagnostics.refresh_support:
            self.workspace_diagnostic_refresh(None)

    # Linting --------------------------------------------------------------------------------
    def open(self, uri: str, version: int | None, text: str) -> Document:
        """Track a document (or replace its text) and schedule a lint."""
        doc = self.documents.get(uri)
        if doc is None:
            doc = self.documents[uri] = Document(uri, _fs_path(uri), version, text)
        doc.version, doc.text = version, text
        if self.in_project(doc):
            self._dependents_stale(doc)
        self.schedule(doc)
        return doc

    def in_project(self, doc: Document) -> bool:
        """Tell whether ``doc`` gets the project analysis (project mode, a .py file)."""
        return bool(
            self.client.project and doc.path and doc.cells is None and doc.path.endswith(".py")
        )

    def _dependents_stale(self, changed: Document | None) -> None:
        """Mark the results of the other project documents stale: they may depend on it."""
        for doc in self.documents.values():
            if doc is not changed and self.in_project(doc):
                doc.refreshes += 1

    def close(self, uri: str) -> None:
        """Stop tracking a document and clear its pushed diagnostics."""
        doc = self.documents.pop(uri, None)
        if doc is None:
            return
        if self.in_project(doc):
            # Its unsaved text no longer counts: the files depending on it see the disk again.
            self._dependents_stale(None)
            self._schedule_project(self.client.debounce_ms / 1000)
        self.worker.forget(uri)
        if doc.task is not None:
            doc.task.cancel()
        for waiter in doc.waiters:
            waiter.cancel()
        for cell_uri, _ in doc.cells or []:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=cell_uri, diagnostics=[])
            )
        if not self.pull and doc.cells is None:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    def schedule(self, doc: Document, delay: float | None = None) -> None:
        """Lint ``doc`` soon; a lint already pending or running picks up the latest text."""
        wait = self.client.debounce_ms / 1000 if delay is None else delay
        loop = self._lint_loop
        if self.in_project(doc):
            self._schedule_project(wait)
            loop = self._preview_loop
        if doc.task is None or doc.task.done():
            doc.task = asyncio.ensure_future(loop(doc, wait))

    async def _lint_loop(self, doc: Document, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        while self.documents.get(doc.uri) is doc:
            key, text, cells = self._key(doc), doc.text, doc.cells
            if doc.result_key == key:
                return
            filename = doc.path or _untitled(doc.uri)
            result = await self._lint_alone(doc, text, filename)
            if self._key(doc) != key or self.documents.get(doc.uri) is not doc:
                continue  # edited meanwhile: this result is stale, lint the latest text
            doc.result_cells = cells
            self._settle(doc, key, text, result)

    async def _lint_alone(self, doc: Document, text: str, filename: str) -> FileResult:
        try:
            return await self.worker.lint(text, filename, self.settings_for(doc.path), key=doc.uri)
        except WorkerCrashed as err:
            log.error("the analysis of %s crashed the worker (%s); restarted it", doc.uri, err)
            return FileResult(doc.uri, errors=["jitlint crashed while checking this file"])

    def _settle(
        self, doc: Document, key: tuple[int | None, int, int], text: str, result: FileResult
    ) -> bool:
        """Take ``result`` as the document's, publish it if it changed, wake the waiters."""
        same = (
            doc.result_key is not None
            and doc.result_key[:2] == key[:2]
            and (doc.result, doc.result_text) == (result, text)
        )
        doc.result, doc.result_text, doc.result_key = result, text, key
        if doc.preview is not None and doc.preview_key == key[:2]:
            doc.cross = _adds(result, doc.preview)
        if not same:
            self._publish(doc)
        waiters, doc.waiters = doc.waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        return not same

    async def _preview_loop(self, doc: Document, delay: float) -> None:
        """Check a project document's text alone (the quick check), ahead of its project."""
        if delay:
            await asyncio.sleep(delay)
        while self.documents.get(doc.uri) is doc and self.in_project(doc):
            key, text = (doc.version, self.generation), doc.text
            if doc.preview_key == key:
                return
            assert doc.path is not None
            result = await self._lint_alone(doc, text, doc.path)
            if (doc.version, self.generation) != key or self.documents.get(doc.uri) is not doc:
                continue
            doc.preview, doc.preview_key = result, key
            if doc.result is not None and doc.result_key and doc.result_key[:2] == key:
                doc.cross = _adds(doc.result, result)  # the project's result came first
            elif not doc.cross and not self.pull:
                items = convert.diagnostics(result, self.index(text), self.client)
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(
                        uri=doc.uri, diagnostics=items, version=doc.version
                    )
                )

    def _schedule_project(self, delay: float) -> None:
        """Run the project analysis of every open project document soon (debounced)."""
        self._project_again = True
        if self._project_task is None or self._project_task.done():
            self._project_task = asyncio.ensure_future(self._project_loop(delay))

    async def _project_loop(self, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        while self._project_again:
            self._project_again = False
            snapshot = [
                (d, self._key(d), d.text) for d in self.documents.values() if self.in_project(d)
            ]
            # Every open document's text, saved or not, is what the analysis reads.
            overlay = {d.path: text for d, _, text in snapshot if d.path}
            groups: list[tuple[Settings, list[tuple[Document, Any, str]]]] = []
            for item in snapshot:
                settings = self.settings_for(item[0].path)
                members = next((m for s, m in groups if s == settings), None)
                if members is None:
                    groups.append((settings, [item]))
                else:
                    members.append(item)
            changed = False
            for settings, members in groups:
                paths = [d.path for d, _, _ in members if d.path]
                try:
                    found = await self.project_worker.lint_paths(
                        paths, settings, project=True, overlay=overlay
                    )
                except WorkerCrashed as err:
                    log.error("the project analysis crashed its worker (%s); restarted it", err)
                    found = [
                        FileResult(p, errors=["jitlint crashed while checking this file"])
                        for p in paths
                    ]
                by_path = {os.path.abspath(r.filename): r for r in found}
                for doc, key, text in members:
                    if self._key(doc) != key or self.documents.get(doc.uri) is not doc:
                        continue  # edited meanwhile: the next round checks the new text
                    assert doc.path is not None
                    result = by_path.get(os.path.abspath(doc.path)) or FileResult(doc.path)
                    changed |= self._settle(doc, key, text, result)
            if changed:
                self._ask_to_pull()

    def _key(self, doc: Document) -> tuple[int | None, int, int]:
        return (doc.version, self.generation, doc.refreshes)

    def refresh_saved(self) -> None:
        """Check the open project files again (project mode, after a save): a file saved
        from outside the editor, or a closed one, may be what they depend on."""
        self._dependents_stale(None)
        self._schedule_project(0)

    def _publish(self, doc: Document) -> None:
        if doc.result is not None and doc.result_cells is not None:
            # Cells are pushed to, even to a pulling client: it pulls documents, not cells.
            for uri, items in notebook_diagnostics(self, doc.result, doc.result_cells):
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, diagnostics=items)
                )
            return
        if self.pull or doc.result is None or doc.result_text is None:
            return
        items = convert.diagnostics(doc.result, self.index(doc.result_text), self.client)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=doc.uri, diagnostics=items, version=doc.version)
        )

    async def current(self, doc: Document) -> tuple[FileResult, str]:
        """Return the result for the document's current text, waiting for it if needed."""
        while doc.result_key != self._key(doc):
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            doc.waiters.append(waiter)
            self.schedule(doc, delay=0)
            await waiter
        assert doc.result is not None and doc.result_text is not None
        return doc.result, doc.result_text

    def rule(self, code: str) -> RuleInfo | None:
        """Return a rule's description by code."""
        return self._rules.get(code)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log one line: a bad message or a failed handler must not stop the server.

        pygls has already logged what it read or ran; only a failed notification handler
        still needs its line.
        """
        if source is FeatureNotificationError:
            log.error("a notification handler failed: %s", error or type(error).__name__)


def notebook_diagnostics(
    ls: JitlintServer, result: FileResult, cells: list[tuple[str, str]]
) -> list[tuple[str, list[types.Diagnostic]]]:
    """Split a notebook's findings by code cell (``Finding.cell``, 1-based among code cells)."""
    out = []
    for number, (uri, text) in enumerate(cells, start=1):
        mine = [f for f in result.findings if (f.cell or 1) == number]
        errors = list(result.errors) if number == 1 else []
        part = FileResult(result.filename, mine, errors)
        out.append((uri, convert.diagnostics(part, ls.index(text), ls.client)))
    return out


def _fs_path(uri: str) -> str | None:
    if urlparse(uri).scheme != "file":
        return None
    return to_fs_path(uri)


def _adds(project: FileResult, alone: FileResult) -> bool:
    """Tell whether the project analysis found something the file checked alone did not."""
    seen = {(f.code, f.location, f.end_location) for f in alone.findings}
    return any((f.code, f.location, f.end_location) not in seen for f in project.findings)


def _untitled(uri: str) -> str:
    name = unquote(urlparse(uri).path).rsplit("/", 1)[-1] or "untitled"
    return name if name.endswith((".py", ".pyi")) else name + ".py"


def is_pyproject(uri: str) -> bool:
    """Tell whether ``uri`` names a pyproject.toml."""
    return unquote(urlparse(uri).path).endswith("/" + _PYPROJECT)


def overlaps(
    f_start: tuple[int, int], f_end: tuple[int, int], a: tuple[int, int], b: tuple[int, int]
) -> bool:
    """Tell whether a finding's span touches the span [a, b] (both inclusive)."""
    return f_start <= b and a <= f_end


def wanted(only: Iterable[str] | None, kind: str) -> bool:
    """Tell whether a code action of ``kind`` matches the client's ``only`` filter."""
    if only is None:
        return True
    return any(kind == k or kind.startswith(k + ".") for k in only)
