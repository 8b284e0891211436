"""Read ``[tool.jitlint]`` from pyproject.toml and turn selectors into rule codes."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jitlint.engine.settings import Settings
from jitlint.rules import all_rules

_KEYS = {
    "select",
    "ignore",
    "per-file-ignores",
    "extend-jit-wrappers",
    "exclude",
    "cache-dir",
    "src",  # source roots of the project (read by the project index)
}


class ConfigError(Exception):
    """A configuration or selector problem, reported as one line."""


@dataclass
class FileConfig:
    """Hold the raw ``[tool.jitlint]`` values and where they came from."""

    root: str = "."
    path: str | None = None
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    extend_jit_wrappers: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    cache_dir: str | None = None


def find_pyproject(paths: Sequence[str]) -> Path | None:
    """Return the nearest pyproject.toml with a [tool.jitlint] table, walking up from paths."""
    starts = [Path(p).resolve() for p in paths if p != "-"] or [Path.cwd()]
    try:
        start = Path(os.path.commonpath([str(s) for s in starts]))
    except ValueError:
        start = Path.cwd()
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if "[tool.jitlint" in text:
                return candidate
    return None


def _strings(value: object, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ConfigError(f"{where}: `{key}` must be a list of strings")


def load(path: Path | None) -> FileConfig:
    """Read and validate the [tool.jitlint] table of ``path`` (defaults when None)."""
    if path is None:
        return FileConfig()
    where = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{where}: cannot read: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{where}: invalid TOML: {err}") from None
    table = data.get("tool", {}).get("jitlint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [tool.jitlint] must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key `{unknown[0]}` in [tool.jitlint]")
    cfg = FileConfig(root=str(path.parent), path=where)
    if "select" in table:
        cfg.select = _strings(table["select"], "select", where)
    cfg.ignore = _strings(table.get("ignore", []), "ignore", where)
    cfg.extend_jit_wrappers = _strings(
        table.get("extend-jit-wrappers", []), "extend-jit-wrappers", where
    )
    cfg.exclude = _strings(table.get("exclude", []), "exclude", where)
    _strings(table.get("src", []), "src", where)  # validated here, used by the project index
    if "cache-dir" in table:
        if not isinstance(table["cache-dir"], str):
            raise ConfigError(f"{where}: `cache-dir` must be a string")
        cfg.cache_dir = str(path.parent / table["cache-dir"])
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{where}: `per-file-ignores` must be a table of glob = [codes]")
    cfg.per_file_ignores = {
        glob: _strings(codes, f"per-file-ignores.{glob}", where) for glob, codes in pfi.items()
    }
    return cfg


def resolve_selectors(selectors: Iterable[str], where: str = "--select") -> frozenset[str]:
    """Turn codes, prefixes, names and ``ALL`` into the set of rule codes they denote."""
    rules = all_rules()
    out: set[str] = set()
    for raw in selectors:
        sel = raw.strip()
        if not sel:
            continue
        if sel.upper() == "ALL":
            out.update(r.code for r in rules)
            continue
        matched = {r.code for r in rules if r.code.startswith(sel.upper()) or r.name == sel}
        if not matched:
            raise ConfigError(f"{where}: unknown rule selector `{sel}`")
        out |= matched
    return frozenset(out)


def build_settings(
    cfg: FileConfig,
    select: Sequence[str] | None,
    ignore: Sequence[str],
    extend_select: Sequence[str] = (),
) -> Settings:
    """Combine file config and command-line selectors into engine settings."""
    where = cfg.path or "configuration"
    if select is not None:
        chosen = resolve_selectors(select)
    elif cfg.select is not None:
        chosen = resolve_selectors(cfg.select, f"{where}: select")
    else:
        chosen = frozenset(r.code for r in all_rules())
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
        exclude=tuple(cfg.exclude),
        root=cfg.root,
    )
