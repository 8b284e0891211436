"""Score jitlint on the real-world corpus: per rule, per modelling gap, per source.

Usage: python benchmarks/realworld_score.py [CORPUS_DIR]

The corpus (tests/lint/realworld by default; see its README.md) holds code that JAX users
posted in public issue threads and Q&A, labelled inline like the main corpus
(`# expect: JIT101`, `# tolerate: ...`) and verified against JAX by
benchmarks/verify_realworld.py. Each file names its source (`# source: URL`) and the part of
jitlint's model it exercises (`# gap: <category>`). Scoring is on (file, line, code), with
the same rules as benchmarks/corpus_score.py (tests/lint/_corpus.py), which this reuses.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.lint import _corpus as cs  # noqa: E402

DEFAULT_CORPUS = REPO / "tests" / "lint" / "realworld"

GAPS = (
    "omnistaging",
    "flow-sensitive",
    "types",
    "exemption-vs-JAX",
    "static-hashability",
    "per-call-recompile",
    "stale-state-attributes",
    "cross-module",
    "other",
)

_GAP_RE = re.compile(r"^#\s*gap:\s*(\S+)", re.MULTILINE)
_SOURCE_RE = re.compile(r"^#\s*source:\s*(\S+)", re.MULTILINE)
_REPO_RE = re.compile(r"github\.com/([^/\s]+/[^/\s]+)")


@dataclass
class FileInfo:
    """The header facts of one corpus file."""

    name: str
    gap: str
    source: str
    labelled: bool


def file_info(corpus: Path, path: Path, labels: cs.Labels) -> FileInfo:
    """Read the `# gap:` and `# source:` headers of one file."""
    text = path.read_text(encoding="utf-8")
    name = path.relative_to(corpus).as_posix()
    gap = _GAP_RE.search(text)
    source = _SOURCE_RE.search(text)
    url = source.group(1) if source else ""
    repo = _REPO_RE.search(url)
    origin = repo.group(1) if repo else (url.split("/")[2] if url.count("/") >= 2 else "?")
    labelled = any(k[0] == name for k in labels.expected)
    return FileInfo(name, gap.group(1) if gap else "?", origin, labelled)


def per_gap(result: cs.Score, labels: cs.Labels, infos: list[FileInfo]) -> dict[str, cs.RuleScore]:
    """Sum hits, false positives and misses over the files of each gap category."""
    gap_of = {i.name: i.gap for i in infos}
    table = {g: cs.RuleScore(g, True) for g in sorted({*GAPS, *gap_of.values()})}
    misses = set(result.misses)
    for key in labels.expected:
        if not result.rules[key[2]].implemented:
            continue  # as in the per-rule aggregate: unimplemented rules are not scored
        row = table[gap_of.get(key[0], "?")]
        if key in misses:
            row.fn += 1
        else:
            row.tp += 1
    for key in result.false_positives:
        table[gap_of.get(key[0], "?")].fp += 1
    return table


def score_corpus(corpus: Path) -> tuple[cs.Score, dict[str, cs.RuleScore], list[FileInfo]]:
    """Lint `corpus` and score it; return the per-rule score, the per-gap table, the files."""
    implemented = cs.implemented_codes()
    if not implemented:
        raise RuntimeError("jitlint.rules.all_rules() is not available")
    labels = cs.read_labels(corpus)
    _, findings = cs.run_jitlint(labels.files)
    result = cs.score(labels, findings, corpus, implemented)
    infos = [file_info(corpus, p, labels) for p in labels.files]
    return result, per_gap(result, labels, infos), infos


def format_gaps(table: dict[str, cs.RuleScore], infos: list[FileInfo]) -> str:
    """Render the per-gap table with file counts."""
    files = Counter(i.gap for i in infos)
    rows = [f"{'gap':24} {'files':>5} {'TP':>4} {'FP':>4} {'FN':>4} {'prec':>6} {'recall':>6}"]
    for gap, r in table.items():
        if files[gap] or r.tp or r.fp or r.fn:
            rows.append(
                f"{gap:24} {files[gap]:5} {r.tp:4} {r.fp:4} {r.fn:4} "
                f"{r.precision:6.2f} {r.recall:6.2f}"
            )
    return "\n".join(rows)


def format_sources(infos: list[FileInfo]) -> str:
    """Count files per source repository (or site), with how many are labelled."""
    total = Counter(i.source for i in infos)
    labelled = Counter(i.source for i in infos if i.labelled)
    rows = [f"{'source':40} {'files':>5} {'buggy':>5} {'good':>5}"]
    for source, n in total.most_common():
        rows.append(f"{source:40} {n:5} {labelled[source]:5} {n - labelled[source]:5}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """Score the corpus and print the per-rule, per-gap and per-source tables."""
    args = sys.argv[1:] if argv is None else argv
    corpus = Path(args[0]).resolve() if args else DEFAULT_CORPUS
    if not corpus.is_dir():
        print(f"error: {corpus} is not a folder", file=sys.stderr)
        return 2
    try:
        result, gaps, infos = score_corpus(corpus)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    total = result.aggregate(result.rules)
    good = sum(not i.labelled for i in infos)
    print(
        f"{len(infos)} files ({len(infos) - good} with bugs, {good} good); "
        f"precision {total.precision:.2f}, recall {total.recall:.2f} "
        f"(TP {total.tp}, FP {total.fp}, FN {total.fn})\n"
    )
    print(format_gaps(gaps, infos))
    print()
    print(format_sources(infos))
    print()
    print(cs.format_report(result, corpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
