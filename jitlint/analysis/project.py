"""Hold the modules of one project for an analysis that follows calls across them.

A ``Project`` parses a module the first time an analysis needs it (a call resolves into it,
or it is linted), keeps one ``Analysis`` per module file, and resolves dotted names through
imports, ``__init__`` re-exports, star imports and attribute chains to the definitions they
denote. Every walk is bounded: resolution depth, modules parsed, functions analysed. A bound
that is reached is recorded once in ``warnings`` for the caller to print.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis.cst_util import collector_paused, parse_module, parser_refuses
from jitlint.analysis.module_info import collect
from jitlint.analysis.project_index import ProjectIndex, is_package_file
from jitlint.analysis.scopes import scope_names

if TYPE_CHECKING:
    from jitlint.analysis.analyzer import Analysis
    from jitlint.analysis.context import Reporter

MAX_MODULES = 500  # modules parsed for one run of one project
MAX_SOURCE = 2_000_000  # bytes: larger modules are not read for their definitions
_MAX_DEPTH = 16  # re-export hops followed for one name
_MAX_BASES = 8  # base classes searched for an inherited method


@dataclass(frozen=True)
class Definition:
    """What a dotted name denotes in the project: a function, a class, or a method."""

    owner: Analysis
    fn: cst.FunctionDef | None = None
    cls: cst.ClassDef | None = None


@dataclass
class Project:
    """The modules of one project root, parsed on demand and analysed with shared bounds."""

    index: ProjectIndex
    rules_for: Callable[[str], Sequence[Reporter]]
    wrappers: frozenset[str] = frozenset()
    # Top-level packages that count as the project when the root has no marker file
    # (a site-packages directory): everything else there is third-party.
    packages: frozenset[str] | None = None
    analyses: dict[str, Analysis | None] = field(default_factory=dict)
    sources: dict[str, bytes] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    budget: int = 20_000  # function analyses for the whole run
    trace: list[tuple[Analysis, cst.CSTNode, str, str | None]] = field(default_factory=list)
    _rebound: dict[tuple[str, str], str | None] = field(default_factory=dict)
    _stored: dict[str, frozenset[str]] = field(default_factory=dict)  # path -> attrs written
    _module_files: dict[Path, str] = field(default_factory=dict)  # found -> file ("": a dir)
    # Dependencies, for the cache: the module whose walk is under way; for each walked module
    # every module file its walk looked up (`touched`: a change there may change the walk),
    # the other modules it put findings in, itself or through a memoised analysis
    # (`walked`), and the texts it searched the project for (`.NAME`). `log` lists the
    # module of every finding reported, for memoised analyses to replay.
    unit: str | None = None
    touched: dict[str, set[str]] = field(default_factory=dict)
    walked: dict[str, set[str]] = field(default_factory=dict)
    needles: dict[str, set[str]] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    # Linted files whose walk was lost with a crashed worker process: linted alone instead.
    failed: set[str] = field(default_factory=set)
    # Called after each module is parsed (the engine uses it to keep the garbage collector
    # from scanning the trees again and again: they live as long as the project).
    after_load: Callable[[], None] | None = None

    def _touch(self, key: str) -> None:
        if self.unit is not None:
            self.touched.setdefault(self.unit, {self.unit}).add(key)

    def note_finding(self, module: str) -> None:
        """Record that the walk under way reports a finding in ``module``."""
        self.log.append(module)
        if self.unit is not None and module != self.unit:
            self.walked.setdefault(self.unit, {self.unit}).add(module)

    def warn(self, message: str) -> None:
        """Record a bound that was reached (once per message)."""
        if message not in self.warnings:
            self.warnings.append(message)

    # Modules --------------------------------------------------------------------
    def analysis_for(
        self, path: str | os.PathLike[str], source: bytes | None = None
    ) -> Analysis | None:
        """Return the analysis of the module at ``path`` (parsed once), or None if unreadable."""
        key = os.path.abspath(path)
        self._touch(key)
        if key in self.analyses:
            return self.analyses[key]
        if len(self.analyses) >= MAX_MODULES:
            self.warn(f"project analysis stopped following calls after {MAX_MODULES} modules")
            return None
        self.analyses[key] = None  # a cycle back here while parsing sees "not available"
        analysis = self._load(key, source)
        self.analyses[key] = analysis
        if self.after_load is not None:
            self.after_load()
        return analysis

    def _load(self, path: str, source: bytes | None) -> Analysis | None:
        from jitlint.analysis.analyzer import Analysis

        try:
            data = Path(path).read_bytes() if source is None else source
        except OSError:
            return None
        if len(data) > MAX_SOURCE:
            self.warn(f"{path}: not followed into, larger than {MAX_SOURCE} bytes")
            return None
        try:
            # What Python refuses to compile can crash libcst's native parser: not parsed.
            with collector_paused():
                compile(data, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            if parser_refuses(data) is not None:
                return None  # linted alone, which says why
            text = _decode(data)
            module = parse_module(text)
        except (SyntaxError, UnicodeDecodeError, LookupError, cst.ParserSyntaxError):
            return None
        except (RecursionError, MemoryError, ValueError):
            return None
        self.sources[path] = data
        name = self.index.module_name(path)
        info = collect(module, text, package=(name, is_package_file(path)))
        rules = self.rules_for(path)
        return Analysis(module, info, rules, self.wrappers, project=self, filename=path, name=name)

    def module(
        self, name: str, near: str | None = None, needle: bytes | None = None
    ) -> Analysis | None:
        """Return the analysis of project module ``name``, if the project has it.

        With ``needle``, a module not parsed yet is parsed only if its text contains it.
        """
        if self.packages is not None and name.split(".", 1)[0] not in self.packages:
            return None
        path = self.index.find_module(name, near)
        if path is None:
            return None
        key = self._module_files.get(path)
        if key is None:
            key = self._module_files[path] = "" if path.is_dir() else os.path.abspath(path)
        if not key:
            return None  # a namespace package
        self._touch(key)  # even when the needle is absent: an edit may add it
        if needle is not None and key not in self.analyses:
            data = self.sources.get(key)
            if data is None:
                try:
                    data = self.sources[key] = path.read_bytes()
                except OSError:
                    return None
            if needle not in data:
                return None
        return self.analysis_for(key, self.sources.get(key))

    def is_module(self, name: str, near: str | None = None) -> bool:
        """Tell whether ``name`` is a module (or namespace package) of the project."""
        if self.packages is not None and name.split(".", 1)[0] not in self.packages:
            return False
        return self.index.find_module(name, near) is not None

    def rebound_elsewhere(self, owner: Analysis, name: str) -> bool:
        """Tell whether a module of the project assigns ``<owner module>.<name> = v``."""
        key = (owner.name, name)
        if self.unit is not None:
            self.needles.setdefault(self.unit, set()).add(f".{name}")
        if key not in self._rebound:
            qualified = f"{owner.name}.{name}"
            needle = f".{name}".encode()
            writer = None
            unit, self.unit = self.unit, None  # the files searched are not read by the walk
            try:
                for path, data in list(self.sources.items()):
                    if needle not in data or not self._may_write(path, data, name):
                        continue
                    other = self.analysis_for(path, data)
                    if other is not None and qualified in other.info.attr_writes:
                        writer = os.path.abspath(path)
                        break
            finally:
                self.unit = unit
            self._rebound[key] = writer
        writer = self._rebound[key]
        if writer is not None:
            self._touch(writer)  # the module that assigns it: an edit there may remove that
        return writer is not None

    def _may_write(self, path: str, data: bytes, name: str) -> bool:
        """Tell whether the module at ``path`` may assign or delete an attribute ``name``.

        A module not parsed yet is read with Python's own parser, many times cheaper than
        libcst's: most modules that mention ``.NAME`` only read it, and need no full parse.
        """
        analysis = self.analyses.get(os.path.abspath(path))
        if analysis is not None:
            return True  # parsed already: its own facts answer exactly
        stored = self._stored.get(path)
        if stored is None:
            try:
                tree = ast.parse(data)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                stored = frozenset()  # not parsed by libcst either
            else:
                stored = frozenset(
                    node.attr
                    for node in ast.walk(tree)
                    if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load)
                )
            self._stored[path] = stored
        return name in stored

    # Names ----------------------------------------------------------------------
    def resolve(
        self, qualname: str, near: str | None = None, depth: int = 0, needle: bytes | None = None
    ) -> Definition | None:
        """Return the definition a fully qualified dotted name denotes in the project.

        ``needle``: follow only into modules whose text contains it (a cheap pre-test).
        """
        if depth > _MAX_DEPTH:
            return None
        parts = qualname.split(".")
        for k in range(len(parts), 0, -1):
            owner = self.module(".".join(parts[:k]), near, needle)
            if owner is not None:
                return self.member(owner, parts[k:], depth, needle)
        return None

    def member(
        self, owner: Analysis, rest: list[str], depth: int = 0, needle: bytes | None = None
    ) -> Definition | None:
        """Return what ``owner.<rest...>`` denotes: a function, a class or a method."""
        if not rest or depth > _MAX_DEPTH:
            return None
        head, tail = rest[0], rest[1:]
        info = owner.info
        if head in info.functions and not tail:
            return Definition(owner, fn=info.functions[head])
        if head in info.classes:
            cls = info.classes[head]
            if not tail:
                return Definition(owner, cls=cls)
            if len(tail) == 1:
                return self.method(owner, cls, tail[0])
            return None
        if head in info.imports:
            qualified = ".".join([info.imports[head], *tail])
            return self.resolve(qualified, owner.filename, depth + 1, needle)
        if head in info.functions or head in info.assigned or head in info.ambiguous:
            return None
        if owner.name and owner.filename.endswith("__init__.py"):
            found = self.resolve(".".join([owner.name, *rest]), None, depth + 1, needle)
            if found is not None:
                return found
        for star in info.star_imports:
            found = self.resolve(".".join([star, *rest]), owner.filename, depth + 1, needle)
            if found is not None:
                return found
        return None

    def method(
        self, owner: Analysis, cls: cst.ClassDef, name: str, depth: int = 0
    ) -> Definition | None:
        """Return method ``name`` of ``cls``, searching its project base classes too."""
        if depth > _MAX_BASES:
            return None
        defs = scope_names(cls.body).defs
        if name in defs:
            return Definition(owner, fn=defs[name], cls=cls)
        for base in self.bases(owner, cls):
            if base.cls is not None:
                found = self.method(base.owner, base.cls, name, depth + 1)
                if found is not None:
                    return found
        return None

    def bases(self, owner: Analysis, cls: cst.ClassDef) -> list[Definition]:
        """Return the project classes ``cls`` derives from, in order."""
        out = []
        for arg in cls.bases:
            if arg.keyword is not None:
                continue
            found = self.class_of(owner, arg.value)
            if found is not None:
                out.append(found)
        return out

    def class_of(self, owner: Analysis, expr: cst.BaseExpression) -> Definition | None:
        """Return the project class ``expr`` (a name read in ``owner``) denotes."""
        if type(expr) is cst.Name and expr.value in owner.info.classes:
            return Definition(owner, cls=owner.info.classes[expr.value])
        q = owner.info.qualname(expr)
        if q is None or "." not in q:
            return None
        found = self.resolve(q, owner.filename)
        return found if found is not None and found.fn is None else None


def _decode(data: bytes) -> str:
    import io
    import tokenize

    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def stderr_warning(message: str) -> None:
    """Print one bound that was reached, as every jitlint warning is printed."""
    print(f"jitlint: warning: {message}", file=sys.stderr)
