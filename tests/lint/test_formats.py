"""Output formats: full, github annotations and SARIF 2.1.0 (validated against its structure)."""

from __future__ import annotations

import io
import json

import jsonschema
import pytest

from jitlint.cli import main
from jitlint.output.registry import write
from jitlint.output.sarif import sarif_log
from jitlint.output.sources import Sources
from jitlint.rules import all_rules

BAD = (
    "import jax\n\n@jax.jit\ndef f(x, dims):\n    print(x)\n    if x > 0:\n        return x\n"
    "    return -x\n"
)
TWICE = (
    "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        x = x\n"
    "    if x > 0:\n        x = -x\n"
)


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg dir").mkdir()
    (tmp_path / "pkg dir" / "bad.py").write_text(BAD)
    return tmp_path


def test_full_shows_the_line_carets_and_fix_title(project, capsys):
    code, out, _ = run(capsys, "--output-format", "full", "--unsafe-fixes", "pkg dir/bad.py")
    assert code == 1
    blocks = out.split("\n\n")
    assert blocks[0].splitlines() == [
        blocks[0].splitlines()[0],
        "  |",
        "5 |     print(x)",
        "  |     ^^^^^^^^",
        "  = help: Replace `print` with `jax.debug.print` (unsafe fix)",
    ]
    assert blocks[0].startswith("pkg dir/bad.py:5:5: JIT203 [*] ")
    assert blocks[1].splitlines()[2:4] == ["6 |     if x > 0:", "  |        ^^^^^"]


def test_full_lines_carets_up_under_tabs():
    from jitlint.model import Finding, Location

    f = Finding("JIT101", "traced-if", "m", "t.py", Location(1, 5), Location(1, 10))
    out = io.StringIO()
    write("full", [f], out, Sources({"t.py": "\tif  x > 0:\n"}))
    assert "\n  | \t   ^^^^^\n" in out.getvalue()


def test_github_annotations(project, capsys):
    code, out, _ = run(capsys, "--output-format", "github", "pkg dir/bad.py")
    assert code == 1
    first, second = out.splitlines()
    assert first.startswith(
        "::error file=pkg dir/bad.py,line=5,col=5,endLine=5,endColumn=13,"
        "title=JIT203 print-in-jit::`print` in traced code"
    )
    assert second.startswith("::error file=pkg dir/bad.py,line=6,col=8,endLine=6,endColumn=13,")


def test_github_escapes_data_and_properties():
    from jitlint.model import Finding, Location

    f = Finding(
        "JIT101", "traced-if", "100% wrong\nreally", "a,b:c.py", Location(1, 1), Location(1, 2)
    )
    out = io.StringIO()
    write("github", [f], out)
    assert out.getvalue() == (
        "::error file=a%2Cb%3Ac.py,line=1,col=1,endLine=1,endColumn=2,"
        "title=JIT101 traced-if::100%25 wrong%0Areally\n"
    )


# The parts of the SARIF 2.1.0 schema (OASIS, sarif-schema-2.1.0.json) this output uses, with
# the same required properties, enums and minimums; unknown properties are errors, as in the
# official schema, so a misspelt key fails here.
def _obj(properties, required=()):
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
        "required": list(required),
    }


_MESSAGE = _obj({"text": {"type": "string"}, "markdown": {"type": "string"}}, ["text"])
_ARTIFACT = _obj(
    {"uri": {"type": "string", "format": "uri-reference"}, "uriBaseId": {"type": "string"}}
)
_POSITIVE = {"type": "integer", "minimum": 1}
_LEVEL = {"enum": ["none", "note", "warning", "error"]}
SARIF_SUBSET = _obj(
    {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"enum": ["2.1.0"]},
        "runs": {
            "type": "array",
            "items": _obj(
                {
                    "tool": _obj(
                        {
                            "driver": _obj(
                                {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "informationUri": {"type": "string", "format": "uri"},
                                    "rules": {
                                        "type": "array",
                                        "items": _obj(
                                            {
                                                "id": {"type": "string"},
                                                "name": {"type": "string"},
                                                "shortDescription": _MESSAGE,
                                                "fullDescription": _MESSAGE,
                                                "help": _MESSAGE,
                                                "helpUri": {"type": "string", "format": "uri"},
                                                "defaultConfiguration": _obj({"level": _LEVEL}),
                                            },
                                            ["id", "name", "shortDescription", "helpUri"],
                                        ),
                                    },
                                },
                                ["name", "version", "informationUri", "rules"],
                            )
                        },
                        ["driver"],
                    ),
                    "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                    "originalUriBaseIds": {"type": "object", "additionalProperties": _ARTIFACT},
                    "results": {
                        "type": "array",
                        "items": _obj(
                            {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": -1},
                                "level": _LEVEL,
                                "message": _MESSAGE,
                                "locations": {
                                    "type": "array",
                                    "items": _obj(
                                        {
                                            "physicalLocation": _obj(
                                                {
                                                    "artifactLocation": _ARTIFACT,
                                                    "region": _obj(
                                                        {
                                                            "startLine": _POSITIVE,
                                                            "startColumn": _POSITIVE,
                                                            "endLine": _POSITIVE,
                                                            "endColumn": _POSITIVE,
                                                        },
                                                        ["startLine"],
                                                    ),
                                                },
                                                ["artifactLocation", "region"],
                                            )
                                        },
                                        ["physicalLocation"],
                                    ),
                                },
                                # Trace paths: where the code is traced from (SARIF 3.27.22).
                                "relatedLocations": {
                                    "type": "array",
                                    "items": _obj(
                                        {
                                            "id": {"type": "integer", "minimum": -1},
                                            "message": _MESSAGE,
                                            "physicalLocation": _obj(
                                                {
                                                    "artifactLocation": _ARTIFACT,
                                                    "region": _obj(
                                                        {"startLine": _POSITIVE}, ["startLine"]
                                                    ),
                                                },
                                                ["artifactLocation", "region"],
                                            ),
                                        },
                                        ["physicalLocation"],
                                    ),
                                },
                                "partialFingerprints": {
                                    "type": "object",
                                    "additionalProperties": {"type": "string"},
                                },
                            },
                            ["ruleId", "level", "message", "locations", "partialFingerprints"],
                        ),
                    },
                },
                ["tool", "results"],
            ),
        },
    },
    ["version", "runs"],
)


def _sarif(capsys, *paths):
    code, out, _ = run(capsys, "--output-format", "sarif", "--no-cache", *paths)
    assert code == 1
    return json.loads(out)


def test_sarif_is_valid_and_describes_every_rule(project, capsys):
    log = _sarif(capsys, "pkg dir/bad.py")
    jsonschema.Draft7Validator(
        SARIF_SUBSET, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    ).validate(log)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "jitlint"
    ids = [r["id"] for r in driver["rules"]]
    assert set(ids) >= {r.code for r in all_rules()} and len(ids) == len(set(ids))
    jit101 = driver["rules"][ids.index("JIT101")]
    assert jit101["fullDescription"]["text"].startswith("Flags ")
    assert "## Why is this bad?" in jit101["help"]["markdown"]
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["JIT203", "JIT101"]
    loc = results[1]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "pkg%20dir/bad.py"
    assert loc["region"] == {"startLine": 6, "startColumn": 8, "endLine": 6, "endColumn": 13}
    assert driver["rules"][results[1]["ruleIndex"]]["id"] == "JIT101"


def test_sarif_rejects_what_the_schema_rejects():
    log = sarif_log([], Sources())
    log["runs"][0]["tool"]["driver"]["rulez"] = []  # type: ignore[index]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, SARIF_SUBSET)


def _fingerprints(capsys, *paths):
    results = _sarif(capsys, *paths)["runs"][0]["results"]
    return [(r["ruleId"], r["partialFingerprints"]["jitlint/v1"]) for r in results]


def test_fingerprints_are_stable_and_ignore_line_shifts(project, capsys):
    path = project / "pkg dir" / "bad.py"
    first = _fingerprints(capsys, "pkg dir/bad.py")
    assert first == _fingerprints(capsys, "pkg dir/bad.py")
    path.write_text("# a new header line\n\n" + BAD)
    assert _fingerprints(capsys, "pkg dir/bad.py") == first
    path.write_text(TWICE)  # the same line twice: the occurrence index tells them apart
    twice = _fingerprints(capsys, "pkg dir/bad.py")
    assert len(twice) == 2 and twice[0][1] != twice[1][1]


def test_full_shows_lines_of_source_read_from_stdin(tmp_path, monkeypatch, capsys):
    import sys

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    code, out, _ = run(capsys, "--output-format", "full", "-", "--stdin-filename", "gone.py")
    assert code == 1
    assert "6 |     if x > 0:\n  |        ^^^^^\n" in out
