"""The JIT3xx-5xx rules: fixes tested to the character, and lookalikes that must stay silent."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from jitlint.model import Applicability, Finding

from ._expect import marked, reported


def _apply(source: str, finding: Finding) -> str:
    """Apply one finding's edits to ``source`` (end exclusive, 1-based rows and columns)."""
    assert finding.fix is not None
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(row: int, column: int) -> int:
        return starts[row - 1] + column - 1

    out = source
    for edit in sorted(finding.fix.edits, key=lambda e: e.start, reverse=True):
        a = offset(edit.start.row, edit.start.column)
        b = offset(edit.end.row, edit.end.column)
        out = out[:a] + edit.content + out[b:]
    return out


def _fixed(source: str, code: str) -> tuple[str, Finding]:
    source = textwrap.dedent(source).lstrip("\n")
    _, result = reported(source, code)
    found = [f for f in result.findings if f.code == code]
    assert len(found) == 1, found
    return _apply(source, found[0]), found[0]


FIXES = [
    (
        "JIT501",
        """
        import jax

        @jax.jit
        def f(x, v):
            x[0, 1] = v * 2  # note
            return x
        """,
        "    x = x.at[0, 1].set(v * 2)  # note\n",
        Applicability.SAFE,
    ),
    (
        "JIT501",
        """
        import jax

        @jax.jit
        def f(hist, idx):
            hist[idx] += 1
            return hist
        """,
        "    hist = hist.at[idx].add(1)\n",
        Applicability.SAFE,
    ),
    (
        "JIT501",
        """
        import jax.numpy as jnp

        def f(y):
            x = jnp.zeros(5)
            x[1:3] -= y + 1
            return x
        """,
        "    x = x.at[1:3].subtract(y + 1)\n",
        Applicability.SAFE,
    ),
    (
        "JIT402",
        """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def f(x):
            return np.linalg.norm(x, axis=0) + np.mean(x.shape)
        """,
        "    return jnp.linalg.norm(x, axis=0) + np.mean(x.shape)\n",
        Applicability.SAFE,
    ),
    (
        "JIT402",
        """
        import jax
        import numpy as onp

        @jax.jit
        def f(x):
            return onp.sqrt(x)
        """,
        "    return jax.numpy.sqrt(x)\n",
        Applicability.SAFE,
    ),
    (
        "JIT402",
        """
        \"\"\"Module docstring.\"\"\"
        from jax import jit
        import numpy as np

        @jit
        def f(x):
            return np.tanh(x)
        """,
        "import jax.numpy as jnp\n",
        Applicability.SAFE,
    ),
    (
        "JIT503",
        """
        import jax.numpy as jnp

        def f(x, v):
            x.at[0].set(v)
            return x
        """,
        "    x = x.at[0].set(v)\n",
        Applicability.UNSAFE,
    ),
]


@pytest.mark.parametrize(("code", "source", "line", "applicability"), FIXES)
def test_fix_rewrites_exactly_the_statement(code, source, line, applicability):
    fixed, finding = _fixed(source, code)
    assert finding.fix is not None and finding.fix.applicability is applicability
    assert line in fixed.splitlines(keepends=True)
    cst.parse_module(fixed)  # a fixed file always parses
    got, _ = reported(fixed, code)
    assert got == set(), "the fixed finding is gone on re-lint"


@pytest.mark.parametrize(
    ("code", "source"),
    [
        ("JIT501", "import jax\n\n@jax.jit\ndef f(x):\n    x[0] //= 2\n    return x\n"),
        (
            "JIT402",
            "import jax\nimport numpy as np\n\n@jax.jit\ndef f(x):\n    return np.unique(x)\n",
        ),
        (
            "JIT402",
            "import jax\nimport jax.numpy as jnp\nimport numpy as np\n\n@jax.jit\n"
            "def f(x, o):\n    return np.add(x, 1, out=o)\n",
        ),
    ],
)
def test_no_fix_where_the_rewrite_is_not_equivalent(code, source):
    _, result = reported(source, code)
    found = [f for f in result.findings if f.code == code]
    assert len(found) == 1 and found[0].fix is None


# Each case marks the lines that must be flagged (`# JIT502`); unmarked lines must stay silent.
CASES = {
    "JIT303": [
        """
import jax
import jax.numpy as jnp

STEPS = 500
BIG = STEPS * 4

@jax.jit
def f(x):
    for _ in range(STEPS):
        x = x * 0.99
    ys = [x * i for i in range(BIG)]  # JIT303
    for i in range(0, 3000, 2):  # JIT303
        x = x + i
    for i in range(x.shape[0] * 1000):
        x = x + i
    return x, ys
""",
    ],
    "JIT401": [
        """
import math
import jax
from jax import lax

@jax.jit
def f(x, y=None):
    n = int(x.shape[0]) + int(len(x))
    flag = bool(y is None)
    return x * float(n) * flag, complex(x)  # JIT401

def host(x):
    return float(f(x)[0]) + math.sqrt(f(x)[0])

@jax.jit
def g(x):
    return math.log(x.size) * math.exp(x[0])  # JIT401

def body(i, c):
    return c + int(i)  # JIT401

lax.fori_loop(0, 3, body, 0)
""",
    ],
    "JIT402": [
        """
import jax
import jax.numpy as jnp
import numpy as np
import scipy.special

@jax.jit
def f(x):
    k = np.zeros(x.shape, np.float32)
    d = np.issubdtype(x.dtype, np.floating)
    return jnp.asarray(k) + np.exp(x), d  # JIT402

def loss(w):
    return np.sqrt(w ** 2).sum()  # JIT402

@jax.jit
def odd_but_harmless(x):
    metrics = {"loss": x.sum()}
    metrics = np.sum(metrics, -1)
    return metrics, np.asarray(dict(a=x))

@jax.jit
def erf(x):
    return scipy.special.erf(x) + jax.scipy.special.erf(x)  # JIT402

g = jax.grad(loss)
""",
    ],
    "JIT403": [
        """
import jax
import jax.numpy as jnp

@jax.jit
def f(x, idx):
    keep = ~(x > 0)
    a = x[keep]  # JIT403
    b = x[idx]
    c = x[x.shape[0] > 2]
    d = jnp.where(x > 0, x, 0.0)
    e = x.nonzero()  # JIT403
    g = jnp.unique(x, size=3)
    return a, b, c, d, e, g

@jax.jit
def params(x, mask, valid: jax.Array, keep: "Bool[Array, 'n']", idx: "Int[Array, 'k']"):
    a = x[mask]  # JIT403
    b = x[valid]
    c = x[keep]  # JIT403
    return a, b, c, x[idx]
""",
    ],
    "JIT404": [
        """
import jax
import jax.numpy as jnp
from jax import lax

@jax.jit
def f(key, x, y, n, i):
    a = lax.max(x, y)
    b = x.at[i].min(y)
    c = jax.random.randint(key, (), 0, n)
    d = jnp.roll(x, n)
    e = jax.random.categorical(key, x, axis=-1, shape=(n,))  # JIT404
    f = x.sum(i)  # JIT404
    g = jnp.full((3,), n)
    h = jnp.repeat(x, n, total_repeat_length=8)
    r = jnp.repeat(x, n)  # JIT404
    s = x[i : i + 2]  # JIT404
    x[:n] = 0.0
    t = jnp.roll(x, 1, axis=i)  # JIT404
    u = jax.ops.segment_sum(x, y, num_segments=n)  # JIT404
    w = jax.ops.segment_max(x, y, x.shape[0])
    return a, b, c, d, e, f, g, h, r, s, t, u, w, x[i], x[: x.shape[0] - 1]

@jax.jit
def summary(x, xnp=None):
    if xnp is None:
        xnp = jax.numpy
    finite = xnp.isfinite(x)
    match x.ndim:
        case 1:
            y = x
        case _:
            y = x.ravel()
    return xnp.any(finite), xnp.reshape(y, (-1,)), y.reshape(x, -1)  # JIT404
""",
    ],
    "JIT501": [
        """
import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

@jax.jit
def f(params, x, v, rows: list, cfg: dict):
    params["w"] = v
    rows[0] = v
    cfg[1] = v
    acc = []
    acc.append(v)
    acc[0] = v
    y = jnp.ones(3)
    y[0] = v  # JIT501
    for item in [x]:
        item[0] = v
    x = x * 2.0
    x[1] = v  # JIT501
    xs = [x] + [v]
    xs[0] = v
    return params, x, y, xs

@jax.jit
def refs(r: jax.Ref, v, count):
    r[0] = v
    count[...] += 1
    return r

class Buffer:
    def __init__(self, n):
        self.obs = jnp.zeros((n, 3))
        self.host = np.zeros((n, 3))
        self.var = nnx.Variable(jnp.zeros(3))
        self.ptr = 0

    def add(self, o):
        self.host[self.ptr] = o
        self.var[0] = o
        self.obs[self.ptr] = o  # JIT501
        self.obs = self.obs.at[self.ptr].set(o)

@nnx.jit
def stateful(counter, x):
    counter[0] = x
    y = x * 2
    y[0] = 0.0  # JIT501
    return y

def host(n):
    a = np.zeros(n)
    a[0] = 1
    parts = jnp.split(jnp.arange(4), 2)
    parts[0] = 0
    z = jnp.arange(n).reshape(2, -1)
    z[0, 0] += 1  # JIT501
    return a, parts, z
""",
    ],
    "JIT502": [
        """
import jax
from jax import random

def branches(key, flag):
    if flag:
        a = random.normal(key)
    else:
        a = random.uniform(key)
    return a

def early(key, flag):
    if flag:
        return random.normal(key)
    b = random.uniform(key)
    c = random.normal(key)  # JIT502
    return b, c

def ternary(key, flag):
    return random.normal(key) if flag else random.uniform(key)

def while_split(key, n):
    while n > 0:
        key, sub = random.split(key)
        n -= random.uniform(sub)
    return key

def comprehension(key, n):
    keys = random.split(key, n)
    good = [random.normal(k) for k in keys]
    bad = [random.normal(key) for _ in range(n)]  # JIT502
    return good, bad

def aliases(key, other, flag):
    k = key
    x = random.normal(k)
    y = random.normal(key)  # JIT502
    j = key if flag else other
    z = random.normal(j)
    if flag:
        m = key
    else:
        m = other
    w = random.normal(m)  # JIT502
    return x, y, z, w

def split_in_and_after_loop(rng_key, items):
    rng_key, subkey = random.split(rng_key)
    a = random.normal(subkey)
    for item in items:
        rng_key, subkey = random.split(rng_key)
        a = a + random.normal(subkey)
    rng_key, subkey = random.split(rng_key)
    return a + random.normal(subkey)

def subscripts(key, n):
    keys = random.split(key, 3)
    a = random.normal(keys[0])
    b = random.normal(keys[1]) + random.normal(keys[-1])
    c = random.normal(keys[0])  # JIT502
    keys = random.split(keys[2], 3)
    d = random.normal(keys[0])
    return a, b, c, d, [random.normal(keys[i]) for i in range(n)]

def rebound(key):
    x = random.normal(key)
    key = random.fold_in(key, 1)
    y = random.normal(key)
    return x, y

def noise(key, shape, kind="normal"):
    if kind == "normal":
        return random.normal(key, shape)
    return random.uniform(key, shape)

def relay(key, shape):
    key = random.fold_in(key, 1)
    return random.normal(key, shape)

def batches(key, n):
    x = random.normal(key, (n, 2))
    for i in range(n):
        yield x[i]

def data(key):
    full = list(batches(key, 4))
    return full, [b for b in batches(key, 4)]

def helpers(key, shape):
    a = noise(key, shape)
    b = relay(key, shape)
    c = random.uniform(key, shape)  # JIT502
    d = noise(shape=shape, key=key)  # JIT502
    return a, b, c, d

@jax.jit
def jitted(rng, x):
    noise = random.normal(rng, x.shape)
    drop = random.bernoulli(rng, 0.5, x.shape)  # JIT502
    return x * drop + noise
""",
    ],
    "JIT503": [
        """
import jax.numpy as jnp

def f(x, v):
    y = x.at[0].set(v)
    jnp.zeros(3).at[1].add(v)  # JIT503
    return [x.at[i].set(v) for i in range(2)], y
""",
    ],
    "JIT504": [
        """
from functools import partial
import jax

@partial(jax.jit, donate_argnums=(0,))
def step(state, batch):
    return state + batch

@jax.jit
def plain(state, batch):
    return state + batch

def run(state, batches):
    for b in batches:
        state = step(state, b)
        print(state, state.shape)
    new = plain(state, batches[0])
    return new, state

def reuse_in_loop(state, batches):
    for b in batches:
        out = step(state, b)  # JIT504
    return out

def shape_only(state, b):
    new = step(state, b)
    return new, state.shape, state is None, isinstance(state, tuple), len(state)

def keyword(state, b):
    new = step(state=state, batch=b)
    return new, state  # JIT504

class Trainer:
    @partial(jax.jit, static_argnums=0, donate_argnums=1)
    def update(self, state, batch):
        return state + batch

    def fit(self, state, batches):
        for b in batches:
            state = self.update(state, b)
        last = self.update(state, batches[0])
        return last, batches, state  # JIT504

def branch(state, b, flag):
    if flag:
        state = step(state, b)
    else:
        new = step(state, b)
        return new
    return state
""",
    ],
}


@pytest.mark.parametrize(
    ("code", "index"),
    [(code, i) for code, cases in CASES.items() for i in range(len(cases))],
)
def test_lookalikes_and_bugs(code, index):
    source = CASES[code][index].lstrip("\n")
    got, _ = reported(source, code)
    assert got == marked(source, code)


@pytest.mark.slow
def test_flow_rules_follow_long_operator_chains():
    chain = " + ".join(["x"] * 1500)
    source = (
        "import jax\n\n"
        "step = jax.jit(lambda s: s, donate_argnums=0)\n\n"
        "def f(key, x, s):\n"
        f"    y = jax.random.normal(key) + {chain}\n"
        "    z = jax.random.normal(key)\n"
        "    t = step(s)\n"
        f"    return y + z + t + s + {chain}\n"
    )
    got, _ = reported(source)
    assert got == {(7, "JIT502"), (9, "JIT504")}


CORPUS = Path(__file__).resolve().parent / "corpus"


@pytest.mark.slow
def test_every_fix_on_the_corpus_parses_and_removes_its_finding():
    fixed = 0
    for path in sorted(CORPUS.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        _, result = reported(source, filename=path.name)
        for finding in result.findings:
            if finding.fix is None or finding.code not in {"JIT402", "JIT501", "JIT503"}:
                continue
            after = _apply(source, finding)
            cst.parse_module(after)
            got, _ = reported(after, finding.code, filename=path.name)
            assert (finding.location.row, finding.code) not in got, (path.name, finding)
            fixed += 1
    assert fixed >= 5
