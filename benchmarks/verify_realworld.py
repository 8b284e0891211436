"""Run every file of the real-world corpus under JAX on CPU and check its labels hold.

Usage: python benchmarks/verify_realworld.py [CORPUS_DIR] [--jobs N] [--timeout S] [FILE ...]

Each file is one user's snippet (see tests/lint/realworld/README.md) and is verified by
running it, in a subprocess, with `JAX_PLATFORMS=cpu`:

- A file with no `# expect:` label (a good file) must exit 0.
- A file with labels and no `# observed:` comment must raise: the innermost traceback frame
  that lies in the file itself must be on a line that carries an `# expect:` label, and every
  labelled line must be that line (one raising bug per file in this mode).
- A file with `# observed:` comments demonstrates its bugs in its `__main__` block (count
  traces or compiles, compare values, catch an error and check the line it points at) and
  must exit 0. Each comment names the labelled lines it demonstrates (`# observed: line 14
  prints once`); together they must name every labelled line, and only labelled lines.
- A file with `# unverifiable: <reason>` is not run; it is listed with its reason.

Most files start by importing JAX, which costs an interpreter more than a second: each worker
imports it once in a long-lived process and forks that process for every file, which then
runs as `python FILE` would (`__main__`, its folder as the working directory and first
import path, an uncaught error printed and exit status 1). A file that sets the environment
JAX reads at import (`os.environ`, `XLA_FLAGS`) or uses `multiprocessing` runs in a fresh
interpreter instead, and so does every file with `--fresh`.

A file that verifies is kept in a record (`benchmarks/realworld_verified.txt`, written with
`--record`) with what it was verified under: its text's hash, this script's rules, Python's
version, the versions of JAX and of every installed package the file imports, and a hash of
the versions of what those require of JAX's stack. `--changed`
runs only the files the record does not hold under the present versions (a new or edited
file, a package upgraded, the rules changed); the test suite runs those and a rotating
twentieth of the rest (tests/lint/test_realworld_corpus.py).

Exits 0 when every runnable file verifies, 1 otherwise.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import hashlib
import importlib.metadata
import os
import queue
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO / "tests" / "lint" / "realworld"

_EXPECT_RE = re.compile(r"#\s*expect:\s*JIT\d{3}")
_OBSERVED_RE = re.compile(r"#\s*observed:(.*)")
_OBSERVED_LINE_RE = re.compile(r"\bline\s+(\d+)")
_UNVERIFIABLE_RE = re.compile(r"#\s*unverifiable:\s*(\S.*)")
_FRAME_RE = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')
_IMPORT_RE = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_]\w*)", re.MULTILINE)

RECORD = REPO / "benchmarks" / "realworld_verified.txt"
# What a file must show to verify (`judge` and `plan`); bump it when that changes, so that
# every recorded file runs again.
RULES = "1"


@dataclass
class Plan:
    """What running one file must show."""

    path: Path
    expected_lines: set[int]
    observed_lines: set[int] | None  # None: raise mode
    unverifiable: str | None


@dataclass
class Outcome:
    """The verdict on one file."""

    path: Path
    status: str  # "ok", "FAIL" or "unverifiable"
    detail: str
    seconds: float = 0.0


def plan(path: Path) -> Plan:
    """Read the labels and verification comments of one corpus file."""
    expected: set[int] = set()
    observed: set[int] | None = None
    unverifiable = None
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if _EXPECT_RE.search(line):
            expected.add(lineno)
        match = _OBSERVED_RE.search(line)
        if match:
            observed = observed or set()
            observed |= {int(n) for n in _OBSERVED_LINE_RE.findall(match.group(1))}
        match = _UNVERIFIABLE_RE.search(line)
        if match:
            unverifiable = match.group(1).strip()
    return Plan(path, expected, observed, unverifiable)


def innermost_frame_in(path: Path, stderr: str) -> int | None:
    """Return the line of the last traceback frame that lies in `path`, if any."""
    target = str(path.resolve())
    found = None
    for line in stderr.splitlines():
        match = _FRAME_RE.match(line)
        if match and os.path.realpath(match.group("file")) == target:
            found = int(match.group("line"))
    return found


_ERROR_LINE_RE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Warning|Interrupt|Exit)\b")


def _last_error(stderr: str) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if _ERROR_LINE_RE.match(ln)]
    if not lines:
        lines = [ln for ln in stderr.strip().splitlines() if ln and not ln.startswith(" ")]
    return lines[-1][:160] if lines else "(no output)"


def judge(p: Plan, returncode: int, stderr: str) -> Outcome:
    """Decide whether a finished run shows what the file's labels claim."""
    if not p.expected_lines:
        if returncode == 0:
            return Outcome(p.path, "ok", "good file runs clean")
        return Outcome(p.path, "FAIL", f"good file failed: {_last_error(stderr)}")
    if p.observed_lines is not None:
        if returncode != 0:
            return Outcome(p.path, "FAIL", f"observed check failed: {_last_error(stderr)}")
        if p.observed_lines != p.expected_lines:
            named, labelled = sorted(p.observed_lines), sorted(p.expected_lines)
            detail = f"observed comments name lines {named}, labels are on lines {labelled}"
            return Outcome(p.path, "FAIL", detail)
        return Outcome(p.path, "ok", f"observed lines {sorted(p.observed_lines)}")
    if returncode == 0:
        return Outcome(p.path, "FAIL", "expected an error, the file ran clean")
    line = innermost_frame_in(p.path, stderr)
    if line is None:
        return Outcome(p.path, "FAIL", f"no frame in the file: {_last_error(stderr)}")
    if p.expected_lines != {line}:
        labelled = sorted(p.expected_lines)
        detail = f"error at line {line}, labels on lines {labelled}: {_last_error(stderr)}"
        return Outcome(p.path, "FAIL", detail)
    return Outcome(p.path, "ok", f"line {line}: {_last_error(stderr)}")


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "JAX_PLATFORMS": "cpu",
        "JAX_TRACEBACK_FILTERING": "auto",
        "PYTHONHASHSEED": "0",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "OMP_NUM_THREADS": "1",
    }


def run_one(p: Plan, timeout: float) -> Outcome:
    """Run one file in a fresh interpreter on CPU and judge the result."""
    if p.unverifiable is not None:
        return Outcome(p.path, "unverifiable", p.unverifiable)
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(p.path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=p.path.parent,
            env=_env(),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome(p.path, "FAIL", f"timed out after {timeout:.0f} s", timeout)
    outcome = judge(p, proc.returncode, proc.stderr)
    outcome.seconds = time.perf_counter() - start
    return outcome


# The forking server: imports JAX once, then for each line `PATH<TAB>STDOUT<TAB>STDERR` forks
# a child that runs PATH as `python PATH` would, and answers the child's pid, then its exit
# status. An uncaught error leaves the child through the interpreter's own handler (the
# traceback on stderr, status 1), as it would leave `python PATH`.
_SERVER = r"""
import os, runpy, sys
import jax, jax.numpy
for line in sys.stdin:
    path, out, err = line.rstrip("\n").split("\t")
    pid = os.fork()
    if pid == 0:
        for fd, name, mode in ((0, os.devnull, os.O_RDONLY), (1, out, os.O_WRONLY),
                               (2, err, os.O_WRONLY)):
            os.dup2(os.open(name, mode), fd)
        folder = os.path.dirname(path)
        os.chdir(folder)
        sys.argv = [path]
        sys.path[0] = folder
        runpy.run_path(path, run_name="__main__")
        sys.exit(0)
    sys.stdout.write(f"{pid}\n")
    sys.stdout.flush()
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(f"{os.waitstatus_to_exitcode(status)}\n")
    sys.stdout.flush()
"""

# What JAX reads from the environment when it is imported: such a file needs its own start.
_OWN_START = re.compile(r"os\.environ|putenv|XLA_FLAGS|multiprocessing")


class _Server:
    """One worker's forking server (started on first use, restarted if it dies)."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is not None and self._proc.poll() is not None:
            self.close()  # it died: start another
        if self._proc is None:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _SERVER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=_env(),
            )
        return self._proc

    def run(self, p: Plan, timeout: float) -> Outcome | None:
        """Run one file in a fork; None when the server failed (run it fresh instead)."""
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            out, err = Path(tmp, "out"), Path(tmp, "err")
            out.touch()
            err.touch()
            try:
                proc.stdin.write(f"{p.path}\t{out}\t{err}\n")
                proc.stdin.flush()
                pid = int(proc.stdout.readline())
            except (OSError, ValueError):
                self.close()
                return None
            ready, _, _ = select.select([proc.stdout], [], [], timeout)
            if not ready:
                os.kill(pid, signal.SIGKILL)
            try:
                code = int(proc.stdout.readline())
            except ValueError:
                self.close()
                return None
            if not ready:
                return Outcome(p.path, "FAIL", f"timed out after {timeout:.0f} s", timeout)
            outcome = judge(p, code, err.read_text(encoding="utf-8", errors="replace"))
        outcome.seconds = time.perf_counter() - start
        return outcome

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream is not None:
                    stream.close()
            self._proc = None


def verify(files: list[Path], jobs: int, timeout: float, fresh: bool = False) -> list[Outcome]:
    """Verify `files` with a small pool of workers; outcomes in file order."""
    plans = [plan(f) for f in files]
    servers: queue.Queue[_Server] = queue.Queue()
    for _ in range(max(1, jobs)):
        servers.put(_Server())

    def one(p: Plan) -> Outcome:
        if fresh or p.unverifiable is not None:
            return run_one(p, timeout)
        if _OWN_START.search(p.path.read_text(encoding="utf-8")):
            return run_one(p, timeout)
        server = servers.get()
        try:
            return server.run(p, timeout) or run_one(p, timeout)
        finally:
            servers.put(server)

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(one, plans))
    finally:
        while not servers.empty():
            servers.get().close()


@functools.cache
def _distributions() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


@functools.cache
def _version(distribution: str) -> str:
    return importlib.metadata.version(distribution)


_REQUIREMENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")


@functools.cache
def _closure(distribution: str) -> frozenset[str]:
    """Return ``distribution`` and every installed distribution it requires, transitively
    (requirements of extras left out)."""
    found = {distribution}
    pending = [distribution]
    while pending:
        for requirement in importlib.metadata.requires(pending.pop()) or ():
            match = _REQUIREMENT_RE.match(requirement)
            if match is None or "extra ==" in requirement:
                continue
            name = match.group(0).lower().replace("_", "-")
            try:
                _version(name)
            except importlib.metadata.PackageNotFoundError:
                continue  # a requirement for another platform or Python
            if name not in found:
                found.add(name)
                pending.append(name)
    return frozenset(found)


def verified_under(path: Path) -> str:
    """Return what verifying ``path`` depends on, as one line: its text's hash, the rules,
    Python's version, the versions of JAX and of the installed packages the file imports,
    and a hash of the versions of what those require of JAX's stack."""
    text = path.read_bytes()
    imported = {"jax", "jaxlib"}
    for root in _IMPORT_RE.findall(text.decode("utf-8", errors="replace")):
        imported.update(_distributions().get(root, ()))
    # What JAX itself requires (NumPy, SciPy, ml_dtypes) and what requires JAX (flax's
    # optax and orbax): a release of a console or network library changes no run.
    closure = sorted(
        d
        for d in set().union(*(_closure(d) for d in imported))
        if d in _closure("jax") or "jax" in _closure(d)
    )
    versions = " ".join(f"{d}={_version(d)}" for d in closure)
    parts = [
        hashlib.sha256(text).hexdigest()[:16],
        f"rules={RULES}",
        "python={}.{}".format(*sys.version_info[:2]),
        *(f"{d}={_version(d)}" for d in sorted(imported)),
        f"requires={hashlib.sha256(versions.encode()).hexdigest()[:12]}",
    ]
    return " ".join(parts)


def read_record(record: Path = RECORD) -> dict[str, str]:
    """Return the record: each verified file's name and what it was verified under."""
    if not record.exists():
        return {}
    found: dict[str, str] = {}
    for line in record.read_text(encoding="utf-8").splitlines():
        name, _, under = line.partition(" ")
        if name and not name.startswith("#"):
            found[name] = under
    return found


def write_record(record_of: dict[str, str], record: Path = RECORD) -> None:
    """Write the record, one file per line, sorted by name."""
    head = (
        "# tests/lint/realworld files verified by benchmarks/verify_realworld.py, and under what\n"
    )
    lines = [f"{name} {under}\n" for name, under in sorted(record_of.items())]
    record.write_text(head + "".join(lines), encoding="utf-8")


def unrecorded(files: list[Path], record_of: dict[str, str]) -> list[Path]:
    """Return the files the record does not hold as verified under the present versions."""
    return [f for f in files if record_of.get(f.name) != verified_under(f)]


def rotating_share(files: list[Path], share: int, today: datetime.date | None = None) -> list[Path]:
    """Return one ``share``-th of ``files`` (sorted), a different one each week, so that
    over ``share`` weeks every file runs again."""
    week = (today or datetime.date.today()).isocalendar().week
    return [f for i, f in enumerate(sorted(files)) if i % share == week % share]


def main(argv: list[str] | None = None) -> int:
    """Verify a corpus (or the given files) and print one line per file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="corpus folder or files")
    parser.add_argument("--jobs", type=int, default=2, help="files run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per file")
    parser.add_argument(
        "--fresh", action="store_true", help="run every file in a fresh interpreter"
    )
    parser.add_argument(
        "--changed",
        action="store_true",
        help="run only the files the record does not hold under the present versions",
    )
    parser.add_argument(
        "--record", action="store_true", help="record the files that verify, forget those that fail"
    )
    args = parser.parse_args(argv)
    paths: list[Path] = args.paths or [DEFAULT_CORPUS]
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p.resolve() for p in path.rglob("*.py"))
        elif path.is_file():
            files.append(path.resolve())
        else:
            print(f"error: {path} does not exist", file=sys.stderr)
            return 2
    if not files:
        print("error: no .py files to verify", file=sys.stderr)
        return 2
    record_of = read_record()
    if args.changed:
        files = unrecorded(files, record_of)
    outcomes = verify(files, args.jobs, args.timeout, args.fresh)
    if args.record:
        for o in outcomes:
            if o.path.parent != DEFAULT_CORPUS.resolve():
                continue  # the record is the corpus's
            if o.status == "ok":
                record_of[o.path.name] = verified_under(o.path)
            else:
                record_of.pop(o.path.name, None)
        write_record(record_of)
    for o in outcomes:
        print(f"{o.status:12} {o.seconds:5.1f}s {o.path.name}: {o.detail}")
    failed = [o for o in outcomes if o.status == "FAIL"]
    skipped = [o for o in outcomes if o.status == "unverifiable"]
    print(
        f"\n{len(outcomes)} files: {len(outcomes) - len(failed) - len(skipped)} verified, "
        f"{len(failed)} failed, {len(skipped)} unverifiable"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
