"""The plugin in an environment without JAX: inert by default, one clear line when used."""

from __future__ import annotations

import sys

import pytest

from pytest_jitcheck._nojax import INSTALL

# `sys.modules[name] = None` makes both `import name` and `find_spec(name)` see no package,
# which is what an install without the `plugin` extra looks like to the entry point.
LAUNCH = (
    "import sys; sys.modules['jax'] = sys.modules['jaxlib'] = sys.modules['numpy'] = None; "
    "import pytest; raise SystemExit(pytest.main(sys.argv[1:]))"
)


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.run(sys.executable, "-c", LAUNCH, "-p", "no:cacheprovider", *args)


def test_plain_run_passes_without_jax(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    assert 1 + 1 == 2\n")
    result = _run(pytester)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*1 passed*"])


def test_flag_without_jax_is_one_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = _run(pytester, "--jitcheck")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "Traceback" not in result.stderr.str()
    lines = [line for line in result.stderr.lines if line.strip()]
    assert lines == [
        f"ERROR: [jitcheck] the pytest plugin needs JAX, which is not installed: {INSTALL}"
    ]


@pytest.mark.parametrize(
    "body",
    [
        "@pytest.mark.jitcheck(max_compiles=1)\ndef test_it():\n    pass\n",
        "@pytest.mark.jit_and_eager\ndef test_it():\n    pass\n",
        "def test_it(assert_compiles):\n    pass\n",
        "def test_it(jax_device):\n    pass\n",
    ],
)
def test_marker_or_fixture_without_jax_fails_in_one_line(
    pytester: pytest.Pytester, body: str
) -> None:
    pytester.makepyfile("import pytest\n\n\n" + body)
    result = _run(pytester, "--strict-markers")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert f"the pytest plugin needs JAX, which is not installed: {INSTALL}" in result.stdout.str()
    assert "fixture 'assert_compiles' not found" not in result.stdout.str()


def test_plugin_package_imports_without_numpy() -> None:
    import subprocess

    code = (
        "import sys; sys.modules['jax'] = sys.modules['numpy'] = None; "
        "import pytest_jitcheck, pytest_jitcheck.plugin; print(pytest_jitcheck.CompileRecorder)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "CompileRecorder" in proc.stdout
