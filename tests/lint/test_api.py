"""The public library API: ``import jitlint`` is enough to lint, fix and describe rules."""

from __future__ import annotations

import dataclasses

import pytest

import jitlint
from jitlint.config import ConfigError

BAD = "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
FIXABLE = "import jax\n\n@jax.jit\ndef f(x, i):\n    x[i] = 0\n    return x\n"


def test_all_names_are_exported():
    for name in jitlint.__all__:
        assert hasattr(jitlint, name), name
    assert {"lint_source", "fix_source", "lint_paths", "settings_for", "list_rules"} <= set(
        jitlint.__all__
    )


def test_lint_source_accepts_text_and_bytes_alike():
    from_text = jitlint.lint_source(BAD, filename="m.py")
    from_bytes = jitlint.lint_source(BAD.encode(), filename="m.py")
    assert [(f.code, f.location.row, f.filename) for f in from_text.findings] == [
        ("JIT101", 5, "m.py")
    ]
    assert from_text.findings == from_bytes.findings
    assert isinstance(from_text.findings[0].location, jitlint.Location)


def test_lint_source_default_filename_and_settings_select():
    result = jitlint.lint_source(BAD)
    assert result.filename == "<stdin>"
    only_print = jitlint.Settings(select=frozenset({"JIT203"}))
    assert jitlint.lint_source(BAD, settings=only_print).findings == []


def test_lint_source_text_honours_its_coding_cookie():
    text = "# -*- coding: latin-1 -*-\n" + BAD.replace("return -x", "return -x  # é")
    result = jitlint.lint_source(text)
    assert [f.code for f in result.findings] == ["JIT101"]


def test_lint_source_never_raises_on_bad_input():
    result = jitlint.lint_source("import jax\ndef (:\n")
    assert [f.code for f in result.findings] == ["JIT900"]


def test_fix_source_applies_safe_fix_in_memory():
    outcome = jitlint.fix_source(FIXABLE, filename="m.py")
    assert isinstance(outcome, jitlint.FixOutcome)
    assert outcome.changed and outcome.fixed == 1
    assert b"x = x.at[i].set(0)" in outcome.source
    assert outcome.original == FIXABLE.encode()
    assert outcome.result.findings == []


def test_lint_paths_reads_the_nearest_config(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nignore = ["JIT101"]\n')
    (tmp_path / "m.py").write_text(BAD + "\n@jax.jit\ndef g(x):\n    print(x)\n")
    results = jitlint.lint_paths([str(tmp_path)])
    assert [f.code for r in results for f in r.findings] == ["JIT203"]
    explicit = jitlint.lint_paths([str(tmp_path)], settings=jitlint.Settings())
    assert sorted(f.code for r in explicit for f in r.findings) == ["JIT101", "JIT203"]


def test_settings_for_applies_the_table_above_a_file(tmp_path):
    sub = tmp_path / "pkg"
    sub.mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nselect = ["JIT1"]\n')
    settings = jitlint.settings_for(str(sub / "m.py"))
    # The JIT9xx codes (a file that could not be checked) stay on unless ignored.
    file_codes = {"JIT900", "JIT901", "JIT902", "JIT903"}
    assert settings.select == frozenset({"JIT101", "JIT102", "JIT103", "JIT104"} | file_codes)
    assert settings.root == str(tmp_path.resolve())


def test_settings_for_defaults_without_config(tmp_path):
    assert jitlint.settings_for(str(tmp_path / "m.py")).select == jitlint.Settings().select


def test_settings_for_reports_a_bad_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nselect = ["NOPE"]\n')
    with pytest.raises(ConfigError, match="unknown rule selector `NOPE`"):
        jitlint.settings_for(str(tmp_path / "m.py"))


def test_rules_describe_every_rule():
    infos = jitlint.list_rules()
    codes = [r.code for r in infos]
    assert codes == sorted(codes) and len(codes) == len(set(codes))
    by_code = {r.code: r for r in infos}
    assert by_code["JIT101"].name == "traced-if"
    assert by_code["JIT101"].summary.startswith("Flags an `if`/`elif` statement")
    assert by_code["JIT101"].summary.endswith(".")
    assert "## Why is this bad?" in by_code["JIT101"].doc_markdown
    assert by_code["JIT501"].fixable and not by_code["JIT101"].fixable
    for info in infos:
        assert info.summary and "\n" not in info.summary, info.code
    with pytest.raises(dataclasses.FrozenInstanceError):
        infos[0].code = "X"  # type: ignore[misc]


def test_rules_package_is_importable_beside_the_api() -> None:
    # The package root re-exports the API; no name there may shadow the `jitlint.rules`
    # package, or `import jitlint.rules.base as base` would fail for plugin authors.
    import jitlint.rules.base as base

    assert base.__name__ == "jitlint.rules.base"
    assert callable(jitlint.list_rules)


MODEL = "import jax.numpy as jnp\n\n\ndef helper(x):\n    return -x\n"
TRAIN = (
    "import jax\n\nfrom pkg.model import helper\n\n\n@jax.jit\ndef step(x):\n    return helper(x)\n"
)


def test_lint_paths_reads_unsaved_text_from_the_overlay(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(MODEL)
    (pkg / "train.py").write_text(TRAIN.replace("@jax.jit\n", ""))
    model = str(pkg / "model.py")
    assert jitlint.lint_paths([model], project=True)[0].findings == []
    # The linted file's unsaved text, and an importer's unsaved text, both count.
    edited = MODEL.replace("    return -x", "    if x > 0:\n        return x\n    return -x")
    overlay = {model: edited, str(pkg / "train.py"): TRAIN}
    (result,) = jitlint.lint_paths([model], project=True, overlay=overlay)
    assert [(f.code, f.location.row) for f in result.findings] == [("JIT101", 5)]
    assert (pkg / "model.py").read_text() == MODEL  # nothing written
    overlay[str(pkg / "train.py")] = TRAIN.replace("@jax.jit\n", "")
    assert jitlint.lint_paths([model], project=True, overlay=overlay)[0].findings == []
