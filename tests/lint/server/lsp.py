"""A real LSP client (pygls') driving ``jitlint server`` in a subprocess, for synchronous tests.

The client's event loop runs in a thread of its own, so one server can serve a whole test
module while each test stays a plain function.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.client import LanguageClient

T = TypeVar("T")
TIMEOUT = 90.0  # a loaded two-core machine spawns the server and its worker slowly


def server_command(log_file: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "jitlint",
        "server",
        "--log-level",
        "debug",
        "--log-file",
        str(log_file),
    ]


class Session:
    """One server, one client; helpers that wait for what the server sends."""

    def __init__(
        self,
        root: Path,
        capabilities: types.ClientCapabilities,
        *,
        folders: list[Path] | None = None,
        init_options: Any = None,
    ) -> None:
        self.root = root
        self.log_file = root / "server.log"
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client = LanguageClient("jitlint-tests", "1")
        self.published: dict[str, types.PublishDiagnosticsParams] = {}
        self.messages: list[types.ShowMessageParams] = []
        self.registrations: list[types.Registration] = []
        self.refreshes = 0
        self.configuration: Any = None
        self._register_handlers()
        self.call(self.client.start_io(*server_command(self.log_file)))
        folders = folders or [root]
        params = types.InitializeParams(
            capabilities=capabilities,
            process_id=None,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders],
            initialization_options=init_options,
        )
        self.init_result = self.call(self.client.initialize_async(params))
        self.client.initialized(types.InitializedParams())
        self.versions: dict[str, int] = {}

    def _register_handlers(self) -> None:
        client = self.client

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = params

        @client.feature(types.WINDOW_SHOW_MESSAGE)
        def show(params: types.ShowMessageParams) -> None:
            self.messages.append(params)

        @client.feature(types.WINDOW_LOG_MESSAGE)
        def log(params: types.LogMessageParams) -> None:
            pass

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            self.registrations.extend(params.registrations)

        @client.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams) -> list[Any]:
            return [self.configuration for _ in params.items]

        @client.feature(types.WORKSPACE_DIAGNOSTIC_REFRESH)
        def refresh(params: None) -> None:
            self.refreshes += 1

    # Plumbing ---------------------------------------------------------------------------
    def call(self, coro: Coroutine[Any, Any, T], timeout: float = TIMEOUT) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def on_loop(self, fn: Callable[[], T]) -> T:
        async def run() -> T:
            return fn()

        return self.call(run())

    def wait_until(self, predicate: Callable[[], bool], timeout: float = TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while not self.on_loop(predicate):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; server log:\n{self.log()}")
            time.sleep(0.02)

    def log(self) -> str:
        try:
            return self.log_file.read_text(encoding="utf-8")
        except OSError:
            return ""

    # Documents ----------------------------------------------------------------------------
    def open(self, path: Path, text: str, *, write: bool = True) -> str:
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
        uri = path.as_uri()
        self.versions[uri] = 1
        self.on_loop(lambda: self.published.pop(uri, None))
        item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        return uri

    def change(self, uri: str, text: str) -> int:
        self.versions[uri] += 1
        version = self.versions[uri]
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return version

    def diagnostics(
        self,
        uri: str,
        version: int | None = None,
        predicate: Callable[[list[types.Diagnostic]], bool] = lambda d: True,
    ) -> list[types.Diagnostic]:
        """Wait for diagnostics pushed for ``uri`` (at ``version``) that satisfy ``predicate``."""
        want = self.versions.get(uri) if version is None else version

        def ready() -> bool:
            got = self.published.get(uri)
            return got is not None and got.version == want and predicate(list(got.diagnostics))

        self.wait_until(ready)
        return list(self.published[uri].diagnostics)

    def code_actions(
        self, uri: str, where: types.Range, only: list[str] | None = None
    ) -> list[types.CodeAction]:
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=where,
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
        result = self.call(self.client.text_document_code_action_async(params)) or []
        return [a for a in result if isinstance(a, types.CodeAction)]

    def close(self) -> int | None:
        """Shut the server down as an editor does; return its exit code."""
        try:
            self.call(self.client.shutdown_async(None))
            self.client.exit(None)
            server = self.client._server
            code = self.call(server.wait()) if server is not None else None
        finally:
            self.call(self.client.stop())
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()
        return code


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str = "utf-16") -> str:
    """Apply LSP edits to ``text`` (independently of the server's own position code)."""
    lines = text.splitlines(keepends=True) if text else [""]
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    codec, width = {"utf-16": ("utf-16-le", 2), "utf-8": ("utf-8", 1), "utf-32": ("utf-32-le", 4)}[
        encoding
    ]

    def offset(pos: types.Position) -> int:
        if pos.line >= len(lines):
            return len(text)
        data = lines[pos.line].rstrip("\r\n").encode(codec)
        return starts[pos.line] + len(data[: pos.character * width].decode(codec))

    for edit in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        a, b = offset(edit.range.start), offset(edit.range.end)
        text = text[:a] + edit.new_text + text[b:]
    return text


def workspace_edits(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    """Return the edits a code action makes to ``uri``, whichever shape the edit has."""
    assert action.edit is not None
    if action.edit.document_changes:
        return [
            e
            for change in action.edit.document_changes
            if isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri
            for e in change.edits
            if isinstance(e, types.TextEdit)
        ]
    return list((action.edit.changes or {}).get(uri, []))
