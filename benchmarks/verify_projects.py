"""Run the multi-module corpus (tests/lint/projects) on JAX and check every label.

Usage: python benchmarks/verify_projects.py [--python PYTHON]

Each check runs one entry of a project in a fresh subprocess (CPU, traceback filtering off).
A `raises` check requires the innermost project frame of the error to be the labelled line;
an `observed` check runs code that evaluates the silent misbehaviour to True and names the
labelled line it shows; a `good` check requires the fixed lookalike to run cleanly. Every
`# expect:` label in the corpus must be covered by some check. `--python` picks an
interpreter with flax, equinox and numpyro installed (default: this one).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

PROJECTS = Path(__file__).resolve().parent.parent / "tests" / "lint" / "projects"
_EXPECT = re.compile(r"#\s*expect:\s*(JIT\d{3}(?:\s*,\s*JIT\d{3})*)")


@dataclass(frozen=True)
class Check:
    """One entry run: the project, its import root, the code, what it must show."""

    project: str
    root: str  # directory put on sys.path, relative to the project
    kind: str  # "raises" | "observed" | "good"
    code: str
    label: str = ""  # "relative/path.py:LINE" of the label this check verifies


_RUNNER = """
import json, os, sys, traceback
sys.path.insert(0, {root!r})
os.chdir({root!r})
project = {project!r}
result = {{"ok": True}}
try:
{code}
    result["observed"] = bool(globals().get("observed", True))
except Exception as err:
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if os.path.abspath(f.filename).startswith(project)]
    last = frames[-1] if frames else None
    result = {{"ok": False, "error": type(err).__name__,
              "where": f"{{os.path.relpath(last.filename, project)}}:{{last.lineno}}"
              if last else None}}
print("RESULT " + json.dumps(result))
"""


def _c(project: str, root: str, kind: str, code: str, label: str = "") -> Check:
    return Check(project, root, kind, textwrap.dedent(code).strip(), label)


FLAT_SETUP = """
import jax, jax.numpy as jnp
from trainer import losses, model, train
p = model.init_params(jax.random.key(0), 3, 2)
x = jnp.ones((4, 3)) * 30.0
y = jnp.zeros((4, 2))
"""
REGRESS_SETUP = """
import jax, jax.numpy as jnp
from regress import core, settings
w = jnp.zeros(3)
x = jnp.arange(12.0).reshape(4, 3)
y = jnp.ones(4)
"""
NESTED_SETUP = """
import jax, jax.numpy as jnp
from app.models import mlp_init
from app.training import step
params = mlp_init(jax.random.key(0), [3, 3, 1])
x = jnp.ones((2, 3))
"""
ZOO_SETUP = """
import jax, jax.numpy as jnp
from zoo import train, eqx_models
x = jnp.ones((2, 3))
"""
BAYES_SETUP = """
import jax, jax.numpy as jnp
from bayes import run
"""
PIPE_SETUP = """
import jax, jax.numpy as jnp
import run_pipeline as rp
"""

CHECKS = [
    _c("flat_trainer", ".", "raises", FLAT_SETUP + "train.step(p, x, y)", "trainer/model.py:25"),
    _c("flat_trainer", ".", "good", FLAT_SETUP + "train.step_fixed(p, x, y)"),
    _c("flat_trainer", ".", "good", FLAT_SETUP + "train.evaluate(p, x, y)"),
    _c(
        "flat_trainer",
        ".",
        "raises",
        FLAT_SETUP + "train.logged_step(p, x, y)",
        "trainer/losses.py:15",
    ),
    _c(
        "flat_trainer",
        ".",
        "raises",
        FLAT_SETUP + "jax.jit(lambda a: losses.spread(model.predict(p, a)))(x)",
        "trainer/losses.py:19",
    ),
    _c(
        "src_regress",
        "src",
        "observed",
        REGRESS_SETUP
        + textwrap.dedent(
            """
        a = core.fit_step(w, x, y)
        settings.set_learning_rate(0.0)
        b = core.fit_step(w, x, y)
        observed = bool((a == b).all()) and not bool((b == w).all())
        """
        ),
        "src/regress/core.py:12",
    ),
    _c(
        "src_regress",
        "src",
        "observed",
        REGRESS_SETUP
        + textwrap.dedent(
            """
        a = core.predict_step(w + 1, x)
        settings.DECAY = 0.0
        b = core.predict_step(w + 1, x)
        observed = bool((a == b).all()) and bool((a != 0).any())
        """
        ),
        "src/regress/core.py:17",
    ),
    _c(
        "src_regress",
        "src",
        "observed",
        REGRESS_SETUP
        + textwrap.dedent(
            """
        core.predict_step(w, x)
        observed = isinstance(settings.HISTORY[0], jax.core.Tracer)
        """
        ),
        "src/regress/ops.py:14",
    ),
    _c(
        "src_regress",
        "src",
        "observed",
        REGRESS_SETUP
        + textwrap.dedent(
            """
        core.fit_step(w, x, y)
        core.fit_step(w, x, y)
        observed = len(settings.CALLS) == 1
        """
        ),
        "src/regress/ops.py:19",
    ),
    _c(
        "src_regress",
        "src",
        "observed",
        REGRESS_SETUP
        + textwrap.dedent(
            """
        import io, contextlib
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            core.loss_step(w, x, y)
            core.loss_step(w, x, y)
        observed = out.getvalue().count("loss") == 1  # printed once, at trace time
        """
        ),
        "src/regress/ops.py:24",
    ),
    _c("src_regress", "src", "good", REGRESS_SETUP + "core.fit_step_fixed(w, x, y, 0.1)"),
    _c(
        "nested_app",
        ".",
        "raises",
        NESTED_SETUP + "step.train_step(params, x, 0.0)",
        "app/models/blocks.py:11",
    ),
    _c(
        "nested_app",
        ".",
        "raises",
        NESTED_SETUP + "step.sparsity_step(params, x)",
        "app/utils/numerics.py:9",
    ),
    _c(
        "nested_app",
        ".",
        "raises",
        NESTED_SETUP + "step.bounded_step(params, x, 0.5)",
        "app/utils/numerics.py:13",
    ),
    _c("nested_app", ".", "good", NESTED_SETUP + "step.skip_step(params, x)"),
    _c(
        "modules_zoo",
        ".",
        "raises",
        ZOO_SETUP + "train.gated_loss(train.gated.init(jax.random.key(0), x), x)",
        "zoo/layers.py:15",
    ),
    _c(
        "modules_zoo",
        ".",
        "raises",
        ZOO_SETUP + "train.normalised_loss(train.normalised.init(jax.random.key(0), x), x)",
        "zoo/layers.py:26",
    ),
    _c(
        "modules_zoo",
        ".",
        "good",
        ZOO_SETUP + "train.safe_loss(train.safe.init(jax.random.key(0), x), x)",
    ),
    _c(
        "modules_zoo",
        ".",
        "raises",
        ZOO_SETUP + "train.scaled(eqx_models.Scaler(jax.random.key(0), 3), jnp.ones(3))",
        "zoo/eqx_models.py:20",
    ),
    _c(
        "modules_zoo",
        ".",
        "raises",
        ZOO_SETUP + "train.child_out(eqx_models.Child(jnp.ones(3)), jnp.ones(3))",
        "zoo/eqx_models.py:32",
    ),
    _c(
        "bayes_keys",
        ".",
        "raises",
        BAYES_SETUP + "x = jnp.linspace(-1, 1, 8); run.fit_buggy(jax.random.key(0), x, 2 * x)",
        "bayes/models.py:9",
    ),
    _c(
        "bayes_keys",
        ".",
        "good",
        BAYES_SETUP
        + "x = jnp.linspace(-1, 1, 8); run.fit(jax.random.key(0), x, 2 * x, fixed=True)",
    ),
    _c(
        "bayes_keys",
        ".",
        "observed",
        BAYES_SETUP
        + textwrap.dedent(
            """
        nx, y = run.make_data(jax.random.key(0), 5)
        x = jnp.linspace(-1.0, 1.0, 5)
        observed = bool(jnp.allclose(y - 2.0 * x, nx - x))
        """
        ),
        "bayes/run.py:12",
    ),
    _c(
        "bayes_keys",
        ".",
        "observed",
        BAYES_SETUP
        + textwrap.dedent(
            """
        from bayes.noise import two_draws
        key = jax.random.key(1)
        k1, _ = jax.random.split(key)
        a, _ = two_draws(key, (3,))
        c = jax.random.normal(k1, (3,))
        observed = bool((a == c).all())  # `draws` reuses randomness already consumed
        """
        ),
        "bayes/run.py:24",
    ),
    _c("bayes_keys", ".", "good", BAYES_SETUP + "run.make_data_fixed(jax.random.key(0), 5)"),
    _c(
        "ns_pipeline",
        "lib",
        "raises",
        "import sys; sys.path.insert(0, '../scripts')\n"
        + PIPE_SETUP
        + "rp.smooth_all(jnp.arange(20.0) * 5)",
        "lib/pipeline/stages/smooth.py:9",
    ),
    _c(
        "ns_pipeline",
        "lib",
        "good",
        "import sys; sys.path.insert(0, '../scripts')\n"
        + PIPE_SETUP
        + "rp.smooth_all_fixed(jnp.arange(20.0) * 5)",
    ),
    _c(
        "ns_pipeline",
        "lib",
        "observed",
        "import sys; sys.path.insert(0, '../scripts')\n"
        + PIPE_SETUP
        + textwrap.dedent(
            """
        out = rp.noisy(jax.random.key(0))
        observed = bool(jnp.allclose(out, 2 * rp.sample_noise(jax.random.key(0), 3)))
        """
        ),
        "scripts/run_pipeline.py:25",
    ),
    _c(
        "ns_pipeline",
        "lib",
        "raises",
        "import sys; sys.path.insert(0, '../scripts')\n"
        + PIPE_SETUP
        + "rp.windows(jnp.arange(6.0))",
        "lib/pipeline/stages/window.py:7",
    ),
]


def labels() -> set[str]:
    """Return every `path:line` that carries an `# expect:` label."""
    out = set()
    for path in sorted(PROJECTS.rglob("*.py")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if _EXPECT.search(line):
                out.add(f"{path.relative_to(PROJECTS).as_posix()}:{i}")
    return out


def run_check(check: Check, python: str) -> tuple[bool, str]:
    """Run one check; return whether it holds and a one-line account."""
    project = PROJECTS / check.project
    root = project / check.root
    body = textwrap.indent(check.code, "    ")
    script = _RUNNER.format(root=str(root), project=str(project) + os.sep, code=body)
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "JAX_TRACEBACK_FILTERING": "off"}
    proc = subprocess.run(
        [python, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if not lines:
        return False, f"no result: {proc.stderr.strip()[-400:]}"
    result = json.loads(lines[-1][len("RESULT ") :])
    if check.kind == "raises":
        got = f"{check.project}/{result.get('where')}"
        ok = not result["ok"] and got == f"{check.project}/{check.label}"
        return ok, f"{result.get('error')} at {got}"
    if check.kind == "observed":
        return bool(result["ok"] and result.get("observed")), f"observed={result}"
    return bool(result["ok"]), f"ran: {result}"


def main(argv: list[str] | None = None) -> int:
    """Run every check; exit 1 if one fails or a label has no check."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--only", default="", help="run the checks whose label contains this")
    args = parser.parse_args(argv)
    failed = ran = 0
    covered = set()
    for check in CHECKS:
        if args.only not in f"{check.project}/{check.label}":
            continue
        ok, account = run_check(check, args.python)
        ran += 1
        if check.label:
            covered.add(f"{check.project}/{check.label}")
        failed += not ok
        tag = "ok  " if ok else "FAIL"
        print(f"{tag} {check.kind:8} {check.project}/{check.label or '(lookalike)'}: {account}")
    missing = sorted(labels() - covered) if not args.only else []
    for label in missing:
        print(f"FAIL no check verifies {label}")
    print(f"{ran - failed}/{ran} checks hold, {len(missing)} labels unverified")
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
