"""Score jitlint against the labelled corpus and print a per-rule table.

Used by tests/lint/test_corpus.py; `python benchmarks/corpus_score.py [CORPUS_DIR]` prints it.

The corpus marks expected findings inline (`# expect: JIT101`) and findings that may be
reported without counting against precision (`# tolerate: JIT103`); see
tests/lint/corpus/README.md. The linter runs once, in a subprocess, over every corpus file.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from jitlint.rules import all_rules

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CORPUS = REPO / "tests" / "lint" / "corpus"

# The founding rules are held to a stricter recall target than the whole catalog.
CORE_CODES = [f"JIT{n}" for n in (101, 102, 103, 104, 201, 202, 203, 204, 301, 302)]
# Every code the registry implements: a label for any other code is an error, and a rule
# removed from the registry leaves its labels behind as misses.
ALL_CODES = [rule.code for rule in all_rules()]

_CODES_RE = r"(JIT\d{3}(?:\s*,\s*JIT\d{3})*)"
_EXPECT_RE = re.compile(r"#\s*expect:\s*" + _CODES_RE)
_TOLERATE_RE = re.compile(r"#\s*tolerate:\s*" + _CODES_RE)

Key = tuple[str, int, str]  # (file name relative to the corpus, line, code)


@dataclass
class Labels:
    """Expected and tolerated findings of a corpus, keyed by (file, line, code)."""

    expected: set[Key] = field(default_factory=set)
    tolerated: set[Key] = field(default_factory=set)
    files: list[Path] = field(default_factory=list)


@dataclass
class RuleScore:
    """Counts for one rule code."""

    code: str
    implemented: bool = True
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


@dataclass
class Score:
    """Result of scoring one linter run against the labels."""

    rules: dict[str, RuleScore]
    false_positives: list[Key]
    misses: list[Key]
    internal: list[dict[str, object]]

    def aggregate(self, codes: Iterable[str]) -> RuleScore:
        """Sum the counts of the given codes, implemented or not."""
        total = RuleScore("total")
        for code in codes:
            r = self.rules[code]
            total.tp += r.tp
            total.fp += r.fp
            total.fn += r.fn
        return total


def _codes(match: re.Match[str] | None) -> list[str]:
    return [c.strip() for c in match.group(1).split(",")] if match else []


def read_labels(corpus: Path) -> Labels:
    """Collect the inline expectations of every `.py` file under `corpus`."""
    labels = Labels(files=sorted(corpus.rglob("*.py")))
    for path in labels.files:
        name = path.relative_to(corpus).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        for lineno, line in enumerate(lines, start=1):
            for code in _codes(_EXPECT_RE.search(line)):
                labels.expected.add((name, lineno, code))
            for code in _codes(_TOLERATE_RE.search(line)):
                labels.tolerated.add((name, lineno, code))
    return labels


def jitlint_command() -> list[str]:
    """Return the command that runs the jitlint installed next to this interpreter."""
    script = Path(sys.executable).with_name("jitlint")
    if script.exists():
        return [str(script)]
    found = shutil.which("jitlint")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from jitlint.cli import main; sys.exit(main())"]


def run_jitlint(
    files: list[Path], extra: Iterable[str] = ()
) -> tuple[int, list[dict[str, object]]]:
    """Lint `files` with every rule selected; return the exit code and the JSON findings."""
    cmd = [*jitlint_command(), "--output-format", "json", "--select", "ALL", *extra]
    proc = subprocess.run(
        [*cmd, *map(str, files)], capture_output=True, text=True, cwd=REPO, check=False
    )
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"jitlint exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    findings = json.loads(proc.stdout or "[]")
    if not isinstance(findings, list):
        raise RuntimeError("jitlint --output-format json did not print a list")
    return proc.returncode, findings


def _key(finding: dict[str, object], corpus: Path) -> Key:
    filename = Path(str(finding["filename"]))
    if not filename.is_absolute():
        filename = REPO / filename
    location = finding["location"]
    assert isinstance(location, dict)
    name = filename.resolve().relative_to(corpus.resolve()).as_posix()
    return name, int(location["row"]), str(finding["code"])


def score(
    labels: Labels, findings: list[dict[str, object]], corpus: Path, implemented: set[str]
) -> Score:
    """Compare findings with labels, per rule; every expected finding not found is a miss."""
    internal = [f for f in findings if str(f.get("code", "")).startswith("JIT9")]
    found = {_key(f, corpus) for f in findings if f not in internal}
    labelled = {code for _, _, code in labels.expected}
    rules = {c: RuleScore(c, c in implemented) for c in sorted({*labelled, *implemented})}
    fps = sorted(found - labels.expected - labels.tolerated)
    misses = sorted(labels.expected - found)
    for _, _, code in found & labels.expected:
        rules[code].tp += 1
    for _, _, code in fps:
        rules.setdefault(code, RuleScore(code, True)).fp += 1
    for _, _, code in labels.expected - found:
        rules[code].fn += 1
    return Score(rules, fps, misses, internal)


def _source_line(corpus: Path, key: Key) -> str:
    try:
        return (corpus / key[0]).read_text(encoding="utf-8").splitlines()[key[1] - 1].strip()
    except (OSError, IndexError):
        return ""


def format_report(result: Score, corpus: Path) -> str:
    """Render the per-rule table, the aggregates and every miss and false positive."""
    rows = [f"{'rule':8} {'impl':>4} {'TP':>4} {'FP':>4} {'FN':>4} {'prec':>6} {'recall':>6}"]
    for r in result.rules.values():
        impl = "yes" if r.implemented else "no"
        rows.append(
            f"{r.code:8} {impl:>4} {r.tp:4} {r.fp:4} {r.fn:4} {r.precision:6.2f} {r.recall:6.2f}"
        )
    for title, codes in (("core", CORE_CODES), ("all", list(result.rules))):
        t = result.aggregate(codes)
        rows.append(
            f"{title:8} {'':>4} {t.tp:4} {t.fp:4} {t.fn:4} {t.precision:6.2f} {t.recall:6.2f}"
        )
    for title, keys in (("false positives", result.false_positives), ("misses", result.misses)):
        rows.append(f"\n{title} ({len(keys)}):")
        rows += [
            f"  {f}:{line}: {code}  {_source_line(corpus, (f, line, code))}"
            for f, line, code in keys
        ]
    if result.internal:
        rows.append(f"\ninternal findings ({len(result.internal)}):")
        rows += [
            f"  {f.get('filename')}: {f.get('code')} {f.get('message')}" for f in result.internal
        ]
    return "\n".join(rows)


def implemented_codes() -> set[str]:
    """Return the codes of the rules the registry holds."""
    return set(ALL_CODES)


def main(argv: list[str] | None = None) -> int:
    """Score the corpus and print the table."""
    args = sys.argv[1:] if argv is None else argv
    corpus = Path(args[0]) if args else DEFAULT_CORPUS
    implemented = implemented_codes()
    labels = read_labels(corpus)
    _, findings = run_jitlint(labels.files)
    result = score(labels, findings, corpus, implemented)
    print(f"{len(labels.files)} files, {len(labels.expected)} expected findings")
    print(format_report(result, corpus))
    return 0
