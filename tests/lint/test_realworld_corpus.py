"""The real-world corpus: well-formed labels, score floors, and every label checked by JAX."""

from __future__ import annotations

import ast
import datetime
import importlib.metadata
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "lint" / "realworld"


def _load(name: str) -> ModuleType:
    path = REPO / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # dataclasses resolve annotations through sys.modules.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


rs = _load("realworld_score")
vr = _load("verify_realworld")
cs = rs.cs

# jitlint's score on this corpus (1917 files, all the held-out batches in): precision 0.91
# (0.9110), recall 0.82 (0.8178) (TP 1270, FP 124, FN 283). The 1885 files of the round's
# start read 0.9126 / 0.8162 at its start (labels as they are now), 0.9143 / 0.8194 with the
# round's mechanisms. The seventy-second batch (6 files, scored first: 0.25 / 0.33) and the
# seventy-fourth (13, first: 0.90 / 0.69) are in with the mechanisms they showed and what
# they left; this round's reserve, the seventy-third (13, scored once: 0.70 / 0.70), too.
# Raise these as the model improves; a drop below them is a regression.
FLOOR_PRECISION = 0.90
FLOOR_RECALL = 0.80
MIN_FILES = 1917


def test_corpus_files_are_labelled_python_with_source_and_gap():
    labels = cs.read_labels(CORPUS)
    assert len(labels.files) >= MIN_FILES
    for path in labels.files:
        text = path.read_text(encoding="utf-8")
        ast.parse(text, filename=str(path))
        assert re.search(r"^# source: https?://\S+", text, re.MULTILINE), path.name
        gap = re.search(r"^# gap: (\S+)", text, re.MULTILINE)
        assert gap and gap.group(1) in rs.GAPS, path.name
        assert "observed on jax" in text, path.name
    for _, _, code in labels.expected | labels.tolerated:
        assert code in cs.ALL_CODES
    expected_files = {k[0] for k in labels.expected}
    for path in labels.files:
        if path.name.endswith("_ok.py"):
            assert path.name not in expected_files, "an _ok.py file holds no expectation"
    good = [p for p in labels.files if p.name not in expected_files]
    assert len(good) * 5 >= len(labels.files), "keep plenty of good files"


def test_score_does_not_drop_below_the_floors():
    if not cs.implemented_codes():
        pytest.skip("jitlint.rules.all_rules() does not exist yet")
    result, gaps, infos = rs.score_corpus(CORPUS)
    report = rs.format_gaps(gaps, infos) + "\n" + cs.format_report(result, CORPUS)
    assert not result.internal, report
    total = result.aggregate(result.rules)
    assert total.tp > 0, report
    assert total.precision >= FLOOR_PRECISION, report
    assert total.recall >= FLOOR_RECALL, report


def test_per_gap_table_counts_each_label_once(tmp_path):
    corpus = tmp_path / "rw"
    corpus.mkdir()
    (corpus / "a.py").write_text(
        "# source: https://github.com/o/r/issues/1\n# gap: omnistaging\n"
        "x = 1  # expect: JIT101\ny = 2  # expect: JIT404\n"
    )
    (corpus / "b_ok.py").write_text("# source: https://example.org/q\n# gap: types\nz = 3\n")
    labels = cs.read_labels(corpus)

    def finding(name: str, line: int, code: str) -> dict[str, object]:
        return {"code": code, "filename": str(corpus / name), "location": {"row": line}}

    findings = [finding("a.py", 3, "JIT101"), finding("b_ok.py", 3, "JIT402")]
    result = cs.score(labels, findings, corpus, {"JIT101", "JIT402", "JIT404"})
    infos = [rs.file_info(corpus, p, labels) for p in labels.files]
    table = rs.per_gap(result, labels, infos)
    assert (table["omnistaging"].tp, table["omnistaging"].fn) == (1, 1)
    assert table["types"].fp == 1
    assert [i.source for i in infos] == ["o/r", "example.org"]
    assert [i.labelled for i in infos] == [True, False]


def _stderr(path: Path, line: int, error: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        f'  File "{path}", line {line}, in <module>\n'
        '  File "/site-packages/jax/_src/core.py", line 9, in error\n'
        f"{error}\n"
    )


def test_verifier_requires_the_error_at_the_labelled_line(tmp_path):
    path = tmp_path / "case.py"
    path.write_text("import jax\n\nx = 1  # expect: JIT101\n")
    plan = vr.plan(path)
    error = "jax.errors.TracerBoolConversionError: boolean conversion"
    assert vr.judge(plan, 1, _stderr(path, 3, error)).status == "ok"
    assert vr.judge(plan, 1, _stderr(path, 2, error)).status == "FAIL"
    assert vr.judge(plan, 0, "").status == "FAIL"
    assert vr.judge(plan, 1, _stderr(tmp_path / "other.py", 3, error)).status == "FAIL"


def test_verifier_observed_comments_must_name_every_label(tmp_path):
    path = tmp_path / "silent.py"
    path.write_text(
        "x = 1  # expect: JIT203\ny = 2  # expect: JIT201\n"
        "if __name__ == '__main__':\n    # observed: line 1 prints once\n    pass\n"
    )
    plan = vr.plan(path)
    assert vr.judge(plan, 0, "").status == "FAIL"  # line 2 is not demonstrated
    path.write_text(path.read_text() + "    # observed: line 2 reads a stale value\n")
    plan = vr.plan(path)
    assert vr.judge(plan, 0, "").status == "ok"
    assert vr.judge(plan, 1, "AssertionError").status == "FAIL"


def test_verifier_good_files_must_run_clean_and_unverifiable_files_are_skipped(tmp_path):
    good = tmp_path / "good_ok.py"
    good.write_text("x = 1\n")
    assert vr.judge(vr.plan(good), 0, "").status == "ok"
    assert vr.judge(vr.plan(good), 1, "ValueError: boom").status == "FAIL"
    skipped = tmp_path / "skip.py"
    skipped.write_text("# unverifiable: needs a TPU\nx = 1  # expect: JIT101\n")
    assert vr.run_one(vr.plan(skipped), timeout=5).status == "unverifiable"


def test_verifier_runs_a_file_and_finds_the_raising_line(tmp_path):
    path = tmp_path / "raises.py"
    path.write_text("def f():\n    raise ValueError('x')  # expect: JIT401\n\nf()\n")
    assert vr.run_one(vr.plan(path), timeout=60).status == "ok"
    assert vr.main([str(path), "--jobs", "1"]) == 0
    assert vr.main([str(tmp_path / "missing")]) == 2


def test_forked_runs_judge_as_fresh_interpreters_do(tmp_path):
    # Each file run in a fork of a process that imported JAX must behave as `python FILE`:
    # the raising line, `__main__`, `__file__`, its folder on the import path and as the
    # working directory, exit statuses, and a file that sets JAX's environment run apart.
    (tmp_path / "helper_mod.py").write_text("VALUE = 3\n")
    files = {
        "raises.py": "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef f(x):\n"
        "    if x > 0:  # expect: JIT101\n        return x\n    return -x\n\nf(jnp.ones(()))\n",
        "main_ok.py": "import os, sys\nimport helper_mod\n"
        "assert __name__ == '__main__' and helper_mod.VALUE == 3\n"
        "assert os.getcwd() == os.path.dirname(os.path.abspath(__file__))\n"
        "assert sys.argv[0] == __file__\n",
        "exits_ok.py": "import sys\nsys.exit(3)\n",
        "environ_ok.py": "import os\nos.environ['JAX_ENABLE_X64'] = '1'\nimport jax.numpy as jnp\n"
        "assert jnp.ones(1).dtype == jnp.float64\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    paths = [tmp_path / name for name in files]
    forked = vr.verify(paths, jobs=1, timeout=120)
    fresh = vr.verify(paths, jobs=1, timeout=120, fresh=True)
    assert [(o.status, o.detail) for o in forked] == [(o.status, o.detail) for o in fresh]
    assert [o.status for o in forked] == ["ok", "ok", "FAIL", "ok"]


# A file the record holds as verified under the present versions runs again once every
# SHARE weeks: each run takes the files the record lacks and a different SHARE-th of the rest.
SHARE = 20


@pytest.mark.slow
def test_every_label_of_the_corpus_holds_under_jax():
    files = sorted(CORPUS.rglob("*.py"))
    todo = set(vr.unrecorded(files, vr.read_record())) | set(vr.rotating_share(files, SHARE))
    outcomes = vr.verify(sorted(todo), jobs=2, timeout=300)
    failed = [f"{o.path.name}: {o.detail}" for o in outcomes if o.status == "FAIL"]
    assert not failed, "\n".join(failed)
    unverifiable = [f for f in files if vr.plan(f).unverifiable is not None]
    assert len(unverifiable) * 10 <= len(files), "few files may be left unverified"


def test_the_verification_record_is_read_back_and_goes_stale_when_a_file_changes(tmp_path):
    good = tmp_path / "good_ok.py"
    good.write_text("import jax.numpy as jnp\nassert jnp.ones(2).sum() == 2\n")
    other = tmp_path / "other_ok.py"
    other.write_text("x = 1\n")
    record = tmp_path / "record.txt"
    vr.write_record({good.name: vr.verified_under(good)}, record)
    held = vr.read_record(record)
    assert vr.unrecorded([good, other], held) == [other]
    # what it was verified under names JAX's version and the packages the file imports
    jax_version = importlib.metadata.version("jax")
    assert f"jax={jax_version}" in held[good.name]
    good.write_text("import jax.numpy as jnp\nassert jnp.ones(3).sum() == 3\n")
    assert vr.unrecorded([good, other], held) == [good, other]
    held[good.name] = held[good.name].replace(f"jax={jax_version}", "jax=0.0.1")
    good.write_text("import jax.numpy as jnp\nassert jnp.ones(2).sum() == 2\n")
    assert vr.unrecorded([good], held) == [good], "another JAX version needs another run"


def test_the_rotating_share_covers_every_file_once_over_its_weeks():
    files = [Path(f"f{i:03}.py") for i in range(57)]
    start = datetime.date(2026, 1, 5)
    shares = [vr.rotating_share(files, 20, start + datetime.timedelta(weeks=w)) for w in range(20)]
    assert sorted(f for share in shares for f in share) == files
    assert all(2 <= len(share) <= 3 for share in shares)
