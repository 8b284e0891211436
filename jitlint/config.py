"""Configuration: find the config file that applies to each file, read it strictly, build settings.

As in ruff, the nearest ``jitlint.toml`` or ``pyproject.toml`` with a ``[tool.jitlint]`` table
above a file applies to it (``jitlint.toml`` wins in one directory), ``extend`` chains to a
base file, and ``--config PATH`` replaces the search for every file.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from jitlint.engine.settings import Settings
from jitlint.rules import all_rules
from jitlint.rules import file_rules as filerules

CONFIG_NAMES = ("jitlint.toml", "pyproject.toml")  # precedence within one directory
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class ConfigError(Exception):
    """A configuration or selector problem, reported as one line."""


@dataclass
class FileConfig:
    """Hold the values of one config file (after ``extend``) and where they came from."""

    root: str = "."
    path: str | None = None
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    extend_jit_wrappers: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    cache_dir: str | None = None
    max_file_size: int = filerules.DEFAULT_MAX_FILE_BYTES
    timeout_seconds: float = filerules.DEFAULT_TIMEOUT_SECONDS
    respect_gitignore: bool = True
    force_exclude: bool = False
    src: list[str] = field(default_factory=list)  # source roots (read by the project index)


# Validation -------------------------------------------------------------------------------
def _type_name(value: object) -> str:
    names = {str: "a string", bool: "a boolean", int: "an integer", float: "a number"}
    names |= {list: "a list", dict: "a table"}
    return names.get(type(value), type(value).__name__)


def _wrong(where: str, key: str, expected: str, value: object) -> ConfigError:
    return ConfigError(f"{where}: `{key}` must be {expected}, got {_type_name(value)}")


def _strings(value: object, key: str, where: str) -> list[str]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise _wrong(where, key, "a list of strings", value)


def _dotted_names(value: object, key: str, where: str) -> list[str]:
    names = _strings(value, key, where)
    for name in names:
        if not _DOTTED_NAME.fullmatch(name):
            raise ConfigError(
                f"{where}: `{key}` must hold dotted names like `pkg.jit`, got {name!r}"
            )
    return names


def _string(value: object, key: str, where: str) -> str:
    if isinstance(value, str):
        return value
    raise _wrong(where, key, "a string", value)


def _bool(value: object, key: str, where: str) -> bool:
    if isinstance(value, bool):
        return value
    raise _wrong(where, key, "true or false", value)


def _size(value: object, key: str, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise _wrong(where, key, "a number of bytes (an integer >= 0)", value)


def _seconds(value: object, key: str, where: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    raise _wrong(where, key, "a number of seconds >= 0", value)


def _per_file(value: object, key: str, where: str) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise _wrong(where, key, "a table of glob = [codes]", value)
    return {glob: _strings(codes, f"{key}.{glob}", where) for glob, codes in value.items()}


# key -> (FileConfig attribute, reader)
_READERS: dict[str, tuple[str, Callable[[object, str, str], Any]]] = {
    "select": ("select", _strings),
    "extend-select": ("extend_select", _strings),
    "ignore": ("ignore", _strings),
    "per-file-ignores": ("per_file_ignores", _per_file),
    "extend-jit-wrappers": ("extend_jit_wrappers", _dotted_names),
    "exclude": ("exclude", _strings),
    "extend-exclude": ("extend_exclude", _strings),
    "cache-dir": ("cache_dir", _string),
    "max-file-size": ("max_file_size", _size),
    "timeout-seconds": ("timeout_seconds", _seconds),
    "respect-gitignore": ("respect_gitignore", _bool),
    "force-exclude": ("force_exclude", _bool),
    "src": ("src", _strings),
}
KEYS = frozenset(_READERS) | {"extend"}


# Reading files ----------------------------------------------------------------------------
def _table(path: Path) -> dict[str, Any] | None:
    """Return the jitlint table of a config file, or None if a pyproject.toml has none."""
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(
            f"{where}: cannot read: {getattr(err, 'strerror', None) or err}"
        ) from None
    if path.name == "pyproject.toml" and "jitlint" not in text:
        return None  # cheap: most pyproject.toml files never mention jitlint
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{where}: invalid TOML: {err}") from None
    if path.name != "pyproject.toml":
        return data
    tool = data.get("tool", {})
    table = tool.get("jitlint") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [tool.jitlint] must be a table")
    return table


def _rebase(patterns: list[str], old: str, new: str) -> list[str]:
    """Keep path patterns of an extended file relative to where they were written."""
    if os.path.abspath(old) == os.path.abspath(new):
        return patterns
    out = []
    for p in patterns:
        if "/" in p.rstrip("/"):
            p = Path(os.path.relpath(os.path.join(old, p), new)).as_posix()
        out.append(p)
    return out


def load(path: Path | None, _seen: tuple[str, ...] = ()) -> FileConfig:
    """Read and validate one config file, following ``extend`` (defaults when None)."""
    if path is None:
        return FileConfig()
    where = str(path)
    table = _table(path)
    cfg = FileConfig(root=str(path.parent), path=where)
    if table is None:
        return cfg
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key `{unknown[0]}`")
    if "extend" in table:
        base_path = path.parent / _string(table["extend"], "extend", where)
        key = os.path.abspath(base_path)
        if key in _seen or key == os.path.abspath(path):
            raise ConfigError(f"{where}: `extend` makes a cycle through {base_path}")
        if not base_path.is_file():
            raise ConfigError(f"{where}: `extend`: no such file {base_path}")
        base = load(base_path, (*_seen, os.path.abspath(path)))
        cfg = replace(base, root=cfg.root, path=where)
        cfg.exclude = _rebase(base.exclude, base.root, cfg.root)
        cfg.extend_exclude = _rebase(base.extend_exclude, base.root, cfg.root)
        cfg.per_file_ignores = dict(
            zip(
                _rebase(list(base.per_file_ignores), base.root, cfg.root),
                base.per_file_ignores.values(),
                strict=True,
            )
        )
        if base.cache_dir is not None:
            cfg.cache_dir = base.cache_dir
    for key, (attr, reader) in _READERS.items():
        if key in table:
            setattr(cfg, attr, reader(table[key], key, where))
    if "cache-dir" in table and cfg.cache_dir is not None:
        cfg.cache_dir = str(path.parent / cfg.cache_dir)
    return cfg


def config_in(directory: Path) -> Path | None:
    """Return the config file that directory itself holds, or None."""
    for name in CONFIG_NAMES:
        candidate = directory / name
        try:
            if not candidate.is_file():
                continue
        except OSError:
            continue  # an unreadable directory holds no config we can use
        if name != "pyproject.toml":
            return candidate
        try:
            if "jitlint" in candidate.read_text(encoding="utf-8", errors="replace"):
                return candidate
        except OSError:
            continue
    return None


def _absolute(path: str) -> Path:
    # abspath, not resolve(): a symlink loop must not raise here; discovery reports it.
    return Path(os.path.abspath(path))


def find_config(path: str) -> Path | None:
    """Return the config file nearest above ``path`` (a file or a directory), or None."""
    start = _absolute(path)
    if not start.is_dir():
        start = start.parent
    for directory in (start, *start.parents):
        found = config_in(directory)
        if found is not None:
            return found
    return None


def find_pyproject(paths: Sequence[str]) -> Path | None:
    """Return the config file nearest above the common directory of ``paths``."""
    starts = [str(_absolute(p)) for p in paths if p != "-"] or [os.getcwd()]
    try:
        common = os.path.commonpath(starts)
    except ValueError:
        common = os.getcwd()
    return find_config(common)


# Settings ---------------------------------------------------------------------------------
def resolve_selectors(selectors: Iterable[str], where: str = "--select") -> frozenset[str]:
    """Turn codes, prefixes, names and ``ALL`` into the set of rule codes they denote."""
    rules = [(r.code, r.name) for r in all_rules()]
    rules += [(r.code, r.name) for r in filerules.FILE_RULES]
    out: set[str] = set()
    for raw in selectors:
        sel = raw.strip()
        if not sel:
            continue
        if sel.upper() == "ALL":
            out.update(code for code, _ in rules)
            continue
        matched = {code for code, name in rules if code.startswith(sel.upper()) or name == sel}
        if not matched:
            raise ConfigError(f"{where}: unknown rule selector `{sel}`")
        out |= matched
    return frozenset(out)


@dataclass(frozen=True)
class Overrides:
    """What the command line says on top of every config file."""

    select: Sequence[str] | None = None
    ignore: Sequence[str] = ()
    extend_select: Sequence[str] = ()
    extend_exclude: Sequence[str] = ()
    respect_gitignore: bool | None = None
    force_exclude: bool | None = None


def build_settings(
    cfg: FileConfig,
    select: Sequence[str] | None,
    ignore: Sequence[str],
    extend_select: Sequence[str] = (),
    extend_exclude: Sequence[str] = (),
    overrides: Overrides | None = None,
) -> Settings:
    """Combine one file config and command-line selectors into engine settings."""
    where = cfg.path or "configuration"
    o = overrides or Overrides()
    if select is not None:
        chosen = resolve_selectors(select)
    elif cfg.select is not None:
        chosen = resolve_selectors(cfg.select, f"{where}: select")
    else:
        chosen = frozenset(r.code for r in all_rules())
    chosen |= filerules.FILE_CODES  # a file that was not checked is said unless ignored
    chosen |= resolve_selectors(cfg.extend_select, f"{where}: extend-select")
    chosen |= resolve_selectors(extend_select, "--extend-select")
    chosen -= resolve_selectors(cfg.ignore, f"{where}: ignore")
    chosen -= resolve_selectors(ignore, "--ignore")
    per_file = tuple(
        (glob, resolve_selectors(codes, f"{where}: per-file-ignores"))
        for glob, codes in cfg.per_file_ignores.items()
    )
    return Settings(
        select=chosen,
        per_file_ignores=per_file,
        extend_jit_wrappers=frozenset(cfg.extend_jit_wrappers),
        # Command-line patterns are relative to where jitlint runs, as in ruff.
        exclude=(*cfg.exclude, *cfg.extend_exclude, *_rebase(list(extend_exclude), ".", cfg.root)),
        root=cfg.root,
        max_file_bytes=cfg.max_file_size,
        timeout_seconds=cfg.timeout_seconds,
        respect_gitignore=_first(o.respect_gitignore, cfg.respect_gitignore),
        force_exclude=_first(o.force_exclude, cfg.force_exclude),
    )


def _first(override: bool | None, configured: bool) -> bool:
    return configured if override is None else override


class Resolver:
    """Give each file the settings of its nearest config file (or of ``--config``)."""

    def __init__(self, overrides: Overrides | None = None, config: str | None = None) -> None:
        self.overrides = overrides or Overrides()
        self._forced: FileConfig | None = None
        if config is not None:
            if not os.path.isfile(config):
                raise ConfigError(f"--config: no such file {config}")
            self._forced = load(Path(config))
            if self._forced.root == str(Path(config).parent):
                # With --config, patterns are relative to where jitlint runs, as in ruff.
                self._forced.root = "."
        self._by_dir: dict[str, Path | None] = {}
        self._configs: dict[Path | None, FileConfig] = {}
        self._settings: dict[Path | None, Settings] = {}

    def _config_file(self, directory: Path) -> Path | None:
        key = str(directory)
        if key not in self._by_dir:
            found = config_in(directory)
            if found is None and directory.parent != directory:
                found = self._config_file(directory.parent)
            self._by_dir[key] = found
        return self._by_dir[key]

    def config_for(self, path: str) -> FileConfig:
        """Return the config that applies to ``path`` (a file or a directory)."""
        if self._forced is not None:
            return self._forced
        start = _absolute(path)
        if not start.is_dir():
            start = start.parent
        found = self._config_file(start)
        if found not in self._configs:
            self._configs[found] = load(found)
        return self._configs[found]

    def settings_for(self, path: str) -> Settings:
        """Return the engine settings for ``path``."""
        cfg = self.config_for(path)
        key = Path(cfg.path) if cfg.path else None
        if key not in self._settings:
            o = self.overrides
            self._settings[key] = build_settings(
                cfg, o.select, o.ignore, o.extend_select, o.extend_exclude, o
            )
        return self._settings[key]

    def __call__(self, path: str) -> Settings:
        return self.settings_for(path)


def describe(cfg: FileConfig, settings: Settings) -> list[str]:
    """Return the lines ``--show-settings`` prints for one file."""
    lines = [f"config file: {cfg.path or '(none: defaults)'}", f"root: {cfg.root}"]
    for f in fields(settings):
        value = getattr(settings, f.name)
        if isinstance(value, frozenset):
            value = sorted(value)
        elif f.name == "per_file_ignores":
            value = {glob: sorted(codes) for glob, codes in value}
        lines.append(f"{f.name.replace('_', '-')}: {value}")
    return lines
