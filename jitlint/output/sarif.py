"""The sarif format: a SARIF 2.1.0 log for code-scanning services."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO
from urllib.parse import quote

from jitlint._version import __version__
from jitlint.model import Finding, TraceStep
from jitlint.output.sources import Sources, file_region
from jitlint.rules import all_rules
from jitlint.rules import file_rules as filerules

INFORMATION_URI = "https://pypi.org/project/pytest-jitcheck/"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


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
        line = " ".join(sources.line(f.filename, f.location.row, f.cell).split())
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


def _rule(code: str, name: str, message: str, doc: str, url: str | None) -> dict[str, object]:
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": message},
        "fullDescription": {"text": _section(doc, "What it does") or message},
        "help": {"text": doc, "markdown": doc},
        "helpUri": url or INFORMATION_URI,
        "defaultConfiguration": {"level": "error"},
    }


def sarif_log(findings: Sequence[Finding], sources: Sources) -> dict[str, object]:
    """Return the SARIF 2.1.0 log for ``findings``."""
    rules = [_rule(r.code, r.name, r.message_for_docs(), r.doc(), r.url()) for r in all_rules()]
    rules += [_rule(r.code, r.name, r.message, r.doc(), None) for r in filerules.FILE_RULES]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for f, fp in zip(findings, fingerprints(findings, sources), strict=True):
        line, col, end_line, end_col = file_region(f, sources)
        result: dict[str, object] = {
            "ruleId": f.code,
            "level": "error",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _artifact(f.filename),
                        "region": {
                            "startLine": line,
                            "startColumn": col,
                            "endLine": end_line,
                            "endColumn": end_col,
                        },
                    }
                }
            ],
            "partialFingerprints": {"jitlint/v1": fp},
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        if f.cell is not None:
            cell = {"cell": f.cell, "row": f.location.row, "column": f.location.column}
            result["properties"] = cell
        if f.trace:
            result["relatedLocations"] = [
                _related(i, step) for i, step in enumerate(f.trace, start=1)
            ]
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


def _related(number: int, step: TraceStep) -> dict[str, object]:
    via = f" ({step.transform})" if step.transform else ""
    return {
        "id": number,
        "message": {"text": f"traced through `{step.name}`{via}"},
        "physicalLocation": {
            "artifactLocation": _artifact(step.filename),
            "region": {"startLine": step.row},
        },
    }


def write(findings: Sequence[Finding], out: TextIO, sources: Sources) -> None:
    json.dump(sarif_log(findings, sources), out, indent=2)
    out.write("\n")
