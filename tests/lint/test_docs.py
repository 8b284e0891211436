"""The rule pages in docs/rules are generated from the code and must not drift from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jitlint import docs
from jitlint.rules import all_rules

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"


def test_generated_pages_match_the_code():
    stale = [
        name
        for name, text in docs.pages().items()
        if not (DOCS / name).is_file() or (DOCS / name).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"run `python -m jitlint.docs` to regenerate: {stale}"


def test_no_page_without_a_rule():
    expected = set(docs.pages())
    assert {p.name for p in DOCS.glob("*.md")} == expected


def test_page_carries_examples_and_doc(tmp_path):
    assert docs.main([str(tmp_path)]) == 0
    rule = all_rules()[0]
    page = (tmp_path / f"{rule.code}.md").read_text(encoding="utf-8")
    assert rule.name in page and "## Why is this bad?" in page
    assert rule.INVALID[0].strip().splitlines()[-1].strip() in page


def test_check_passes_on_the_repository_and_fails_on_a_stale_page(tmp_path, capsys):
    assert docs.main(["--check", str(DOCS)]) == 0
    assert docs.main([str(tmp_path)]) == 0
    assert docs.main(["--check", str(tmp_path)]) == 0
    (tmp_path / "JIT101.md").write_text("outdated\n", encoding="utf-8")
    (tmp_path / "JIT999.md").write_text("no such rule\n", encoding="utf-8")
    assert docs.main(["--check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "stale: " in err and "JIT101.md" in err and "no rule for: " in err


def test_help_and_unknown_options_write_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as help_exit:
        docs.main(["--help"])
    assert help_exit.value.code == 0
    assert "--check" in capsys.readouterr().out
    with pytest.raises(SystemExit) as bad_exit:
        docs.main(["--bogus"])
    assert bad_exit.value.code == 2
    assert list(tmp_path.iterdir()) == []
