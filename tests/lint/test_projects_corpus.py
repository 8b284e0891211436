"""Score jitlint on the multi-module corpus: whole-project runs and one-file runs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jitlint.engine.runner import lint_paths
from jitlint.engine.settings import Settings
from tests.lint.test_corpus import cs

REPO = Path(__file__).resolve().parents[2]
PROJECTS = REPO / "tests" / "lint" / "projects"


def _projects() -> list[Path]:
    return sorted(p for p in PROJECTS.iterdir() if p.is_dir())


def test_corpus_has_varied_projects_with_bugs_and_lookalikes():
    labels = cs.read_labels(PROJECTS)
    projects = _projects()
    assert len(projects) >= 5
    for path in labels.files:
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for project in projects:
        name = project.name + "/"
        labelled = {k[0] for k in labels.expected if k[0].startswith(name)}
        files = [p for p in labels.files if p.is_relative_to(project)]
        assert len(labelled) >= 2, f"{project.name}: bugs in at least two modules"
        assert len(files) > len(labelled), f"{project.name}: keep silent modules too"
    # The layouts the corpus promises.
    assert (PROJECTS / "src_regress" / "src").is_dir()
    assert (PROJECTS / "nested_app" / "setup.cfg").is_file()
    assert not (PROJECTS / "ns_pipeline" / "lib" / "pipeline" / "__init__.py").exists()


def test_whole_project_runs_score_above_the_floor():
    implemented = cs.implemented_codes()
    labels = cs.read_labels(PROJECTS)
    _, findings = cs.run_jitlint(_projects(), ["--project"])
    result = cs.score(labels, findings, PROJECTS, implemented)
    report = cs.format_report(result, PROJECTS)
    assert not result.internal, report
    total = result.aggregate(result.rules)
    assert total.precision >= 0.95 and total.recall >= 0.90, report


@pytest.mark.slow
def test_one_file_runs_still_see_the_project():
    """Lint each labelled file alone (as pre-commit does): the same labels, nothing else."""
    labels = cs.read_labels(PROJECTS)
    expected = sorted({k[0] for k in labels.expected})
    hits = misses = 0
    for name in expected:
        path = PROJECTS / name
        results = lint_paths([str(path)], Settings(), None, project=True)
        assert [r.filename for r in results] == [str(path)], "only the asked-for file"
        assert not any(r.errors for r in results)
        found = {(name, f.location.row, f.code) for r in results for f in r.findings}
        want = {k for k in labels.expected if k[0] == name}
        assert found <= want | labels.tolerated, found - want
        hits += len(found & want)
        misses += len(want - found)
    assert hits / (hits + misses) >= 0.90
