"""Discovery as users expect: git's ignore files, --force-exclude, bad paths in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jitlint.cli import main

BUG = "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


def run(capsys, *args):
    code = main(["--no-cache", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git work tree: gen/ and *.tmp.py ignored at the top, c.py in src/sub, vendor/ in info."""
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q"], check=True)
    for rel in ["gen/a.py", "src/b.py", "src/sub/c.py", "vendor/d.py", "x.tmp.py", "keep.tmp.py"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(BUG)
    (tmp_path / ".gitignore").write_text("gen/\n*.tmp.py\n!keep.tmp.py\n")
    (tmp_path / "src" / "sub" / ".gitignore").write_text("c.py\n")
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("vendor/\n")
    return tmp_path


def listed(out: str) -> list[str]:
    return sorted(os.path.relpath(p) for p in out.split())


def test_gitignore_and_info_exclude_are_respected(repo, capsys):
    code, out, _ = run(capsys, "--show-files")
    assert code == 0 and listed(out) == ["keep.tmp.py", os.path.join("src", "b.py")]
    code, out, _ = run(capsys, ".")
    assert code == 1 and out.count("JIT101") == 2


def test_no_respect_gitignore(repo, capsys):
    _, out, _ = run(capsys, "--show-files", "--no-respect-gitignore")
    assert len(listed(out)) == 6
    (repo / "jitlint.toml").write_text("respect-gitignore = false\n")
    _, out, _ = run(capsys, "--show-files")
    assert len(listed(out)) == 6


def test_named_files_are_linted_unless_force_exclude(repo, capsys):
    named = ["gen/a.py", "src/sub/c.py", "vendor/d.py", "src/b.py"]
    _, out, _ = run(capsys, "--show-files", *named)
    assert listed(out) == sorted(os.path.normpath(p) for p in named)
    # pre-commit names every staged file: --force-exclude keeps git's and the config's excludes.
    (repo / "jitlint.toml").write_text('exclude = ["src/b.py"]\n')
    code, out, _ = run(capsys, "--force-exclude", *named)
    assert code == 0 and out == ""
    code, out, _ = run(capsys, *named)
    assert code == 1 and out.count("JIT101") == 4


def test_global_excludes_file(repo, tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text("src/\n")
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env.pop("GIT_CONFIG_GLOBAL", None)
    proc = subprocess.run(
        [sys.executable, "-m", "jitlint", "--show-files"],
        capture_output=True,
        text=True,
        env=env,
        cwd=repo,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.split() == ["keep.tmp.py"]


def test_symlink_loop_given_as_a_path_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    os.symlink("loop", "loop")
    (tmp_path / "ok.py").write_text(BUG)
    code, out, err = run(capsys, "loop", "ok.py")
    assert code == 2 and "Traceback" not in err
    assert err.splitlines()[0] == "jitlint: error: loop: Too many levels of symbolic links"
    assert "ok.py:5:8: JIT101" in out


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_directory_given_as_a_path_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked").chmod(0)
    try:
        code, _, err = run(capsys, "locked")
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert code == 2 and err.splitlines()[0] == "jitlint: error: locked: Permission denied"


def test_unreadable_directory_inside_a_walk_is_one_line(tmp_path, monkeypatch, capsys):
    # As root nothing is unreadable; a directory that vanishes mid-walk takes the same path.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.py").write_text(BUG)
    code, out, err = run(capsys, ".", "missing_dir")
    assert code == 2 and "jitlint: error: missing_dir: No such file or directory" in err
    assert "ok.py:5:8: JIT101" in out


def test_empty_directory_says_nothing_was_found(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    code, out, err = run(capsys, "empty")
    assert (code, out) == (0, "")
    assert err == "No Python files or notebooks found; nothing was checked.\n"


def test_paths_print_without_dot_slash(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text(BUG)
    _, out, _ = run(capsys)
    assert out.startswith("src/m.py:5:8: JIT101")


def test_statistics_in_json(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(BUG + "\n@jax.jit\ndef g(y):\n    y[0] = 1\n    return y\n")
    code, out, _ = run(capsys, "--statistics", "--output-format", "json", "m.py")
    assert code == 1
    assert json.loads(out) == [
        {"code": "JIT101", "name": "traced-if", "count": 1, "fixable": False},
        {"code": "JIT501", "name": "in-place-update", "count": 1, "fixable": True},
    ]


def test_rule_help(capsys):
    code = main(["rule", "--help"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("usage: jitlint rule CODE|NAME")


@pytest.mark.parametrize(
    ("env", "colored"),
    [({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False), ({}, False)],
)
def test_colour_honours_no_color_and_force_color(tmp_path, env, colored):
    (tmp_path / "m.py").write_text(BUG)
    clean = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")}
    proc = subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", "m.py"],
        capture_output=True,
        text=True,
        env={**clean, **env},
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 1
    assert ("\x1b[" in proc.stdout) is colored
    assert "JIT101" in proc.stdout


def test_file_rules_are_selectable(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "syntax.py").write_text("import jax\ndef f(:\n")
    assert run(capsys, "syntax.py")[0] == 1
    assert run(capsys, "--ignore", "JIT900", "syntax.py")[:2] == (0, "")
    assert run(capsys, "--ignore", "syntax-error", "syntax.py")[:2] == (0, "")
    code, out, _ = run(capsys, "--select", "JIT101", "syntax.py")  # on unless ignored
    assert code == 1 and "JIT900" in out
