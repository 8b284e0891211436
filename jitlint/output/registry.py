"""Output formats: concise, full, json, github (workflow annotations) and sarif (2.1.0)."""

from __future__ import annotations

import hashlib
import io
import json
import tokenize
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO
from urllib.parse import quote

from jitlint import __version__
from jitlint.engine.positions import NEWLINE
from jitlint.model import Applicability, Finding
from jitlint.rules import all_rules

FORMATS = ("concise", "full", "json", "github", "sarif")
INFORMATION_URI = "https://pypi.org/project/pytest-jitcheck/"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SYNTAX_RULE = ("JIT900", "syntax-error", "The file cannot be parsed, so it was not checked.")


class Sources:
    """Read source lines for findings, once per file; ``texts`` overrides files (stdin)."""

    def __init__(self, texts: Mapping[str, str] | None = None) -> None:
        self._texts = dict(texts or {})
        self._lines: dict[str, list[str]] = {}
        self.unsafe = False  # whether unsafe fixes count as applicable for the [*] mark

    def line(self, filename: str, row: int) -> str:
        """Return line ``row`` (1-based) of ``filename`` without its newline, or ''."""
        lines = self._lines.get(filename)
        if lines is None:
            lines = self._lines[filename] = NEWLINE.split(self._text(filename))
        return lines[row - 1] if 0 < row <= len(lines) else ""

    def add(self, filename: str, data: bytes) -> None:
        """Use ``data`` as the content of ``filename`` (source read from stdin)."""
        self._texts[filename] = _decode(data)
        self._lines.pop(filename, None)

    def _text(self, filename: str) -> str:
        if filename in self._texts:
            return self._texts[filename]
        try:
            return _decode(Path(filename).read_bytes())
        except OSError:
            return ""


def _decode(data: bytes) -> str:
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
        return data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return ""


def write(
    fmt: str,
    findings: Sequence[Finding],
    out: TextIO,
    sources: Sources | None = None,
    *,
    unsafe: bool = False,
) -> None:
    """Write ``findings`` to ``out`` in format ``fmt`` (one of ``FORMATS``).

    ``[*]`` marks findings that ``--fix`` would fix: safe fixes, and unsafe ones if ``unsafe``.
    """
    sources = sources or Sources()
    sources.unsafe = unsafe
    writers: dict[str, Callable[[Sequence[Finding], TextIO, Sources], None]] = {
        "concise": _concise,
        "full": _full,
        "json": _json,
        "github": _github,
        "sarif": _sarif,
    }
    writers[fmt](findings, out, sources)


def applicable(f: Finding, unsafe: bool) -> bool:
    """Tell whether ``--fix`` (with ``--unsafe-fixes`` when ``unsafe``) would fix ``f``."""
    return f.fix is not None and (unsafe or f.fix.applicability is Applicability.SAFE)


def _head(f: Finding, unsafe: bool) -> str:
    fixable = " [*]" if applicable(f, unsafe) else ""
    return f"{f.filename}:{f.location.row}:{f.location.column}: {f.code}{fixable} {f.message}"


def _concise(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    for f in findings:
        out.write(_head(f, sources.unsafe) + "\n")


def _full(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    for f in findings:
        row = f.location.row
        line = sources.line(f.filename, row).rstrip()
        start = f.location.column - 1
        end = f.end_location.column - 1 if f.end_location.row == row else len(line)
        # Keep tabs so the carets line up under the code in any terminal.
        pad = "".join(c if c == "\t" else " " for c in line[:start])
        gutter = " " * len(str(row))
        out.write(_head(f, sources.unsafe) + "\n")
        out.write(f"{gutter} |\n{row} | {line}\n{gutter} | {pad}{'^' * max(end - start, 1)}\n")
        if f.fix is not None:
            out.write(f"{gutter} = help: {f.fix.title} ({f.fix.applicability.value} fix)\n")
        out.write("\n")


def finding_json(f: Finding) -> dict[str, object]:
    """Return the JSON object for one finding (ruff's field names)."""
    fix = None
    if f.fix is not None:
        fix = {
            "message": f.fix.title,
            "applicability": f.fix.applicability.value,
            "edits": [
                {
                    "content": e.content,
                    "location": {"row": e.start.row, "column": e.start.column},
                    "end_location": {"row": e.end.row, "column": e.end.column},
                }
                for e in f.fix.edits
            ],
        }
    return {
        "code": f.code,
        "name": f.name,
        "message": f.message,
        "filename": f.filename,
        "location": {"row": f.location.row, "column": f.location.column},
        "end_location": {"row": f.end_location.row, "column": f.end_location.column},
        "fix": fix,
        "url": f.url,
    }


def _json(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    json.dump([finding_json(f) for f in findings], out, indent=2)
    out.write("\n")


def _escape(text: str, prop: bool = False) -> str:
    # GitHub's workflow-command escaping; properties also escape their separators.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _github(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    for f in findings:
        props = {
            "file": f.filename,
            "line": f.location.row,
            "col": f.location.column,
            "endLine": f.end_location.row,
            "endColumn": f.end_location.column,
            "title": f"{f.code} {f.name}",
        }
        joined = ",".join(f"{k}={_escape(str(v), prop=True)}" for k, v in props.items())
        out.write(f"::error {joined}::{_escape(f.message)}\n")


# SARIF ------------------------------------------------------------------------------------
def artifact_uri(filename: str) -> str:
    """Return the SARIF artifact URI: relative to the working directory, forward slashes."""
    path = Path(filename)
    absolute = path.resolve()
    try:
        rel = absolute.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return absolute.as_uri()
    return quote(rel, safe="/")


def _artifact(filename: str) -> dict[str, str]:
    uri = artifact_uri(filename)
    return {"uri": uri} if uri.startswith("file:") else {"uri": uri, "uriBaseId": "%SRCROOT%"}


def fingerprints(findings: Sequence[Finding], sources: Sources) -> list[str]:
    """Return a fingerprint per finding that survives edits elsewhere in the file.

    Hashes the code, the file, the finding's own source line with whitespace collapsed, and
    which occurrence of that same (code, file, line) it is; never the line number.
    """
    seen: Counter[tuple[str, str, str]] = Counter()
    out = []
    for f in findings:
        line = " ".join(sources.line(f.filename, f.location.row).split())
        key = (f.code, artifact_uri(f.filename), line)
        occurrence = seen[key]
        seen[key] += 1
        text = "\0".join((*key, str(occurrence)))
        out.append(hashlib.sha256(text.encode()).hexdigest()[:32])
    return out


def _section(doc: str, title: str) -> str:
    """Return the text under ``## title`` in a rule's docstring, joined into one paragraph."""
    _, found, rest = doc.partition(f"## {title}\n")
    return " ".join(rest.split("\n## ", 1)[0].split()) if found else ""


def sarif_log(findings: Sequence[Finding], sources: Sources) -> dict[str, object]:
    """Return the SARIF 2.1.0 log for ``findings``."""
    rules: list[dict[str, object]] = []
    for r in all_rules():
        doc = r.doc()
        rules.append(
            {
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.message},
                "fullDescription": {"text": _section(doc, "What it does") or r.message},
                "help": {"text": doc, "markdown": doc},
                "helpUri": r.url() or INFORMATION_URI,
                "defaultConfiguration": {"level": "error"},
            }
        )
    code, name, text = _SYNTAX_RULE
    rules.append(
        {
            "id": code,
            "name": name,
            "shortDescription": {"text": text},
            "helpUri": INFORMATION_URI,
        }
    )
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for f, fp in zip(findings, fingerprints(findings, sources), strict=True):
        result: dict[str, object] = {
            "ruleId": f.code,
            "level": "error",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _artifact(f.filename),
                        "region": {
                            "startLine": f.location.row,
                            "startColumn": f.location.column,
                            "endLine": f.end_location.row,
                            "endColumn": f.end_location.column,
                        },
                    }
                }
            ],
            "partialFingerprints": {"jitlint/v1": fp},
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "jitlint",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                # Columns count characters, as everywhere else in jitlint's output.
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}},
                "results": results,
            }
        ],
    }


def _sarif(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    json.dump(sarif_log(findings, sources), out, indent=2)
    out.write("\n")
