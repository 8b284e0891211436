"""Print jitlint's precision and recall per rule on the labelled corpus.

Usage: python benchmarks/corpus_score.py [CORPUS_DIR]

The scoring itself lives with the tests (tests/lint/_corpus.py), which hold the same targets.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.lint._corpus import jitlint_command, main

__all__ = ["jitlint_command", "main"]

if __name__ == "__main__":
    sys.exit(main())
