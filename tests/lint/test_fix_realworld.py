"""--fix on real code: every fixed file of jax's own sources parses, and fixing is idempotent.

jax's own code has almost nothing to fix, so each file also gets a jitted function full of
fixable bugs appended: the fixes then have to find their imports and fit into real module
layouts (docstrings, `__future__` imports, guarded imports, no jax import at all). Fixes are
applied in memory (the same code path `--fix` uses before writing), so the installed
package is never touched. `benchmarks/fix_corpus.py` runs the same check through the command
line over flax, optax, equinox, numpyro and diffrax.
"""

from __future__ import annotations

from pathlib import Path

import jax
import libcst as cst
import pytest

from jitlint.engine.fixing import fix_source
from jitlint.engine.settings import Settings
from jitlint.fixes.apply import applicable, parses

STRIDE = 6  # every sixth file, sorted: the same slice on every run, within the CI budget
PROBE = """

@jax.jit
def _jitlint_probe(x, i, flag):
    print("probe", x, f"{i:>3}")
    x[i] = 0
    x[i + 1] += flag
    x.at[0].set(1)
    return x
"""


@pytest.mark.slow
def test_fix_keeps_jax_sources_parseable_and_idempotent():
    root = Path(jax.__file__).resolve().parent
    files = sorted(root.rglob("*.py"))[1::STRIDE]
    assert len(files) > 100
    settings = Settings()
    changed = fixed = 0
    for path in files:
        source = path.read_bytes() + PROBE.encode()
        outcome = fix_source(str(path), source, settings, unsafe=True)
        assert outcome.result.errors == [], outcome.result.errors
        left = [f for f in outcome.result.findings if applicable(f, unsafe=True)]
        assert left == [], f"{path}: still fixable after --fix: {left[:3]}"
        if not outcome.changed:
            continue
        changed += 1
        fixed += outcome.fixed
        text = outcome.source.decode("utf-8")
        assert parses(text), path
        cst.parse_module(text)
        again = fix_source(str(path), outcome.source, settings, unsafe=True)
        assert again.source == outcome.source, f"{path}: a second --fix changed it again"
    assert changed == len(files)  # every probe was fixed
    assert fixed >= 4 * changed
