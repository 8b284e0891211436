"""The project index: roots, source roots, module names and import targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from jitlint.analysis.project_index import (
    ProjectIndex,
    absolute_module,
    find_root,
    imported_modules,
)

PROJECTS = Path(__file__).resolve().parent / "projects"


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_root_is_the_nearest_project_marker():
    model = PROJECTS / "flat_trainer" / "trainer" / "model.py"
    assert find_root(model) == PROJECTS / "flat_trainer"
    assert find_root(PROJECTS / "nested_app" / "app" / "utils" / "numerics.py") == (
        PROJECTS / "nested_app"
    )


def test_root_without_markers_is_above_the_outermost_package(tmp_path):
    _tree(tmp_path, {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/m.py": ""})
    assert find_root(tmp_path / "pkg" / "sub" / "m.py") == tmp_path


def test_src_layout_names_modules_from_src():
    index = ProjectIndex(PROJECTS / "src_regress")
    core = PROJECTS / "src_regress" / "src" / "regress" / "core.py"
    assert index.module_name(core) == "regress.core"
    assert index.module_name(core.parent / "__init__.py") == "regress"
    assert index.find_module("regress.settings") == core.parent / "settings.py"
    assert index.find_module("regress") == core.parent / "__init__.py"
    assert index.find_module("jax") is None


def test_configured_src_and_namespace_packages():
    root = PROJECTS / "ns_pipeline"
    index = ProjectIndex(root)
    smooth = root / "lib" / "pipeline" / "stages" / "smooth.py"
    assert index.module_name(smooth) == "pipeline.stages.smooth"
    assert index.find_module("pipeline.stages.smooth") == smooth
    assert index.find_module("pipeline.stages") == smooth.parent  # no __init__.py
    script = root / "scripts" / "run_pipeline.py"
    assert index.module_name(script) == "run_pipeline"


def test_scripts_import_from_their_own_directory(tmp_path):
    _tree(tmp_path, {"setup.py": "", "tools/run.py": "", "tools/helpers.py": ""})
    index = ProjectIndex(tmp_path)
    run = tmp_path / "tools" / "run.py"
    assert index.find_module("helpers") is None
    assert index.find_module("helpers", near=run) == tmp_path / "tools" / "helpers.py"


@pytest.mark.parametrize(
    ("current", "is_package", "level", "module", "expected"),
    [
        ("app.training.step", False, 1, None, "app.training"),
        ("app.training.step", False, 2, "models", "app.models"),
        ("app.training.step", False, 2, None, "app"),
        ("app.models", True, 1, "mlp", "app.models.mlp"),
        ("app.models", True, 2, "utils.numerics", "app.utils.numerics"),
        ("app.training.step", False, 0, "jax.numpy", "jax.numpy"),
        ("top", False, 2, "x", None),  # climbs above the top package
    ],
)
def test_relative_imports_resolve(current, is_package, level, module, expected):
    assert absolute_module(current, is_package, level, module) == expected


def test_imported_modules_lists_every_form():
    source = (
        b"import a.b\nimport c as d\nfrom e import f\nfrom . import g\n"
        b"from .h import i\nfrom ..pkg import *\n"
    )
    got = imported_modules(source, "top.sub.mod", False)
    assert got == (
        "a.b",
        "c",
        "e",
        "e.f",
        "top.sub",
        "top.sub.g",
        "top.sub.h",
        "top.sub.h.i",
        "top.pkg",
    )
    assert imported_modules(b"def (:\n", "m", False) == ()


def test_walk_is_bounded(tmp_path, monkeypatch):
    import jitlint.analysis.project_index as pi

    _tree(tmp_path, {f"m{i}.py": "" for i in range(5)} | {"pyproject.toml": ""})
    monkeypatch.setattr(pi, "MAX_FILES", 3)
    index = ProjectIndex(tmp_path)
    assert len(list(index.files())) == 3 and index.truncated


def test_root_climbs_through_a_namespace_subpackage(tmp_path):
    (tmp_path / "lib" / "pkg" / "_src").mkdir(parents=True)
    (tmp_path / "lib" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "lib" / "pkg" / "_src" / "core.py").write_text("")
    assert find_root(tmp_path / "lib" / "pkg" / "_src" / "core.py") == tmp_path / "lib"
