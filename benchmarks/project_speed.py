"""Time whole-project linting: cold, warm, one changed file; against flake8 and per-file mode.

Usage:
    python benchmarks/project_speed.py PATH [PATH ...] [--repeat 3]

In one run over the same files, measures: jitlint in project mode cold (empty cache) and
warm (unchanged files), a warm run after one file changed (a comment appended to the file
that most modules import), jitlint's per-file mode (calls not followed across modules), and
flake8 with its default checks if it is installed. Prints the least CPU time (user + system,
all processes of the run) of `--repeat` runs and the ratios the project targets:
cold <= 1.0x flake8, warm <= 0.05x cold, and the one-changed-file run (the cache re-analyses
only the groups of modules the edit reaches) in seconds and as a fraction of cold.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.lint._corpus import jitlint_command

_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
_PER_FILE = (
    "import sys\n"
    "from jitlint.engine.runner import lint_paths\n"
    "from jitlint.engine.settings import Settings\n"
    "lint_paths(sys.argv[1:], Settings(), None, project=False)\n"
)


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, check=False, env=_ENV)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"error: {cmd[0]} exited {proc.returncode}: {proc.stderr[-500:]!r}")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _best(fn: Callable[[], None], repeat: int, before: Callable[[], None] | None = None) -> float:
    """Return the least CPU time (user + system of the child processes) of ``repeat`` runs.

    CPU time, not wall time: on a shared machine the wall clock measures the neighbours.
    """
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = _cpu()
        fn()
        times.append(_cpu() - start)
    return min(times)


def _most_imported(files: list[Path]) -> Path:
    texts = {p: p.read_text(encoding="utf-8", errors="replace") for p in files}
    return max(
        files,
        key=lambda p: sum(f"import {p.stem}" in t or f".{p.stem} " in t for t in texts.values()),
    )


def main(argv: list[str] | None = None) -> int:
    """Run every measurement and print times and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    files = sorted({p for a in args.paths for p in Path(a).rglob("*.py")})
    paths = [str(p) for p in files]
    print(f"{len(files)} files, best of {args.repeat}")
    base = [*jitlint_command(), "--project", "--select", "ALL", "--exit-zero"]
    base += ["--output-format", "concise"]
    changed = _most_imported(files)
    original = changed.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"

        def project() -> None:
            _run([*base, "--cache-dir", str(cache), *args.paths])

        t_cold = _best(project, args.repeat, lambda: shutil.rmtree(cache, ignore_errors=True))
        project()
        t_warm = _best(project, args.repeat)
        counter = [0]

        def touch() -> None:
            counter[0] += 1
            changed.write_bytes(original + f"\n# edit {counter[0]}\n".encode())

        try:
            t_changed = _best(project, args.repeat, touch)
        finally:
            changed.write_bytes(original)
    t_per_file = _best(lambda: _run([sys.executable, "-c", _PER_FILE, *paths]), args.repeat)
    print(f"jitlint project cold      {t_cold:8.2f} s cpu")
    print(f"jitlint project warm      {t_warm:8.2f} s cpu")
    print(f"one file changed, warm    {t_changed:8.2f} s cpu ({changed.name})")
    print(f"jitlint per-file, no cache{t_per_file:8.2f} s cpu")
    print(f"cold / per-file           {t_cold / t_per_file:8.2f}")
    print(f"warm / cold               {t_warm / t_cold:8.3f}   target <= 0.05")
    print(f"one change / cold         {t_changed / t_cold:8.3f}   target: well under 1 s")
    try:
        import flake8
    except ImportError:
        print("flake8 not installed: no flake8 ratio")
        return 0
    flake8 = [sys.executable, "-m", "flake8", "--isolated", "--exit-zero", *paths]
    t_flake8 = _best(lambda: _run(flake8), args.repeat)
    print(f"flake8                    {t_flake8:8.2f} s cpu")
    print(f"per-file / flake8         {t_per_file / t_flake8:8.2f}")
    print(f"cold / flake8             {t_cold / t_flake8:8.2f}   target <= 1.0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
