"""The jitlint command line: flags, output formats, exit codes and bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from jitlint.cli import main

BAD = (
    "import jax\n\n@jax.jit\ndef f(x):\n    print(x)\n    if x > 0:\n        return x\n"
    "    return -x\n"
)
CLEAN = "import jax\n\n@jax.jit\ndef f(x):\n    return x * 2\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_concise_output_exit_one_and_summary(project, capsys):
    code, out, err = run(capsys, "bad.py", "clean.py")
    assert code == 1
    assert out.splitlines() == [
        "bad.py:5:5: JIT203 " + out.splitlines()[0].split(" JIT203 ", 1)[1],
        "bad.py:6:8: JIT101 " + out.splitlines()[1].split(" JIT101 ", 1)[1],
    ]
    assert "jax.debug.print" in out and "jnp.where" in out
    assert err.splitlines()[0] == "Found 2 errors."


def test_clean_run_exits_zero(project, capsys):
    assert run(capsys, "clean.py") == (0, "", "All checks passed!\n")


def test_default_path_is_the_current_directory(project, capsys):
    code, out, _ = run(capsys)
    assert code == 1 and "bad.py:6:8: JIT101" in out


def test_json_contract(project, capsys):
    code, out, _ = run(capsys, "--output-format", "json", "--select", "ALL", "bad.py")
    assert code == 1
    data = json.loads(out)
    assert [d["code"] for d in data] == ["JIT203", "JIT101"]
    first = data[1]
    assert set(first) == {
        "code",
        "name",
        "message",
        "filename",
        "location",
        "end_location",
        "fix",
        "url",
        "cell",
        "trace",
    }
    assert first["cell"] is None  # a notebook's findings name their cell
    assert first["name"] == "traced-if" and first["filename"] == "bad.py"
    assert first["location"] == {"row": 6, "column": 8}
    assert first["end_location"] == {"row": 6, "column": 13}
    assert first["fix"] is None


@pytest.mark.parametrize(
    ("selector", "codes"),
    [
        (["--select", "JIT101"], {"JIT101"}),
        (["--select", "print-in-jit"], {"JIT203"}),
        (["--select", "JIT2"], {"JIT203"}),
        (["--select", "JIT"], {"JIT101", "JIT203"}),
        (["--select", "ALL", "--ignore", "JIT101"], {"JIT203"}),
        (["--ignore", "traced-if,JIT203"], set()),
        (["--select", "JIT101", "--extend-select", "JIT203"], {"JIT101", "JIT203"}),
    ],
)
def test_select_and_ignore(project, capsys, selector, codes):
    _, out, _ = run(capsys, "--output-format", "json", *selector, "bad.py")
    assert {d["code"] for d in json.loads(out)} == codes


def test_unknown_selector_is_a_one_line_usage_error(project, capsys):
    code, out, err = run(capsys, "--select", "JIT999", "bad.py")
    assert code == 2 and out == ""
    assert err == "jitlint: error: --select: unknown rule selector `JIT999`\n"


def test_unknown_option_is_a_usage_error(project, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--frobnicate"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_statistics(project, capsys):
    code, out, _ = run(capsys, "--statistics", "bad.py")
    assert code == 1
    assert out.splitlines() == ["    1\tJIT101\t[ ] traced-if", "    1\tJIT203\t[ ] print-in-jit"]


def test_exit_zero(project, capsys):
    code, out, _ = run(capsys, "--exit-zero", "bad.py")
    assert code == 0 and "JIT101" in out


def test_cache_flags_are_accepted(project, capsys):
    code, _, _ = run(capsys, "--no-cache", "--cache-dir", "c", "clean.py")
    assert code == 0


def test_stdin_with_filename(project, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    code, out, _ = run(capsys, "--stdin-filename", "src/mod.py", "-")
    assert code == 1 and out.startswith("src/mod.py:5:5: JIT203")


def test_rule_command_by_code_and_name(capsys):
    code, out, _ = run(capsys, "rule", "JIT101")
    assert code == 0 and out.startswith("# traced-if (JIT101)") and "## Use instead" in out
    assert run(capsys, "rule", "traced-while")[1].startswith("# traced-while (JIT102)")
    code, _, err = run(capsys, "rule", "JIT999")
    assert code == 2 and err == "jitlint: error: unknown rule `JIT999`\n"
    code, out, _ = run(capsys, "rule", "--all")
    assert code == 0 and "JIT301\tjit-in-loop" in out


def test_bad_inputs_are_reported_and_the_run_goes_on(project, capsys):
    (project / "syntax.py").write_text("import jax\ndef f(:\n")
    (project / "bytes.py").write_bytes(b"import jax\nx = '\xff'\n")
    (project / "empty.py").write_text("")
    code, out, err = run(capsys, "missing.py", "syntax.py", "bytes.py", "empty.py", "bad.py")
    assert code == 2, "a non-existent path makes the run fail, after linting the rest"
    assert "jitlint: error: missing.py: No such file or directory" in err
    assert "syntax.py:2:7: JIT900 syntax error: invalid syntax" in out
    assert "bytes.py:2:6: JIT900 cannot decode file: invalid utf-8 byte 0xff" in out
    assert "bad.py:6:8: JIT101" in out


def test_findings_without_errors_exit_one_even_with_syntax_errors(project, capsys):
    (project / "syntax.py").write_text("import jax\ndef f(:\n")
    assert run(capsys, "syntax.py")[0] == 1


def test_pyproject_config_is_found_walking_up(project, capsys):
    (project / "pyproject.toml").write_text(
        "[tool.jitlint]\n"
        'ignore = ["JIT203"]\n'
        'exclude = ["skipped"]\n'
        '[tool.jitlint.per-file-ignores]\n"sub/*" = ["JIT101"]\n'
    )
    (project / "sub").mkdir()
    (project / "sub" / "bad.py").write_text(BAD)
    (project / "skipped").mkdir()
    (project / "skipped" / "bad.py").write_text(BAD)
    code, out, _ = run(capsys, ".")
    assert code == 1
    assert out.splitlines() == [out.splitlines()[0]] and out.startswith("bad.py:6:8: JIT101")


def test_extend_jit_wrappers_from_config(project, capsys):
    (project / "pyproject.toml").write_text(
        '[tool.jitlint]\nextend-jit-wrappers = ["mylib.compiled"]\n'
    )
    (project / "w.py").write_text(
        "from mylib import compiled\n\n@compiled\ndef f(x):\n    if x > 0:\n        return x\n"
    )
    code, out, _ = run(capsys, "w.py")
    assert code == 1 and "w.py:5:8: JIT101" in out


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("[tool.jitlint]\nselect = 3\n", "`select` must be a list of strings"),
        ("[tool.jitlint]\nfrobnicate = 1\n", "unknown key `frobnicate`"),
        ("[tool.jitlint]\nselect = [\n", "invalid TOML"),
        ('[tool.jitlint]\nselect = ["JIT777"]\n', "unknown rule selector `JIT777`"),
        ("[tool.jitlint]\nper-file-ignores = 1\n", "`per-file-ignores` must be a table"),
    ],
)
def test_broken_config_is_a_one_line_error(project, capsys, table, message):
    (project / "pyproject.toml").write_text(table)
    code, out, err = run(capsys, "bad.py")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("jitlint: error: ")


def test_console_script_runs(project):
    proc = subprocess.run(
        [sys.executable, "-m", "jitlint", "--output-format", "json", "bad.py"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert [d["code"] for d in json.loads(proc.stdout)] == ["JIT203", "JIT101"]
