"""Whole-project analysis: calls followed across modules, one-file runs, traces, bounds."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from jitlint.cli import main
from jitlint.engine.cache import Cache
from jitlint.engine.runner import lint_paths
from jitlint.engine.settings import Settings


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _found(root: Path, *paths: str, cache: Cache | None = None) -> set[tuple[str, int, str]]:
    results = lint_paths([str(root / p) for p in paths], Settings(), cache, project=True)
    assert not any(r.errors for r in results), [r.errors for r in results]
    return {
        (Path(f.filename).relative_to(root).as_posix(), f.location.row, f.code)
        for r in results
        for f in r.findings
    }


TRAIN = "import jax\nfrom pkg.model import clip\n\n\n@jax.jit\ndef step(x):\n    return clip(x)\n"
MODEL = "def clip(loss):\n    if loss > 1.0:\n        return 1.0\n    return loss\n"


def test_helper_in_another_module_is_analysed_with_the_callers_taints(tmp_path):
    _tree(
        tmp_path,
        {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/train.py": TRAIN, "pkg/model.py": MODEL},
    )
    assert _found(tmp_path, "pkg") == {("pkg/model.py", 2, "JIT101")}


def test_one_file_run_reads_the_modules_that_import_it(tmp_path):
    _tree(
        tmp_path,
        {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/train.py": TRAIN, "pkg/model.py": MODEL},
    )
    # model.py never mentions jax: only train.py's jitted step makes clip traced.
    assert _found(tmp_path, "pkg/model.py") == {("pkg/model.py", 2, "JIT101")}
    assert _found(tmp_path, "pkg/train.py") == set()  # findings only for the paths asked


def test_every_import_form_reaches_the_helper(tmp_path):
    helper = "import jax.numpy as jnp\n\n\ndef f(x):\n    return float(x)\n"
    jit = "import jax\n"
    forms = {
        "a.py": "import jax\nimport pkg.sub.helpers\n\n\n@jax.jit\ndef g(x):\n"
        "    return pkg.sub.helpers.f(x)\n",
        "b.py": jit + "import pkg.sub.helpers as h\n\n\n@jax.jit\ndef g(x):\n    return h.f(x)\n",
        "c.py": "import jax\nfrom pkg.sub import helpers\n\n\n@jax.jit\ndef g(x):\n"
        "    return helpers.f(x)\n",
        "d.py": "import jax\nfrom .sub import helpers\n\n\n@jax.jit\ndef g(x):\n"
        "    return helpers.f(x)\n",
        "e.py": jit + "from .sub.helpers import f\n\n\n@jax.jit\ndef g(x):\n    return f(x)\n",
        "f.py": jit + "from .sub import *\n\n\n@jax.jit\ndef g(x):\n    return reexported(x)\n",
    }
    for name, text in forms.items():
        files = {
            "setup.cfg": "",
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "from .helpers import f as reexported\n",
            "pkg/sub/helpers.py": helper,
            f"pkg/{name}": text,
        }
        root = _tree(tmp_path / name[0], files)
        got = _found(root, "pkg/sub/helpers.py", f"pkg/{name}")
        assert got == {("pkg/sub/helpers.py", 5, "JIT401")}, name


def test_methods_call_and_super_across_modules(tmp_path):
    layers = (
        "import equinox as eqx\nimport jax.numpy as jnp\n\n\n"
        "class Base(eqx.Module):\n    def shift(self, x):\n        return int(x.sum())\n\n\n"
        "class Child(Base):\n    def __call__(self, x):\n        return super().shift(x)\n"
    )
    train = (
        "import equinox as eqx\nfrom pkg.layers import Child\n\nm = Child()\n\n\n"
        "@eqx.filter_jit\ndef run(model: Child, x):\n    return model(x)\n\n\n"
        "@eqx.filter_jit\ndef run2(x):\n    return m(x)\n"
    )
    _tree(
        tmp_path,
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "",
            "pkg/layers.py": layers,
            "pkg/train.py": train,
        },
    )
    assert _found(tmp_path, "pkg") == {("pkg/layers.py", 7, "JIT401")}


def test_module_state_rebound_from_another_module_is_stale(tmp_path):
    _tree(
        tmp_path,
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "",
            "pkg/config.py": "SCALE = 1.0\nFIXED = 2.0\n",
            "pkg/step.py": "import jax\nfrom pkg import config\n\n\n@jax.jit\ndef f(x):\n"
            "    return x * config.SCALE * config.FIXED\n",
            "pkg/main.py": "from pkg import config\n\n\ndef set_scale(v):\n    config.SCALE = v\n",
        },
    )
    assert _found(tmp_path, "pkg") == {("pkg/step.py", 7, "JIT201")}


@pytest.mark.parametrize(
    "write",
    [
        "    config.SCALE *= v\n",
        "    (\n        config.SCALE,\n        other,\n    ) = v, v\n",
        "    del config.SCALE\n",
    ],
    ids=["augmented", "multi-line-tuple", "del"],
)
def test_module_state_written_in_any_statement_form_is_stale(tmp_path, write):
    # main.py is parsed only if Python's parser sees an attribute SCALE stored in it.
    _tree(
        tmp_path,
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "",
            "pkg/config.py": "SCALE = 1.0\n",
            "pkg/step.py": "import jax\nfrom pkg import config\n\n\n@jax.jit\ndef f(x):\n"
            "    return x * config.SCALE\n",
            "pkg/main.py": "from pkg import config\n\n\ndef set_scale(v):\n" + write,
        },
    )
    assert _found(tmp_path, "pkg") == {("pkg/step.py", 7, "JIT201")}


def test_project_run_leaves_the_collector_as_it_found_it(tmp_path):
    _tree(
        tmp_path,
        {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/train.py": TRAIN, "pkg/model.py": MODEL},
    )
    assert gc.get_freeze_count() == 0
    assert _found(tmp_path, "pkg") == {("pkg/model.py", 2, "JIT101")}
    assert gc.get_freeze_count() == 0  # the parsed trees were frozen during the walk only
    gc.freeze()  # a host that froze its own objects keeps them frozen
    try:
        before = gc.get_freeze_count()
        assert _found(tmp_path, "pkg") == {("pkg/model.py", 2, "JIT101")}
        assert gc.get_freeze_count() >= before
    finally:
        gc.unfreeze()


def test_trace_path_in_json_and_full_output(tmp_path, capsys, monkeypatch):
    _tree(
        tmp_path,
        {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/train.py": TRAIN, "pkg/model.py": MODEL},
    )
    monkeypatch.chdir(tmp_path)
    assert main(["--project", "--output-format", "json", "--no-cache", "pkg/model.py"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)
    assert finding["trace"] == [
        {"filename": "pkg/train.py", "row": 6, "name": "step", "transform": "jax.jit"},
        {"filename": "pkg/model.py", "row": 1, "name": "clip", "transform": None},
    ]
    assert main(["--project", "--output-format", "full", "--no-cache", "pkg/model.py"]) == 1
    out = capsys.readouterr().out
    assert "reached from\n" in out and "pkg/train.py:6 step (jax.jit)\n" in out
    assert "  pkg/model.py:1 clip\n" in out


def test_cache_follows_a_changed_dependency(tmp_path):
    files = {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/model.py": MODEL}
    files["pkg/train.py"] = (
        "import jax\nfrom pkg.model import clip\n\n\ndef step(x):\n    return clip(x)\n"
    )
    _tree(tmp_path, files)
    cache = Cache(tmp_path / ".cache")
    assert _found(tmp_path, "pkg/model.py", cache=cache) == set()
    (tmp_path / "pkg" / "train.py").write_text(TRAIN)  # now jits a path into model.py
    assert _found(tmp_path, "pkg/model.py", cache=cache) == {("pkg/model.py", 2, "JIT101")}


def _whole_project(tmp_path: Path) -> dict[str, str]:
    files = {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/model.py": MODEL}
    files["pkg/train.py"] = (
        "import jax\nfrom pkg.model import clip\n\n\ndef step(x):\n    return clip(x)\n"
    )
    # A group of modules of its own: an entry point and the helper it traces.
    files["pkg/other.py"] = "import jax\n\n\n@jax.jit\ndef g(x):\n    return x + 1\n"
    _tree(tmp_path, files)
    return files


def test_whole_project_cache_follows_a_new_traced_path(tmp_path):
    _whole_project(tmp_path)
    cache = Cache(tmp_path / ".cache")
    assert _found(tmp_path, "pkg", cache=cache) == set()
    (tmp_path / "pkg" / "train.py").write_text(TRAIN)  # now jits a path into model.py
    assert _found(tmp_path, "pkg", cache=cache) == {("pkg/model.py", 2, "JIT101")}
    (tmp_path / "pkg" / "train.py").write_text(TRAIN.replace("@jax.jit\n", ""))
    assert _found(tmp_path, "pkg", cache=cache) == set()  # and forgets it again


def test_whole_project_cache_analyses_only_the_changed_group(tmp_path, monkeypatch):
    from jitlint.engine import project_mode

    files = _whole_project(tmp_path)
    (tmp_path / "pkg" / "train.py").write_text(TRAIN)
    cache = Cache(tmp_path / ".cache")
    expected = {("pkg/model.py", 2, "JIT101")}
    assert _found(tmp_path, "pkg", cache=cache) == expected
    walked: list[str] = []
    real = project_mode.lint_project

    def spy(project, targets, settings, extra_units=(), workers=1):  # type: ignore[no-untyped-def]
        walked.extend(Path(n).name for n, _ in targets)
        walked.extend(Path(u).name for u in extra_units)
        return real(project, targets, settings, extra_units, workers)

    monkeypatch.setattr(project_mode, "lint_project", spy)
    assert _found(tmp_path, "pkg", cache=cache) == expected
    assert walked == []  # nothing changed: nothing analysed
    (tmp_path / "pkg" / "other.py").write_text(files["pkg/other.py"] + "# edited\n")
    assert _found(tmp_path, "pkg", cache=cache) == expected
    assert sorted(set(walked)) == ["other.py"]  # train.py and model.py come from the cache
    walked.clear()
    (tmp_path / "pkg" / "model.py").write_text(MODEL.replace("1.0:", "2.0:"))
    assert _found(tmp_path, "pkg", cache=cache) == expected
    assert sorted(set(walked)) == ["model.py", "train.py"]


def test_whole_project_cache_follows_a_changed_re_export(tmp_path):
    safe = "def clip(loss):\n    return loss\n"
    files = {"pyproject.toml": "", "pkg/model.py": MODEL, "pkg/safe.py": safe}
    files["pkg/__init__.py"] = "from pkg.safe import clip\n"
    files["pkg/train.py"] = TRAIN.replace("from pkg.model import clip", "from pkg import clip")
    _tree(tmp_path, files)
    cache = Cache(tmp_path / ".cache")
    assert _found(tmp_path, "pkg", cache=cache) == set()
    # Only the package's `__init__` changes: the walk of train.py read it, so it runs again.
    (tmp_path / "pkg" / "__init__.py").write_text("from pkg.model import clip\n")
    assert _found(tmp_path, "pkg", cache=cache) == {("pkg/model.py", 2, "JIT101")}


def test_whole_project_cache_keeps_a_finding_another_entry_point_reaches(tmp_path):
    # Both steps trace model.clip with the same taints: the second walk reuses the first
    # one's analysis, and still counts as reaching model.py when the first stops calling it.
    files = {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/model.py": MODEL}
    files["pkg/a_step.py"] = TRAIN
    files["pkg/b_step.py"] = TRAIN
    _tree(tmp_path, files)
    cache = Cache(tmp_path / ".cache")
    expected = {("pkg/model.py", 2, "JIT101")}
    assert _found(tmp_path, "pkg", cache=cache) == expected
    (tmp_path / "pkg" / "a_step.py").write_text(
        "import jax\n\n\n@jax.jit\ndef step(x):\n    return x\n"
    )
    assert _found(tmp_path, "pkg", cache=cache) == expected
    assert _found(tmp_path, "pkg") == expected  # as a run without the cache says


def test_whole_project_cache_follows_a_module_global_written_elsewhere(tmp_path):
    step = "import jax\nfrom pkg import config\n\n\n@jax.jit\ndef step(x):\n"
    step += "    return x * config.LR\n"
    files = {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/config.py": "LR = 0.1\n"}
    files["pkg/train.py"] = step
    files["pkg/tweak.py"] = "from pkg import config\n\n\ndef warmup():\n    pass\n"
    _tree(tmp_path, files)
    cache = Cache(tmp_path / ".cache")
    assert _found(tmp_path, "pkg", cache=cache) == set()
    tweak = tmp_path / "pkg" / "tweak.py"
    tweak.write_text(files["pkg/tweak.py"].replace("pass", "config.LR = 0.2"))
    assert _found(tmp_path, "pkg", cache=cache) == {("pkg/train.py", 7, "JIT201")}
    tweak.write_text(files["pkg/tweak.py"])  # and the write removed again
    assert _found(tmp_path, "pkg", cache=cache) == set()


def test_bad_project_shapes_do_not_crash(tmp_path, capsys):
    _tree(
        tmp_path,
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "from pkg.a import *\nfrom pkg.missing import *\n",
            # an import cycle, mutual recursion across modules, a star import of nothing
            "pkg/a.py": "import jax\nfrom pkg import b\n\n\ndef f(x, n):\n"
            "    return b.g(x, n)\n\n\n"
            "@jax.jit\ndef entry(x):\n    return f(x, 3)\n",
            "pkg/b.py": "from pkg import a\nfrom .nowhere import *\n\n\ndef g(x, n):\n"
            "    if x > 0:\n        return a.f(x, n - 1)\n    return x\n",
            # the same file imported under two names (pkg.c and, from scripts, c)
            "pkg/c.py": "import jax\nfrom pkg.c import h\n\n\ndef h(x):\n    return x\n",
            "pkg/d.py": "def broken(:\n",
        },
    )
    assert _found(tmp_path, "pkg/a.py", "pkg/b.py", "pkg/c.py") == {("pkg/b.py", 6, "JIT101")}
    results = lint_paths([str(tmp_path / "pkg")], Settings(), None, project=True)
    assert [f.code for r in results for f in r.findings if r.filename.endswith("d.py")] == []


def test_module_imported_under_two_names_and_branch_definitions(tmp_path):
    helpers = (
        "import sys\n\n\ndef clip(x):\n    if x > 1.0:\n        return 1.0\n    return x\n\n\n"
        "if sys.version_info >= (3, 11):\n\n    def pick(x):\n        return x\n\n"
        "else:\n\n    def pick(x):\n        return float(x)\n"
    )
    _tree(
        tmp_path,
        {
            "pyproject.toml": "[tool.jitlint]\nsrc = ['.', 'pkg']\n",
            "pkg/__init__.py": "",
            "pkg/helpers.py": helpers,
            # the same file as `pkg.helpers` and, through the second source root, `helpers`;
            # `pick` is defined on two branches: not resolved, never a crash
            "pkg/train.py": "import jax\nimport helpers\nfrom pkg import helpers as same\n\n\n"
            "@jax.jit\ndef step(x):\n    return helpers.clip(x) + same.clip(x) + same.pick(x)\n",
        },
    )
    assert _found(tmp_path, "pkg") == {("pkg/helpers.py", 5, "JIT101")}  # once, not twice


@pytest.mark.slow
def test_ten_thousand_modules_stay_bounded_and_say_so_once(tmp_path, capsys):
    files = {"pyproject.toml": "", "big/__init__.py": ""}
    fan = 600  # more modules than one run parses
    calls = "".join(f"    x = m{i}.f(x)\n" for i in range(1, fan + 1))
    imports = "".join(f"from big import m{i}\n" for i in range(1, fan + 1))
    files["big/m0.py"] = f"import jax\n{imports}\n\n@jax.jit\ndef entry(x):\n{calls}    return x\n"
    for i in range(1, 10_000):
        files[f"big/m{i}.py"] = (
            f"from big import m{i + 1}\n\n\ndef f(x):\n    return m{i + 1}.f(x) + 1\n"
            if i < 9_999
            else "def f(x):\n    if x > 0:\n        return x\n    return -x\n"
        )
    _tree(tmp_path, files)
    code = main(["--project", "--no-cache", "--exit-zero", str(tmp_path / "big")])
    assert code == 0
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if line.startswith("jitlint: warning:")]
    assert warnings, err
    assert len(warnings) == len(set(warnings))  # each bound said once
    assert "after 500 modules" in err
    assert "Traceback" not in err


def test_worker_shares_are_cut_between_packages():
    from jitlint.engine.project_mode import split_shares

    # The equal share falls inside package b; the cut moves to the a|b boundary (within the
    # slack), where no package's shared modules are parsed by both processes.
    units = ["/p/a/x.py", "/p/a/y.py", "/p/b/m.py", "/p/b/n.py", "/p/b/o.py", "/p/c/z.py"]
    sizes = [30, 15, 10, 10, 10, 25]
    assert split_shares(units, sizes, 2) == [units[:2], units[2:]]
    # No package boundary near the equal share: a subpackage boundary is the next best.
    deep = ["/p/a/s/1.py", "/p/a/s/2.py", "/p/a/t/3.py", "/p/a/t/4.py"]
    assert split_shares(deep, [10, 12, 9, 10], 2) == [deep[:2], deep[2:]]
    # Every share gets a unit while there are enough, even when one unit outweighs the rest.
    assert split_shares(["/a.py", "/b.py"], [1, 100], 2) == [["/a.py"], ["/b.py"]]
    shares = split_shares([f"/p/m{i:02}.py" for i in range(12)], [1] * 12, 3)
    assert [len(s) for s in shares] == [4, 4, 4]
    assert [u for share in shares for u in share] == [f"/p/m{i:02}.py" for i in range(12)]


def test_parsing_leaves_the_cycle_collector_as_it_found_it():
    from jitlint.analysis.cst_util import parse_module

    assert gc.isenabled()
    parse_module("x = 1\n")
    assert gc.isenabled()
    gc.disable()
    try:
        parse_module("x = 1\n")
        assert not gc.isenabled()
    finally:
        gc.enable()
