"""The LSP features of ``jitlint server``, registered on a :class:`JitlintServer`."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from jitlint import FileResult, Finding
from jitlint.server import convert
from jitlint.server.server import (
    FIX_ALL_KIND,
    NOTEBOOK_FIX_ALL_KIND,
    Document,
    JitlintServer,
    is_pyproject,
    overlaps,
    wanted,
)
from jitlint.server.worker import WorkerCrashed

log = logging.getLogger("jitlint.server")


def _is_python(item: types.TextDocumentItem) -> bool:
    return item.language_id == "python" or item.uri.endswith((".py", ".pyi"))


def build() -> JitlintServer:
    """Return a server with every feature registered."""
    server = JitlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: JitlintServer, params: types.InitializeParams) -> None:
        ls.configure(params.initialization_options)
        ls.worker.start()
        if ls.client.project:
            ls.project_worker.start()

    @server.feature(types.INITIALIZED)
    async def initialized(ls: JitlintServer, params: types.InitializedParams) -> None:
        caps = ls.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps else None
        if watched is not None and watched.dynamic_registration:
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml")]
            )
            registration = types.Registration(
                id="jitlint-pyproject",
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=options,
            )
            ls.client_register_capability(types.RegistrationParams([registration]))
        log.info("jitlint %s ready (%s positions)", ls.version, ls.encoding)
        if caps is not None and caps.configuration:
            # Editors keep user settings (VS Code's settings.json, Neovim's `settings`) and
            # hand them out on request: the "jitlint" section overrides initializationOptions.
            raw = await _ask_settings(ls)
            if raw:
                ls.configure(raw)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: JitlintServer, params: None) -> None:
        ls.shutdown_requested = True
        ls.worker.close()
        ls.project_worker.close()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: JitlintServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        if _is_python(item):
            ls.open(item.uri, item.version, item.text)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JitlintServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri in ls.documents:
            text = ls.workspace.get_text_document(uri).source
            ls.open(uri, params.text_document.version, text)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: JitlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        _lint_notebook(ls, params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: JitlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        _lint_notebook(ls, params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: JitlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.close(params.notebook_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: JitlintServer, params: types.DidSaveTextDocumentParams) -> None:
        if is_pyproject(params.text_document.uri):
            log.info("%s saved: reloading the configuration", params.text_document.uri)
            ls.reload()
        elif ls.client.project:
            # Saved code is what the project analysis reads: the open files that call into
            # this one (and this one) get their diagnostics again.
            ls.refresh_saved()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JitlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: JitlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(is_pyproject(change.uri) for change in params.changes):
            log.info("a pyproject.toml changed: reloading the configuration")
            ls.reload()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders(ls: JitlintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        ls.reload()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration(ls: JitlintServer, params: types.DidChangeConfigurationParams) -> None:
        raw = params.settings
        caps = ls.client_capabilities.workspace
        if not raw and caps is not None and caps.configuration:
            raw = await _ask_settings(ls)  # clients that send none expect to be asked
        ls.configure(raw)

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="jitlint", inter_file_dependencies=False, workspace_diagnostics=True
        ),
    )
    async def pull(
        ls: JitlintServer, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        doc = ls.documents.get(params.text_document.uri)
        if doc is None:  # not open: report the file as it is on disk
            return types.RelatedFullDocumentDiagnosticReport(
                items=await _from_disk(ls, params.text_document.uri)
            )
        result, text = await ls.current(doc)
        result_id = f"{doc.version}:{ls.generation}:{doc.refreshes}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        items = convert.diagnostics(result, ls.index(text), ls.client)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostics(
        ls: JitlintServer, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        return types.WorkspaceDiagnosticReport(items=await _workspace_reports(ls))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[
                types.CodeActionKind.QuickFix,
                FIX_ALL_KIND,
                NOTEBOOK_FIX_ALL_KIND,
            ],
            resolve_provider=False,
        ),
    )
    async def code_action(
        ls: JitlintServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        target = await _target(ls, params.text_document.uri)
        if target is None:
            return None
        only = params.context.only
        actions: list[types.CodeAction] = []
        if wanted(only, types.CodeActionKind.QuickFix):
            actions.extend(_quick_fixes(ls, target, params.range))
        if not ls.client.fix_all:
            return actions
        uri = params.text_document.uri
        doc = ls.documents.get(uri)
        if doc is not None and wanted(only, FIX_ALL_KIND):
            fix_all = await _fix_all(ls, doc)
            if fix_all is not None:
                actions.append(fix_all)
        notebook = _notebook_of(ls, uri)
        if notebook is not None and (
            wanted(only, FIX_ALL_KIND) or (only and wanted(only, NOTEBOOK_FIX_ALL_KIND))
        ):
            # Each cell's action changes that cell alone: editors ask every cell in turn
            # (and in parallel); the notebook-wide kind is only given to those that ask for it.
            whole = bool(only) and wanted(only, NOTEBOOK_FIX_ALL_KIND)
            fix_cells = await _fix_notebook(ls, notebook, None if whole else uri)
            if fix_cells is not None:
                actions.append(fix_cells)
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: JitlintServer, params: types.HoverParams) -> types.Hover | None:
        target = await _target(ls, params.text_document.uri)
        if target is None:
            return None
        index = ls.index(target.text)
        at = index.from_lsp(params.position)
        pages: list[str] = []
        for f in _touching(target.result.findings, at, at):
            rule = ls.rule(f.code)
            page = (
                f"**{f.code}** `{rule.name}`: {rule.summary}\n\n{rule.doc_markdown}"
                if rule is not None
                else f"**{f.code}** {f.message}"
            )
            if page not in pages:
                pages.append(page)
        if not pages:
            return None
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(pages)
            )
        )

    return server


async def _ask_settings(ls: JitlintServer) -> object:
    item = types.ConfigurationItem(section="jitlint")
    try:
        answer = await ls.workspace_configuration_async(types.ConfigurationParams([item]))
    except Exception as err:  # a client that cannot answer leaves the settings as they are
        log.warning("workspace/configuration failed: %s", err)
        return None
    return answer[0] if answer else None


def _lint_notebook(ls: JitlintServer, uri: str) -> None:
    """Lint a notebook as the linter reads .ipynb files: its code cells, in order."""
    notebook = ls.workspace.get_notebook_document(notebook_uri=uri)
    if notebook is None:
        log.warning("ignored a change to notebook %s, which is not open", uri)
        return
    cells: list[tuple[str, str]] = []
    json_cells: list[dict[str, object]] = []
    for cell in notebook.cells:
        text = ls.workspace.get_text_document(cell.document).source
        code = cell.kind == types.NotebookCellKind.Code
        if code:
            cells.append((cell.document, text))
        json_cells.append(
            {
                "cell_type": "code",
                "source": text,
                "metadata": {},
                "outputs": [],
                "execution_count": None,
            }
            if code
            else {"cell_type": "markdown", "source": text, "metadata": {}}
        )
    # The notebook's metadata names its language: a notebook of another kernel is not Python.
    metadata: object = notebook.metadata if isinstance(notebook.metadata, dict) else {}
    data = {"cells": json_cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    doc = ls.documents.get(uri)
    if doc is None:
        path = to_fs_path(uri)
        doc = ls.documents[uri] = Document(uri, path, notebook.version, "")
    if doc.path is None or not doc.path.endswith(".ipynb"):
        doc.path = (doc.path or "notebook") + ".ipynb"  # the linter reads .ipynb by name
    doc.cells = cells
    ls.open(uri, notebook.version, json.dumps(data))


def _touching(
    findings: list[Finding], start: tuple[int, int], end: tuple[int, int]
) -> list[Finding]:
    return [
        f
        for f in findings
        if overlaps(
            (f.location.row, f.location.column),
            (f.end_location.row, f.end_location.column),
            start,
            end,
        )
    ]


@dataclass(frozen=True)
class _Target:
    """What a request about one text document sees: a file, or one code cell of a notebook."""

    uri: str
    version: int | None
    result: FileResult  # findings in this document's rows and columns
    text: str


async def _target(ls: JitlintServer, uri: str) -> _Target | None:
    """Return the latest result for a document, or for a notebook cell (its findings alone)."""
    doc = ls.documents.get(uri)
    if doc is not None:
        if doc.cells is not None:
            return None  # the notebook itself: requests come for its cells
        result, text = await ls.current(doc)
        return _Target(uri, doc.version, result, text)
    notebook = _notebook_of(ls, uri)
    if notebook is not None:
        result, _ = await ls.current(notebook)
        for number, (cell, text) in enumerate(notebook.result_cells or [], start=1):
            if cell == uri:
                mine = [f for f in result.findings if (f.cell or 1) == number]
                version = ls.workspace.get_text_document(uri).version
                return _Target(uri, version, FileResult(result.filename, mine), text)
    return None


def _edits(
    ls: JitlintServer, edits: dict[str, tuple[int | None, list[types.TextEdit]]]
) -> types.WorkspaceEdit:
    """Return a workspace edit of several documents (uri -> (version, edits))."""
    caps = ls.client_capabilities.workspace
    if caps and caps.workspace_edit and caps.workspace_edit.document_changes:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=version
                    ),
                    edits=list(items),
                )
                for uri, (version, items) in edits.items()
            ]
        )
    return types.WorkspaceEdit(changes={uri: list(items) for uri, (_, items) in edits.items()})


def _edit(ls: JitlintServer, target: _Target, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    return _edits(ls, {target.uri: (target.version, edits)})


def _quick_fixes(ls: JitlintServer, target: _Target, where: types.Range) -> list[types.CodeAction]:
    result, text = target.result, target.text
    index = ls.index(text)
    start, end = index.from_lsp(where.start), index.from_lsp(where.end)
    fixes: list[types.CodeAction] = []
    ignores: list[types.CodeAction] = []
    seen: set[tuple[int, str]] = set()
    for f in _touching(result.findings, start, end):
        diag = convert.diagnostic(f, index, ls.client)
        if f.fix is not None:
            fixes.append(
                types.CodeAction(
                    title=convert.fix_title(f),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag],
                    edit=_edit(ls, target, convert.text_edits(f.fix, index)),
                    is_preferred=f.fix.applicability.value == "safe",
                )
            )
        if f.code.startswith("JIT9") or (f.location.row, f.code) in seen:
            continue  # a file that cannot be parsed cannot be silenced line by line
        seen.add((f.location.row, f.code))
        noqa = convert.noqa_edit(index, f.location.row, f.code)
        if noqa is not None:
            ignores.append(
                types.CodeAction(
                    title=f"Ignore {f.code} on this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag],
                    edit=_edit(ls, target, [noqa]),
                )
            )
    return fixes + ignores


async def _fix_all(ls: JitlintServer, doc: Document) -> types.CodeAction | None:
    version, text = doc.version, doc.text
    try:
        outcome = await ls.worker.fix(text, doc.path or doc.uri, ls.settings_for(doc.path))
    except WorkerCrashed as err:
        log.error("fixing %s crashed the worker (%s); restarted it", doc.uri, err)
        return None
    if outcome is None or not outcome.fixed or doc.version != version:
        return None
    new = outcome.source.decode("utf-8")
    edit = convert.replace_all(text, new, ls.index(text))
    return types.CodeAction(
        title="jitlint: apply all safe fixes",
        kind=FIX_ALL_KIND,
        edit=_edit(ls, _Target(doc.uri, version, FileResult(doc.uri), text), [edit]),
    )


def _notebook_of(ls: JitlintServer, cell_uri: str) -> Document | None:
    """Return the open notebook that has the code cell ``cell_uri``."""
    for notebook in list(ls.documents.values()):
        if notebook.cells is not None and any(cell == cell_uri for cell, _ in notebook.cells):
            return notebook
    return None


async def _fix_notebook(
    ls: JitlintServer, notebook: Document, only_cell: str | None
) -> types.CodeAction | None:
    """Fix the notebook as `jitlint --fix` fixes its .ipynb; edit one cell or all of them."""
    version, data, cells = notebook.version, notebook.text, notebook.cells
    if cells is None:
        return None
    try:
        outcome = await ls.worker.fix(
            data, notebook.path or "notebook.ipynb", ls.settings_for(notebook.path)
        )
    except WorkerCrashed as err:
        log.error("fixing %s crashed the worker (%s); restarted it", notebook.uri, err)
        return None
    if outcome is None or not outcome.fixed or notebook.version != version:
        return None
    fixed = _code_sources(outcome.source.decode("utf-8"))
    if fixed is None or len(fixed) != len(cells):
        return None
    edits: dict[str, tuple[int | None, list[types.TextEdit]]] = {}
    for (uri, old), new in zip(cells, fixed, strict=True):
        if old != new and only_cell in (None, uri):
            cell_version = ls.workspace.get_text_document(uri).version
            edits[uri] = (cell_version, [convert.replace_all(old, new, ls.index(old))])
    if not edits:
        return None
    whole = only_cell is None
    return types.CodeAction(
        title="jitlint: apply all safe fixes" + (" in the notebook" if whole else " in this cell"),
        kind=NOTEBOOK_FIX_ALL_KIND if whole else FIX_ALL_KIND,
        edit=_edits(ls, edits),
    )


def _code_sources(raw: str) -> list[str] | None:
    """Return the sources of a notebook's code cells, in order, from its JSON text."""
    try:
        nb = json.loads(raw)
        out = []
        for cell in nb["cells"]:
            if cell.get("cell_type") == "code":
                source = cell.get("source", "")
                out.append(source if isinstance(source, str) else "".join(source))
        return out
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


async def _from_disk(ls: JitlintServer, uri: str) -> list[types.Diagnostic]:
    path = to_fs_path(uri)
    if path is None:
        return []
    try:
        text = Path(path).read_bytes().decode("utf-8")
        result = await ls.worker.lint(text, path, ls.settings_for(path))
    except (OSError, UnicodeDecodeError, WorkerCrashed) as err:
        log.warning("cannot check %s: %s", uri, err)
        return []
    return convert.diagnostics(result, ls.index(text), ls.client)


async def _workspace_reports(
    ls: JitlintServer,
) -> list[types.WorkspaceDocumentDiagnosticReport]:
    reports: list[types.WorkspaceDocumentDiagnosticReport] = []
    roots = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]
    if not roots and ls.workspace.root_path:
        roots = [ls.workspace.root_path]
    for root in (r for r in roots if r):
        try:
            settings = ls.settings_for(str(Path(root) / "x"))
            overlay = {d.path: d.text for d in ls.documents.values() if ls.in_project(d) and d.path}
            results = await ls.worker.lint_paths(
                [root], settings, project=ls.client.project, overlay=overlay
            )
        except WorkerCrashed as err:
            log.error("checking %s crashed the worker (%s); restarted it", root, err)
            continue
        for result in results:
            uri = from_fs_path(str(Path(result.filename).resolve()))
            if uri is None or uri in ls.documents:
                continue
            try:
                text = Path(result.filename).read_bytes().decode("utf-8", "replace")
            except OSError:
                text = ""
            items = convert.diagnostics(result, ls.index(text), ls.client)
            reports.append(types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=items))
    for doc in list(ls.documents.values()):
        result, text = await ls.current(doc)
        items = convert.diagnostics(result, ls.index(text), ls.client)
        reports.append(
            types.WorkspaceFullDocumentDiagnosticReport(
                uri=doc.uri, items=items, version=doc.version
            )
        )
    return reports
