"""Run jitlint as ``python -m jitlint``."""

import sys

from jitlint.cli import main

sys.exit(main())
