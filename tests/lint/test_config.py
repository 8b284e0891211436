"""Hierarchical configuration: the nearest config per file, ``extend``, ``--config``, validation."""

from __future__ import annotations

import os

import pytest

from jitlint.cli import main

# Two bugs in one file: JIT203 (print) on line 5, JIT101 (traced if) on line 6.
BAD = (
    "import jax\n\n@jax.jit\ndef f(x):\n    print(x)\n    if x > 0:\n        return x\n"
    "    return -x\n"
)


def run(capsys, *args):
    code = main(["--no-cache", *args])
    out, err = capsys.readouterr()
    return code, out, err


def codes_by_file(out: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for line in out.splitlines():
        where, code = line.split(": ")[0], line.split(": ")[1].split()[0]
        found.setdefault(os.path.basename(where.split(":")[0]), set()).add(code)
    return found


@pytest.fixture
def monorepo(tmp_path, monkeypatch):
    """Two packages: pkga (pyproject.toml) selects JIT101, pkgb (jitlint.toml) JIT203."""
    monkeypatch.chdir(tmp_path)
    for pkg in ("pkga", "pkgb"):
        (tmp_path / pkg / "src").mkdir(parents=True)
        (tmp_path / pkg / "src" / f"{pkg}_mod.py").write_text(BAD)
    (tmp_path / "pkga" / "pyproject.toml").write_text(
        '[project]\nname = "pkga"\n\n[tool.jitlint]\nselect = ["JIT101"]\n'
    )
    (tmp_path / "pkgb" / "jitlint.toml").write_text('select = ["print-in-jit"]\n')
    (tmp_path / "top.py").write_text(BAD)
    return tmp_path


WANT = {"pkga_mod.py": {"JIT101"}, "pkgb_mod.py": {"JIT203"}, "top.py": {"JIT101", "JIT203"}}


@pytest.mark.parametrize(
    "args",
    [
        ["."],
        ["pkga", "pkgb", "top.py"],
        ["pkga/src/pkga_mod.py", "pkgb/src/pkgb_mod.py", "top.py"],  # as pre-commit passes them
        ["pkgb/src/pkgb_mod.py", "top.py", "pkga/src/pkga_mod.py"],
    ],
)
def test_each_file_gets_its_own_packages_rules(monorepo, capsys, args):
    code, out, err = run(capsys, *args)
    assert code == 1, err
    assert codes_by_file(out) == WANT


def test_own_rules_from_inside_a_package(monorepo, capsys, monkeypatch):
    monkeypatch.chdir(monorepo / "pkga")
    code, out, _ = run(capsys, "src/pkga_mod.py", "../pkgb/src/pkgb_mod.py")
    assert code == 1
    assert codes_by_file(out) == {"pkga_mod.py": {"JIT101"}, "pkgb_mod.py": {"JIT203"}}


def test_fix_uses_each_files_config(monorepo, capsys):
    # --diff lints each file with its own rules too: pkgb selects only JIT203 (no fix), so
    # nothing changes there, while its JIT101 would have been reported under pkga's rules.
    code, out, err = run(capsys, "--diff", "pkgb")
    assert code == 0 and out == "", err


def test_jitlint_toml_wins_over_pyproject_in_one_directory(monorepo, capsys):
    (monorepo / "pkgb" / "pyproject.toml").write_text('[tool.jitlint]\nselect = ["JIT101"]\n')
    _, out, _ = run(capsys, "pkgb")
    assert codes_by_file(out) == {"pkgb_mod.py": {"JIT203"}}


def test_extend_takes_the_base_and_overrides_it(monorepo, capsys):
    (monorepo / "pyproject.toml").write_text(
        '[tool.jitlint]\nselect = ["JIT1", "JIT2"]\n\n[tool.jitlint.per-file-ignores]\n'
        '"pkgb/src/*" = ["JIT101"]\n'
    )
    (monorepo / "pkgb" / "jitlint.toml").write_text('extend = "../pyproject.toml"\n')
    _, out, _ = run(capsys, "pkgb", "top.py")
    # The base's per-file pattern is written relative to the base file and still applies.
    assert codes_by_file(out) == {"pkgb_mod.py": {"JIT203"}, "top.py": {"JIT101", "JIT203"}}
    (monorepo / "pkgb" / "jitlint.toml").write_text(
        'extend = "../pyproject.toml"\nignore = ["JIT203"]\n'
    )
    _, out, _ = run(capsys, "pkgb", "top.py")
    assert codes_by_file(out) == {"top.py": {"JIT101", "JIT203"}}


def test_extend_cycle_is_one_line(monorepo, capsys):
    (monorepo / "pkgb" / "jitlint.toml").write_text('extend = "../jitlint.toml"\n')
    (monorepo / "jitlint.toml").write_text('extend = "pkgb/jitlint.toml"\n')
    code, out, err = run(capsys, "pkgb")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "`extend` makes a cycle" in err


def test_config_flag_applies_to_every_file(monorepo, capsys):
    (monorepo / "only402.toml").write_text('select = ["JIT203"]\n')
    _, out, _ = run(capsys, "--config", "only402.toml", ".")
    assert codes_by_file(out) == {n: {"JIT203"} for n in WANT}


def test_missing_config_flag_file(monorepo, capsys):
    code, _, err = run(capsys, "--config", "nope.toml", ".")
    assert code == 2 and err == "jitlint: error: --config: no such file nope.toml\n"


def test_command_line_select_overrides_every_config(monorepo, capsys):
    _, out, _ = run(capsys, "--select", "JIT203", ".")
    assert codes_by_file(out) == {n: {"JIT203"} for n in WANT}


@pytest.mark.parametrize(
    ("body", "key", "expected", "got"),
    [
        ('select = "JIT101"', "select", "a list of strings", "a string"),
        ('ignore = "JIT101"', "ignore", "a list of strings", "a string"),
        ('exclude = "x"', "exclude", "a list of strings", "a string"),
        ("extend-exclude = [1]", "extend-exclude", "a list of strings", "a list"),
        ("extend-select = true", "extend-select", "a list of strings", "a boolean"),
        ("cache-dir = 3", "cache-dir", "a string", "an integer"),
        ("extend = 1.5", "extend", "a string", "a number"),
        ("per-file-ignores = []", "per-file-ignores", "a table of glob = [codes]", "a list"),
        ('per-file-ignores = {"t/*" = "JIT1"}', "per-file-ignores.t/*", "a list of strings", ""),
        ("extend-jit-wrappers = 3", "extend-jit-wrappers", "a list of strings", "an integer"),
        ("respect-gitignore = 1", "respect-gitignore", "true or false", "an integer"),
        ("force-exclude = 'yes'", "force-exclude", "true or false", "a string"),
        ('timeout-seconds = "60"', "timeout-seconds", "a number of seconds >= 0", "a string"),
        ("max-file-size = -1", "max-file-size", "a number of bytes (an integer >= 0)", "an"),
    ],
)
def test_wrong_type_is_one_line_naming_file_key_and_type(
    monorepo, capsys, body, key, expected, got
):
    (monorepo / "pkga" / "pyproject.toml").write_text(f"[tool.jitlint]\n{body}\n")
    code, out, err = run(capsys, ".")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    where = os.path.join(str(monorepo), "pkga", "pyproject.toml")
    assert err.startswith(f"jitlint: error: {where}: `{key}` must be {expected}, got {got}")


def test_wrapper_names_must_be_dotted_names(monorepo, capsys):
    (monorepo / "pkgb" / "jitlint.toml").write_text('extend-jit-wrappers = ["not a name!"]\n')
    code, _, err = run(capsys, "pkgb")
    assert code == 2 and err.count("\n") == 1
    assert "jitlint.toml: `extend-jit-wrappers` must hold dotted names" in err
    assert "'not a name!'" in err


def test_tool_jitlint_must_be_a_table(monorepo, capsys):
    (monorepo / "pkga" / "pyproject.toml").write_text('[tool]\njitlint = "x"\n')
    code, _, err = run(capsys, "pkga")
    assert code == 2 and "[tool.jitlint] must be a table" in err


def test_show_settings_names_the_config_file_and_rules(monorepo, capsys):
    code, out, _ = run(capsys, "--show-settings", "pkgb/src/pkgb_mod.py")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"config file: {monorepo / 'pkgb' / 'jitlint.toml'}"
    assert "select: ['JIT203', 'JIT900', 'JIT901', 'JIT902', 'JIT903']" in lines
    code, out, _ = run(capsys, "--show-settings", "top.py")
    assert out.splitlines()[0] == "config file: (none: defaults)"


def test_show_files_lists_what_would_be_linted(monorepo, capsys):
    (monorepo / "pkga" / "pyproject.toml").write_text(
        '[tool.jitlint]\nexclude = ["src/pkga_mod.py"]\n'
    )
    (monorepo / "pkgb" / "src" / "no_jax.py").write_text("x = 1\n")
    code, out, _ = run(capsys, "--show-files", ".")
    assert code == 0
    listed = sorted(os.path.relpath(p) for p in out.splitlines())
    assert listed == [
        os.path.join("pkgb", "src", "no_jax.py"),
        os.path.join("pkgb", "src", "pkgb_mod.py"),
        "top.py",
    ]


def test_extend_exclude_flag(monorepo, capsys):
    _, out, _ = run(capsys, "--extend-exclude", "pkga,top.py", ".")
    assert codes_by_file(out) == {"pkgb_mod.py": {"JIT203"}}
