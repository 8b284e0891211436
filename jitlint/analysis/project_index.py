"""Find a project's modules: its root, its source roots, module names and import targets.

The index works on the file system only (paths and module names); what a module defines is
read elsewhere, lazily, when an analysis needs it. Nothing here lists the whole project up
front, so a project of many thousands of modules costs only what is looked up.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path

# Markers of a project root, nearest first wins.
_ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py")
# Directories that never hold project sources; discovery skips these and notebook
# checkpoints, and the index also skips installed packages.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "build",
        "dist",
        "__pycache__",
        "node_modules",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".eggs",
        ".jitlint_cache",
    }
)
_SKIP_DIRS = SKIP_DIRS | {"site-packages"}
_INSTALLED = frozenset({"site-packages", "dist-packages"})
MAX_FILES = 20_000  # the walk of one project stops here (a bound, reported by the caller)


def find_root(path: str | os.PathLike[str]) -> Path:
    """Return the root of the project ``path`` belongs to.

    The nearest directory with a pyproject.toml, setup.cfg or setup.py; without one, the
    directory above the outermost package (``__init__.py`` chain, through namespace
    subdirectories of a package) holding ``path``.
    """
    start = Path(os.path.abspath(path))
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        if candidate.name in _INSTALLED:
            return candidate  # installed packages: each is its own project inside
        if any((candidate / m).is_file() for m in _ROOT_MARKERS):
            return candidate
    # Climb out of packages, and out of a directory without `__init__.py` inside a package
    # (a namespace subpackage such as optax's `_src`).
    top = directory
    while top.parent != top and (
        (top / "__init__.py").is_file() or (top.parent / "__init__.py").is_file()
    ):
        top = top.parent
    return top


def configured_src(root: Path) -> list[str] | None:
    """Return ``[tool.jitlint] src`` of the root's pyproject.toml, if it sets one."""
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    src = data.get("tool", {}).get("jitlint", {}).get("src")
    if isinstance(src, str):
        return [src]
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        return list(src)
    return None


def absolute_module(current: str, is_package: bool, level: int, module: str | None) -> str | None:
    """Resolve ``from <level dots><module> import ...`` written in module ``current``.

    Returns None when the dots climb above the top package.
    """
    if level == 0:
        return module
    parts = current.split(".") if current else []
    if not is_package:
        parts = parts[:-1]
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if module:
        base.extend(module.split("."))
    return ".".join(base) or None


class ProjectIndex:
    """Map module names to files and back for one project root."""

    def __init__(self, root: str | os.PathLike[str], src: Sequence[str] | None = None) -> None:
        self.root = Path(os.path.abspath(root))
        if src is None:
            src = configured_src(self.root)
        if src is not None:
            roots = [self.root / s for s in src]
        else:
            roots = [self.root / "src"] if (self.root / "src").is_dir() else []
            roots.append(self.root)
        # Deepest first: a file under root/src is named from src, not as `src.pkg.mod`.
        self.roots = sorted(
            {Path(os.path.abspath(r)) for r in roots if r.is_dir()},
            key=lambda p: -len(p.parts),
        )
        self._found: dict[tuple[str, str], Path | None] = {}
        # importing file -> its directory when that is no package (searched too), else ""
        self._script_dirs: dict[str, str] = {}
        self.truncated = False

    def contains(self, path: str | os.PathLike[str]) -> bool:
        """Tell whether ``path`` lies inside the project root."""
        return Path(os.path.abspath(path)).is_relative_to(self.root)

    def module_name(self, path: str | os.PathLike[str]) -> str:
        """Return the dotted name ``path`` is imported as (a script's name is its stem)."""
        full = Path(os.path.abspath(path))
        for root in self.roots:
            if full.is_relative_to(root):
                parts = list(full.relative_to(root).with_suffix("").parts)
                if parts and parts[-1] == "__init__":
                    parts.pop()
                if parts and all(p.isidentifier() for p in parts):
                    return ".".join(parts)
        return full.stem

    def find_module(self, name: str, near: str | os.PathLike[str] | None = None) -> Path | None:
        """Return the file of module ``name``, or None if it is not the project's.

        ``near`` is the importing file: a script outside every package also imports from its
        own directory (Python puts it first on ``sys.path``).
        """
        extra = ""
        if near is not None:
            near = os.fspath(near)
            extra = self._script_dirs.get(near, "")
            if near not in self._script_dirs:
                directory = Path(os.path.abspath(near)).parent
                if not (directory / "__init__.py").is_file():
                    extra = str(directory)
                self._script_dirs[near] = extra
        key = (name, extra)
        if key not in self._found:
            self._found[key] = self._probe(name, extra)
        return self._found[key]

    def _probe(self, name: str, extra: str) -> Path | None:
        parts = name.split(".")
        if not name or not all(p.isidentifier() for p in parts):
            return None
        roots = [*self.roots, Path(extra)] if extra else self.roots
        for root in roots:
            base = root.joinpath(*parts)
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file():
                    return candidate
            if base.is_dir():
                return base  # a namespace package: a directory without __init__.py
        return None

    def files(self, tops: Iterable[str] | None = None) -> Iterator[Path]:
        """Yield the project's Python files (at most ``MAX_FILES``; see ``truncated``).

        ``tops`` limits the walk to these top-level packages and modules of the root.
        """
        count = 0
        if tops is None:
            starts = [self.root]
        else:
            starts = []
            for top in sorted(tops):
                if (self.root / f"{top}.py").is_file():
                    count += 1
                    yield self.root / f"{top}.py"
                if (self.root / top).is_dir():
                    starts.append(self.root / top)
        for start in starts:
            for path in self._walk(start):
                count += 1
                if count > MAX_FILES:
                    self.truncated = True
                    return
                yield path

    def _walk(self, top: Path) -> Iterator[Path]:
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(
                d
                for d in dirnames
                if d not in _SKIP_DIRS
                and not d.endswith(".egg-info")
                and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))
            )
            for name in sorted(filenames):
                if name.endswith(".py"):
                    yield Path(dirpath, name)


def is_package_file(path: str | os.PathLike[str]) -> bool:
    """Tell whether ``path`` is a package's ``__init__.py``."""
    return Path(path).name == "__init__.py"


_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)"
    rb"|import[ \t]+([^\n#;]+))",
    re.M,
)


@lru_cache(maxsize=4096)
def imported_modules(source: bytes, module: str, is_package: bool) -> tuple[str, ...]:
    """Return the absolute names of the modules ``source`` imports (cheap, never raises).

    ``from a import b`` lists both ``a`` and ``a.b`` (``b`` may be a submodule). Read from the
    text, line by line: far cheaper than parsing, and a false import only costs a lookup.
    """
    out: list[str] = []
    for m in _IMPORT.finditer(source):
        dots, base, names, plain = m.groups()
        if plain is not None:
            for part in plain.decode("utf-8", "replace").split(","):
                name = part.split(" as ")[0].strip().rstrip("\\").strip()
                if _dotted(name):
                    out.append(name)
            continue
        level = len(dots)
        found = absolute_module(module, is_package, level, base.decode() or None)
        if found is None:
            continue
        out.append(found)
        for part in names.decode("utf-8", "replace").strip("()").split(","):
            name = part.split(" as ")[0].strip().rstrip("\\").strip()
            if name.isidentifier():
                out.append(f"{found}.{name}")
    return tuple(dict.fromkeys(out))


def _dotted(name: str) -> bool:
    return bool(name) and all(p.isidentifier() for p in name.split("."))
