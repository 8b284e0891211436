"""Score jitlint on the labelled corpus: precision and recall per rule, against targets."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from . import _corpus as cs

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "lint" / "corpus"


def test_corpus_is_large_valid_python_and_covers_every_rule():
    labels = cs.read_labels(CORPUS)
    assert len(labels.files) >= 80
    for path in labels.files:
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    codes = {code for _, _, code in labels.expected}
    assert codes == set(cs.ALL_CODES)
    silent = [p for p in labels.files if not any(k[0] == p.name for k in labels.expected)]
    assert len(silent) >= 15, "keep plenty of good lookalikes that must stay silent"
    assert {p for p in labels.files if p.name.endswith("_ok.py")} <= set(silent)


def test_labels_use_known_codes_only():
    labels = cs.read_labels(CORPUS)
    for _, _, code in labels.expected | labels.tolerated:
        assert code in cs.ALL_CODES


def test_scorer_counts_hits_misses_and_false_positives(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.py").write_text(
        "import jax\n"
        "x = 1  # expect: JIT101\n"
        "y = 2  # expect: JIT101,JIT203\n"
        "z = 3  # tolerate: JIT103\n"
    )
    labels = cs.read_labels(corpus)

    def finding(line: int, code: str) -> dict[str, object]:
        return {"code": code, "filename": str(corpus / "a.py"), "location": {"row": line}}

    findings = [finding(2, "JIT101"), finding(4, "JIT103"), finding(1, "JIT101")]
    result = cs.score(labels, findings, corpus, {"JIT101", "JIT103"})
    assert (result.rules["JIT101"].tp, result.rules["JIT101"].fp) == (1, 1)
    assert result.rules["JIT101"].fn == 1
    assert result.rules["JIT103"].fp == 0
    assert result.rules["JIT203"].fn == 1 and not result.rules["JIT203"].implemented
    # A code the linter does not implement is still a miss: removing a rule shows.
    assert result.misses == [("a.py", 3, "JIT101"), ("a.py", 3, "JIT203")]
    assert result.false_positives == [("a.py", 1, "JIT101")]


@pytest.mark.slow
def test_corpus_precision_and_recall():
    implemented = cs.implemented_codes()
    labels = cs.read_labels(CORPUS)
    _, findings = cs.run_jitlint(labels.files)
    result = cs.score(labels, findings, CORPUS, implemented)
    report = cs.format_report(result, CORPUS)
    assert not result.internal, report
    core = result.aggregate(cs.CORE_CODES)
    overall = result.aggregate(result.rules)
    assert core.precision >= 0.95 and core.recall >= 0.90, report
    assert overall.precision >= 0.95 and overall.recall >= 0.85, report
