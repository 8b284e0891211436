"""The tracing model, case by case, each case checked twice: by jitlint and by running JAX.

A case marks at most one line with the code jitlint must report there (`# JIT101`); JAX must
fail at exactly that line. A case with no mark must run cleanly under JAX, and jitlint must
report nothing. So every claim the model makes about JAX is one JAX has just confirmed.
"""

from __future__ import annotations

import logging
import sys
import textwrap
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitlint.analysis.knowledge import DISPATCHES_TO_METHOD
from jitlint.analysis.transforms import OPTAX_SCHEDULED
from jitlint.rules.jit403_dynamic_shape import SIZE_CHANGING

from ._expect import marked, reported
from ._jaxrun import run


def linted_and_run(source: str, *, findings: bool = False) -> dict[str, object]:
    """Check that jitlint reports the lines ``source`` marks (some, with ``findings``),
    then run it; return its namespace, for the test to check what JAX did."""
    got, _ = reported(source)
    assert got == marked(source)
    assert got or not findings, "the case marks no line"
    namespace: dict[str, object] = {}
    exec(compile(source, "case.py", "exec"), namespace)
    return namespace


# Omnistaging: under jit (and everything staged out to a jaxpr) every JAX operation returns
# a tracer, even on constants; under vmap or grad alone operations on constants stay concrete.
OMNISTAGING = {
    "the-length-of-an-fft-is-its-output-shape": """
import jax
import jax.numpy as jnp

@jax.jit
def my_fft(a, b):
    return jnp.fft.fft(a, b)  # JIT404

my_fft(jnp.arange(8.0), jnp.array(16))
""",
    "ensure-compile-time-eval-makes-constant-computations-concrete-under-jit": """
import jax
import jax.numpy as jnp

def scale():
    with jax.ensure_compile_time_eval():
        c = jnp.mean(jnp.linspace(0.0, 2.0, 5))
        return c.item()

@jax.jit
def f(x):
    return x * scale()

f(jnp.ones(2))
""",
    "ensure-compile-time-eval-leaves-them-staged-under-shard-map": """
from functools import partial
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

def scale():
    with jax.ensure_compile_time_eval():
        c = jnp.mean(jnp.linspace(0.0, 2.0, 5))
        return c.item()  # JIT401

mesh = jax.make_mesh((1,), ("i",))

@partial(jax.shard_map, mesh=mesh, in_specs=(P(),), out_specs=P(), check_vma=False)
def g(x):
    return x * scale()

g(jnp.ones(2))
""",
    "a-chained-call-fails-on-the-line-of-its-method-name": """
import jax
import jax.numpy as jnp

@jax.jit
def pick(c):
    rows = jnp.array([(0, 0),
                      (1, 1)]).transpose().tolist()  # JIT401
    return c[tuple(rows)]

pick(jnp.ones((2, 2)))
""",
    "a-constant-jax-array-indexed-under-jit-is-a-tracer": """
import jax
import jax.numpy as jnp

UB = jnp.array([1.0, 2.0])

def fold(ub, n):
    total = 0.0
    for i in range(n):
        total += float(ub[i])  # JIT401
    return total

@jax.jit
def f(c):
    return c * fold(UB, 2)

f(jnp.ones(2))
""",
    "a-constant-jax-array-indexed-under-grad-alone-is-concrete": """
import jax
import jax.numpy as jnp

UB = jnp.array([1.0, 2.0])

def loss(c):
    return c.sum() * float(UB[0])

jax.grad(loss)(jnp.ones(2))
""",
    "comparison-of-a-constant-jax-array-under-jit-is-traced": """
import jax
import jax.numpy as jnp

Y = jnp.arange(10.0)

@jax.jit
def f(x):
    if (Y <= 0).all():  # JIT101
        return x
    return x + 1

f(1.0)
""",
    "a-concreteness-guard-does-not-stop-omnistaging": """
import jax
import jax.numpy as jnp
import numpy as np

y = jnp.arange(10.0)

def not_jax_tracer(x):
    return not isinstance(x, jax.core.Tracer)

def f(x):
    if not_jax_tracer(y):
        if np.all(y <= 0):  # JIT101
            x = x + 1
    return x + y

jax.jit(f)(1)
""",
    "a-defaulted-flag-passed-by-the-call-of-a-jit-is-traced": """
import jax
import jax.numpy as jnp

def power(x, option=False):
    return x**2 if option else x**3  # JIT101

(lambda x: jax.jit(power)(x, True))(jnp.arange(3))
""",
    "remat-inside-jit-traces-what-jit-keeps-static": """
import jax

def f(a_bool, y):
    if a_bool:  # JIT101
        return y + 1
    return y

jax.jit(jax.remat(f), static_argnums=0)(True, 1)
""",
    "multigammaln-jitted-as-it-is-traces-its-dimension": """
import jax
from jax.scipy.special import multigammaln

jax.jit(multigammaln)(1.0, 2)  # JIT404
""",
    "constant-sqrt-under-jit": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    n = jnp.sqrt(2.0)
    if n > 1:  # JIT101
        x = x + 1
    return x

f(jnp.ones(3))
""",
    "dtype-constructor-as-shape": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    k = jnp.int32(3) * 2
    return x.sum() + jnp.zeros(k)  # JIT404

f(jnp.ones(3))
""",
    "array-of-shape-as-shape": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    m = jnp.array(x.shape).prod()
    return x.reshape(m)  # JIT404

f(jnp.ones((2, 3)))
""",
    "shape-queries-stay-static": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    n = jnp.shape(x)[0] * jnp.ndim(x) + jnp.size(x)
    eps = jnp.finfo(jnp.float32).eps
    if n > 2 and eps < 1.0 and jnp.issubdtype(x.dtype, jnp.floating):
        x = x + jnp.zeros(n)[: x.shape[0]]
    return x.reshape(jnp.broadcast_shapes(x.shape, (1,)))

f(jnp.ones(3))
""",
    "constants-concrete-under-vmap": """
import jax
import jax.numpy as jnp

def g(x):
    if jnp.sqrt(2.0) > 1:
        x = x + jnp.zeros(jnp.int32(3) * 1)
    return x

jax.vmap(g)(jnp.ones((2, 3)))
""",
    "constants-concrete-under-grad": """
import jax
import jax.numpy as jnp

def g(x):
    if jnp.sqrt(2.0) > 1:
        x = x * 2
    return x.sum()

jax.grad(g)(jnp.ones(3))
""",
    "constants-traced-in-scan-body": """
import jax
import jax.numpy as jnp

def body(carry, _):
    if jnp.asarray(1.0) > 0:  # JIT101
        carry = carry + 1
    return carry, None

jax.lax.scan(body, jnp.zeros(()), None, length=2)
""",
    "jitted-call-result-is-traced": """
import jax
import jax.numpy as jnp

@jax.jit
def scale(x):
    return x * 2

@jax.jit
def f(x):
    if scale(3.0) > 1:  # JIT101
        return x
    return -x

f(jnp.ones(3))
""",
    "unique-of-numpy-constant-under-jit": """
import jax
import jax.numpy as jnp
import numpy as np

GROUPS = np.array([0, 1, 0, 1])

@jax.jit
def f(x):
    return x * jnp.unique(GROUPS).size  # JIT403

f(jnp.ones(3))
""",
    "unique-of-numpy-constant-under-vmap": """
import jax
import jax.numpy as jnp
import numpy as np

GROUPS = np.array([0, 1, 0, 1])

def f(x):
    return x * jnp.unique(GROUPS).size

jax.vmap(f)(jnp.ones(3))
""",
    "collective-of-constant-is-python": """
import jax
import jax.numpy as jnp

def f(x):
    n = jax.lax.psum(1, "i")
    if n > 0:
        x = x / n
    return x

jax.pmap(f, axis_name="i")(jnp.ones((1, 3)))
""",
}

# Flow-sensitive facts: what a name is follows its bindings in order.
FLOW = {
    # JAX raises at the test, so a bare message in the branch never prints: one finding.
    "a-branch-of-an-if-on-a-tracer-never-runs": """
import jax

@jax.jit
def f(x):
    if x > 0:  # JIT101
        print("positive")
    return x

f(1.0)
""",
    # `if X is not None: return X` first: the global is a memo the trace fills once with a
    # Python value, and every later call returns it.
    "a-memo-global-filled-at-trace-time-keeps-a-python-value": """
import jax
import jax.numpy as jnp

_ON_TPU = None

def on_tpu():
    global _ON_TPU
    if _ON_TPU is not None:
        return _ON_TPU
    _ON_TPU = jax.default_backend() == "tpu"
    return _ON_TPU

@jax.jit
def f(x):
    return jnp.sort(x) if on_tpu() else jnp.sort(x)[::-1]

f(jnp.ones(3))
f(jnp.zeros(3))
assert _ON_TPU is False
""",
    # A jitted bound method of a module-level object, reached through another name for it.
    "a-jitted-method-of-an-object-named-twice-is-traced": """
import jax
import jax.numpy as jnp

class Cosmology:
    def __init__(self, zmax):
        self.zmax = zmax

    def distance(self, z):
        if jnp.max(z) > self.zmax:  # JIT101
            return z * 2.0
        return z

PLANCK = Cosmology(10.0)

def run(fn, *args):
    return fn(*args)

if __name__ == "__main__":
    cosmo = PLANCK
    run(jax.jit(cosmo.distance), jnp.ones(3))
""",
    # Each `jax.jit(obj.f)` handed to a function that only calls it traces anew: an attribute
    # changed between two of them is read as it is now, not stale.
    "a-jit-handed-to-a-function-that-only-calls-it-traces-anew": """
import jax
import jax.numpy as jnp

class Table:
    def __init__(self, top):
        self.extend(top)

    def extend(self, top):
        self.grid = jnp.linspace(0.0, top, 5)

    def lookup(self, x):
        return jnp.interp(x, self.grid, self.grid * 2.0)

def run(fn, *args):
    return fn(*args)

t = Table(1.0)
first = run(jax.jit(t.lookup), jnp.ones(2))
t.extend(4.0)
second = run(jax.jit(lambda x: t.lookup(x)), jnp.ones(2))
assert float(second[0]) == 2.0 and float(first[0]) == 2.0
""",
    # A global bound twice to the same literal never changes what a trace read of it.
    "a-global-bound-again-to-the-same-literal-is-not-stale": """
import jax
import jax.numpy as jnp

m = 100
gen = jax.jit(lambda x: x * m)
first = gen(jnp.ones(2))
m = 100
gen = jax.jit(lambda x: x + m)
assert float(gen(jnp.ones(2))[0]) == 101.0 and float(first[0]) == 100.0
""",
    # `eqx.filter_jit` keys its cache by the callable's pytree structure, comparing static
    # parts by equality: the same wrapper chain around a bound method, built on every call,
    # traces once (flowMC's `TakeSerialSteps`).
    "equinox-filter-jit-of-a-partial-bound-method-built-per-call-traces-once": """
import equinox as eqx
import jax
import jax.numpy as jnp

n_traces = 0

class Steps:
    def sample(self, k, x):
        global n_traces
        n_traces += 1
        return x * k

    def __call__(self, k, xs):
        return eqx.filter_jit(eqx.filter_vmap(jax.tree_util.Partial(self.sample, k)))(xs)

steps = Steps()
for _ in range(3):
    steps(jnp.ones(()), jnp.ones(3))
assert n_traces == 1, n_traces
""",
    # A global built by a module-level loop before the jitted function is defined: every
    # trace sees its last value (jax#18420's index arrays).
    "a-global-a-module-loop-builds-before-the-def-is-not-stale": """
import jax
import jax.numpy as jnp

idx = jnp.zeros(3, dtype=int)
for k in range(3):
    idx = idx.at[k].set(2 - k)

@jax.jit
def gather(x):
    return x[idx]

assert gather(jnp.arange(3.0)).tolist() == [2.0, 1.0, 0.0]
""",
    # `register_dataclass(mod.Cls, meta_fields=[...])`: the metadata is static in the trace,
    # wherever the class is named from.
    "meta-fields-of-a-dataclass-registered-through-a-dotted-name-are-static": """
import dataclasses
from typing import Tuple
import jax
import jax.numpy as jnp

class types:
    @dataclasses.dataclass
    class Density:
        array: jnp.ndarray
        periodic: Tuple[bool, bool] = (False, False)

jax.tree_util.register_dataclass(types.Density, data_fields=["array"], meta_fields=["periodic"])

@jax.jit
def pad(density: types.Density):
    mode = "wrap" if density.periodic[0] else "edge"
    return jnp.pad(density.array, 1, mode=mode)

pad(types.Density(jnp.ones((2, 2)), (True, False)))
""",
    "meta-fields-named-by-a-partial-register-dataclass-decorator-are-static": """
import dataclasses
import functools
import jax
import jax.numpy as jnp

@functools.partial(
    jax.tree_util.register_dataclass, data_fields=["kernel"], meta_fields=["padding"]
)
@dataclasses.dataclass
class Conv:
    kernel: jnp.ndarray
    padding: int

    def forward(self, x):
        pad = [(self.padding, self.padding), (self.padding, self.padding)]
        return jax.lax.conv_general_dilated(x, self.kernel, (1, 1), pad)

@jax.jit
def apply(conv: Conv, x):
    return conv.forward(x)

apply(Conv(jnp.ones((1, 1, 3, 3)), 1), jnp.ones((1, 1, 4, 4)))
""",
    # equinox's filter transforms trace array leaves only: a filter spec of bools is static.
    "a-filter-spec-given-to-an-equinox-filter-jit-is-static": """
import equinox as eqx
import jax
import jax.numpy as jnp

@eqx.filter_jit
def split_step(model, filter_spec=None):
    diff, static = eqx.partition(model, filter_spec)
    return jax.tree_util.tree_map(lambda x: x * 2, diff)

split_step({"w": jnp.ones(2), "b": jnp.zeros(2)}, {"w": True, "b": False})
""",
    # `lax.conv`'s strides size its output: a Python tuple jit traces fails (jax#1453).
    "lax-conv-needs-its-strides-as-python-values": """
import jax
import jax.numpy as jnp
from jax import lax

A = jnp.ones((1, 1, 4, 4))
K = jnp.ones((1, 1, 3, 3))
conv = lambda A, K, stride: lax.conv(A, K, stride, "SAME")  # JIT404
jax.jit(conv)(A, K, (1, 1))
""",
    "lax-reduce-window-needs-its-window-as-python-values": """
import jax
import jax.numpy as jnp
from jax import lax

@jax.jit
def pool(x, size):
    return lax.reduce_window(x, 0.0, lax.add, size, (1, 1), "VALID")  # JIT404

pool(jnp.ones((4, 4)), (2, 2))
""",
    "a-trace-time-guard-is-meant-for-the-trace": """
import jax
import jax.numpy as jnp

class Step:
    def __init__(self):
        self.traced = False

    def run(self, x):
        assert not self.traced
        self.traced = True
        return x * 2

step = Step()
jitted = jax.jit(step.run)
jitted(jnp.ones(2))
jitted(jnp.ones(2))
""",
    "a-python-value-unpacked-from-a-helpers-tuple-stays-a-python-value": """
import jax
import jax.numpy as jnp

def prefill(x):
    batch, size = x.shape[0], 4
    return jnp.zeros((batch, size)), size

@jax.jit
def decode(x):
    logits, size = prefill(x)
    return jnp.arange(size + 2) * logits.sum()

decode(jnp.ones(2))
""",
    "a-tracer-unpacked-from-a-helpers-tuple-stays-a-tracer": """
import jax
import jax.numpy as jnp

def prefill(x):
    size = x.sum().astype(int)
    return jnp.zeros(3), size

@jax.jit
def decode(x):
    logits, size = prefill(x)
    return jnp.arange(size + 2) * logits.sum()  # JIT404

decode(jnp.ones(2))
""",
    "a-dict-returned-by-an-annotated-helper-has-a-python-truth-value": """
import jax
import jax.numpy as jnp

def split(kwargs: dict) -> tuple[dict, dict]:
    used = {k: v for k, v in kwargs.items() if k == "x"}
    rest = {k: v for k, v in kwargs.items() if k != "x"}
    return used, rest

@jax.jit
def f(**kwargs):
    used, rest = split(kwargs)
    if rest:
        raise TypeError("unexpected arguments")
    return used["x"] * 2

f(x=jnp.ones(3))
""",
    "safe-zip-pairs-elements-as-zip-does": """
import jax
import jax.numpy as jnp
from jax._src import util

zip = util.safe_zip
LEVELS = (1, 2)

@jax.jit
def f(xs):
    out = 0.0
    for level, x in zip(LEVELS, xs):
        if level > 1:
            out = out + x
    return out

f([jnp.ones(()), jnp.ones(())])
""",
    "function-redefined-after-jit": """
import jax
import jax.numpy as jnp

def loss(x):
    return x.sum()

step = jax.jit(loss)
step(jnp.ones(3))

def loss(x):
    if x.sum() > 0:
        return x
    return -x
""",
    "function-redefined-before-jit": """
import jax
import jax.numpy as jnp

def loss(x):
    return x.sum()

def loss(x):
    if x.sum() > 0:  # JIT101
        return x
    return -x

step = jax.jit(loss)
step(jnp.ones(3))
""",
    "partial-rebinding-makes-argument-static": """
from functools import partial
import jax
import jax.numpy as jnp

def step(x, n):
    for _ in range(n):
        x = x * 2
    return x

step = partial(step, n=3)
fast = jax.jit(step)
fast(jnp.ones(3))
""",
    "partial-of-traced-value-stays-traced": """
from functools import partial
import jax
import jax.numpy as jnp

def scale(x, n):
    for _ in range(n):  # JIT104
        x = x * 2
    return x

@jax.jit
def outer(x, n):
    return jax.vmap(partial(scale, n=n))(x)

outer(jnp.ones((2, 3)), 2)
""",
    "isinstance-narrows-a-conditional-expression": """
import jax
import jax.numpy as jnp

@jax.jit
def f(count):
    steps, count = jax.tree.map(lambda x: float(x) if isinstance(x, int) else x, (10, count))
    return jnp.minimum(count, steps)

f(jnp.int32(3))
""",
    "comparison-with-a-tuple-is-python": """
import jax
import jax.numpy as jnp

def step(carry, xs):
    value, extra = xs
    assert extra == ()
    if carry.shape == (3,) and extra != [1]:
        carry = carry + value
    return carry, None

jax.lax.scan(step, jnp.zeros(3), (jnp.ones((2, 3)), ()))
""",
    "tree-map-of-a-predicate-is-structure": """
import jax
import jax.numpy as jnp

def _is_none(x):
    return x is None

@jax.jit
def f(tree):
    missing = jax.tree_util.tree_map(_is_none, tree, is_leaf=_is_none)
    if missing["b"]:
        return tree["a"]
    return tree["a"] * 2

f({"a": jnp.ones(3), "b": None})
""",
    "numpy-array-rebound-to-jax": """
import jax.numpy as jnp
import numpy as np

def build():
    x = np.zeros(3)
    x[0] = 1.0
    x = jnp.asarray(x)
    x[1] = 2.0  # JIT501
    return x

build()
""",
    "jax-array-rebound-to-numpy": """
import jax.numpy as jnp
import numpy as np

def build():
    x = jnp.zeros(3)
    x = np.array(x)
    x[0] = 1.0
    return x

build()
""",
    "method-of-jax-array-is-jax-array": """
import jax.numpy as jnp

def spread():
    x = jnp.ones((3, 2))
    s = x.std(0)
    s[0] = 1.0  # JIT501
    return s

spread()
""",
    "name-rebound-to-mask": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    sel = jnp.arange(x.shape[0])
    y = x[sel]
    sel = y > 0
    return y[sel]  # JIT403

f(jnp.ones(3))
""",
    # A module function redefined later: a function called before the redefinition reads
    # the first definition (the second one, jitted with `n` static, runs).
    "a-function-called-before-a-redefinition-reads-the-first-one": """
import jax

def g(x, n):
    i = 0
    while i < n:  # JIT102
        i += 1
    return x + i

def run():
    return jax.jit(g)(10, 20)

run()

def g(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i

jax.jit(g, static_argnames=["n"])(10, 20)
""",
    # The same, and the trace started in a lambda kept in a list and called from a loop.
    "a-lambda-kept-in-a-list-traces-what-it-jits": """
import jax
import jax.numpy as jnp

def f(x):
    if x > 0:  # JIT101
        return x
    return 2 * x

checks = [lambda: jax.jit(f)(jnp.array(10))]
for check in checks:
    check()

def f(x):
    if x > 0:
        return x
    return 2 * x

jax.jit(f, static_argnums=0)(10)
""",
}

# Types, not spellings: namespaces in variables, masks by what makes them, containers.
TYPES = {
    # `o in arr` is `(arr == o).any()`: an array, and a tracer under jit, whose truth value
    # raises; `key in params` of a pytree dict stays a Python value.
    "membership-in-a-traced-array-annotated-as-one-is-traced": """
import jax
import jax.numpy as jnp

@jax.jit
def f(xs: jax.Array, params: dict):
    if "scale" in params:
        xs = xs * params["scale"]
    if 0.0 not in xs:  # JIT101
        return xs
    return xs + 1

f(jnp.zeros(2), {"scale": 2.0})
""",
    "membership-in-a-constant-array-under-jit-is-traced": """
import jax
import jax.numpy as jnp

@jax.jit
def f(o):
    grid = jnp.arange(3)
    if 1 in grid:  # JIT101
        return o
    return o

f(1.0)
""",
    "membership-in-an-array-field-of-a-traced-module-is-traced": """
import equinox as eqx
import jax
import jax.numpy as jnp

class Molecule(eqx.Module):
    omegas: jax.Array

    def select(self, omegas):
        for o in omegas:
            if o not in self.omegas:  # JIT101
                raise ValueError(o)
        return self.omegas

@eqx.filter_jit
def energy(molecule):
    return molecule.select([0.0])

energy(Molecule(jnp.array([0.0])))
""",
    "a-traced-shape-given-to-numpy-is-a-traced-shape": """
import jax
import numpy as np

@jax.jit
def f(a, b):
    return b * np.ones(shape=(a,))  # JIT404

f(3, 2.0)
""",
    "jnp-all-along-an-axis-is-a-boolean-mask": """
import jax
import jax.numpy as jnp

MOVES = jnp.array([[-1, 0], [1, 0], [0, -1], [0, 1]])

@jax.jit
def valid_moves(position, size):
    moved = position + MOVES
    inside = jnp.all((moved >= 0) & (moved < size), axis=-1)
    return jnp.arange(len(MOVES))[inside]  # JIT403

valid_moves(jnp.array([0, 0]), 3)
""",
    "a-mask-keeps-its-kind-through-concatenate-ravel-and-slicing": """
import jax
import jax.numpy as jnp

@jax.jit
def odd_ones(x):
    odds = jnp.concatenate(
        [jnp.zeros((2, 1), dtype=bool), jnp.ones((2, 1), dtype=bool)], axis=1
    ).ravel()[:-1]
    return x[odds]  # JIT403

odd_ones(jnp.arange(3.0))
""",
    "integer-indices-through-concatenate-are-no-mask": """
import jax
import jax.numpy as jnp

@jax.jit
def pick(x, i, j):
    idx = jnp.concatenate([i, j]).ravel()
    return x[idx]

pick(jnp.arange(4.0), jnp.array([0]), jnp.array([2]))
""",
    "a-parameter-with-items-is-a-dict-of-arrays-item-assignment-is-fine": """
import jax
import jax.numpy as jnp

@jax.jit
def scale(batch):
    batch = batch.copy()
    for key, value in batch.items():
        batch[key] = value * 2
    return batch

scale({"a": jnp.ones(2), "b": jnp.zeros(2)})
""",
    "a-parameter-without-container-methods-stays-an-array": """
import jax
import jax.numpy as jnp

@jax.jit
def bump(x):
    x = x.copy()
    x[0] = 1.0  # JIT501
    return x

bump(jnp.zeros(2))
""",
    "jnp-reshape-of-a-numpy-array-is-numpy-indexed-by-a-tracer": """
import numpy as np
import jax
import jax.numpy as jnp

@jax.jit
def f(i):
    table = jnp.reshape(np.arange(10.0), (2, 5))
    return table[:, i]  # JIT402

f(1)
""",
    "jnp-transpose-of-a-numpy-array-is-a-jax-array": """
import numpy as np
import jax
import jax.numpy as jnp

@jax.jit
def f(i):
    table = jnp.transpose(np.arange(10.0).reshape(2, 5))
    return table[:, i]

f(1)
""",
    "a-namespace-parameter-left-at-its-numpy-default-is-numpy": """
import jax
import jax.numpy as jnp
import numpy as np

def to_ndc(origins, xnp=np):
    ox, oy, oz = xnp.moveaxis(origins, -1, 0)
    return xnp.stack([ox / oz, oy / oz, -xnp.ones_like(oz)], axis=-1)  # JIT402

@jax.jit
def cast(origins):
    return to_ndc(origins)

cast(jnp.ones((4, 3)))
""",
    "a-namespace-parameter-given-jnp-is-jnp": """
import jax
import jax.numpy as jnp
import numpy as np

def to_ndc(origins, xnp=np):
    ox, oy, oz = xnp.moveaxis(origins, -1, 0)
    return xnp.stack([ox / oz, oy / oz, -xnp.ones_like(oz)], axis=-1)

@jax.jit
def cast(origins):
    return to_ndc(origins, xnp=jnp)

cast(jnp.ones((4, 3)))
""",
    "mask-returned-by-a-helper-indexes-a-traced-array": """
import jax
import jax.numpy as jnp

def make_mask(n, lengths):
    return jnp.arange(n)[None, :] < lengths[:, None]

@jax.jit
def masked_mean(x, lengths):
    mask = make_mask(x.shape[1], lengths)
    return x[mask].mean()  # JIT403

masked_mean(jnp.ones((2, 4)), jnp.array([2, 3]))
""",
    "numpy-table-returned-by-a-helper-indexed-by-a-tracer": """
import jax
import jax.numpy as jnp
import numpy as np

def table():
    return np.arange(4.0)

@jax.jit
def pick(i):
    t = table()
    return t[i]  # JIT402

pick(jnp.int32(1))
""",
    "mask-returned-by-a-helper-inside-where-is-fine": """
import jax
import jax.numpy as jnp

def make_mask(n, lengths):
    return jnp.arange(n)[None, :] < lengths[:, None]

@jax.jit
def masked_sum(x, lengths):
    mask = make_mask(x.shape[1], lengths)
    return jnp.where(mask, x, 0).sum()

masked_sum(jnp.ones((2, 4)), jnp.array([2, 3]))
""",
    "numpy-array-handed-to-a-function-whose-loop-body-indexes-it": """
import numpy as np
from jax import lax

def total(table):
    def body(i, acc):
        return acc + table[i]  # JIT402
    return lax.fori_loop(0, table.shape[0], body, 0.0)

total(np.ones(3))
""",
    "list-handed-to-a-function-whose-loop-body-indexes-it": """
from jax import lax

def total(table):
    def body(i, acc):
        return acc + table[i]  # JIT401
    return lax.fori_loop(0, len(table), body, 0.0)

total([1.0, 2.0, 3.0])
""",
    "jax-array-handed-to-a-function-whose-loop-body-indexes-it": """
import jax.numpy as jnp
from jax import lax

def total(table):
    def body(i, acc):
        return acc + table[i]
    return lax.fori_loop(0, table.shape[0], body, 0.0)

total(jnp.ones(3))
""",
    "numpy-array-handed-to-a-helper-of-traced-code": """
import jax
import jax.numpy as jnp
import numpy as np

def pick(table, i):
    return table[i]  # JIT402

@jax.jit
def f(i):
    return pick(np.arange(3.0), i)

f(jnp.int32(1))
""",
    "numpy-namespace-in-a-variable": """
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def f(x):
    xp = np
    return xp.sqrt(x)  # JIT402

f(jnp.ones(3))
""",
    "array-api-namespace-of-a-tracer": """
import jax
import jax.numpy as jnp

def normalize(x):
    xp = x.__array_namespace__()
    n = xp.sqrt(xp.sum(x * x))
    if n > 1:  # JIT101
        x = x / n
    return x

jax.jit(normalize)(jnp.ones(3))
""",
    "mask-from-any": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    keep = x.any(axis=1)
    return x[keep]  # JIT403

f(jnp.ones((3, 2)))
""",
    "mask-from-bool-literal-array": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    keep = jnp.array([True, False, True])
    return x[keep]  # JIT403

f(jnp.ones(3))
""",
    "integer-indices-are-no-mask": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    order = jnp.argsort(x)
    top = (order > 0).astype(jnp.int32)
    return x[order], x[top]

f(jnp.ones(3))
""",
    "list-indexed-by-tracer": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x, i):
    scales = [1.0, 2.0, 3.0]
    return x * scales[i]  # JIT401

f(jnp.ones(3), 1)
""",
    "numpy-table-indexed-by-tracer": """
import jax
import jax.numpy as jnp
import numpy as np

TABLE = np.arange(4.0)

@jax.jit
def f(x, i):
    return x + TABLE[i]  # JIT402

f(jnp.ones(3), 1)
""",
    "jax-table-indexed-by-tracer": """
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def f(x, i):
    table = jnp.asarray(np.arange(4.0))
    return x + table[i]

f(jnp.ones(3), 1)
""",
    "dict-annotated-param-holds-tracers": """
import jax
import jax.numpy as jnp

@jax.jit
def f(params: dict, x):
    if params and len(params) == 1:
        x = x * 2
    if params["scale"] > 1:  # JIT101
        x = x * params["scale"]
    return x

f({"scale": 2.0}, jnp.ones(3))
""",
    "sequence-annotated-param-holds-tracers": """
from typing import Sequence
import jax
import jax.numpy as jnp

@jax.jit
def f(x, sizes: Sequence[int]):
    if not sizes:
        return x
    for _ in range(sizes[0]):  # JIT104
        x = x * 2
    return x

f(jnp.ones(3), [2, 3])
""",
    # haiku#235: `jnp.save` is NumPy's own `save` (`jnp.save is np.save`), so a traced value
    # written with it is converted by NumPy and fails like `np.save`.
    "jnp-save-is-numpys-save": """
import io
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    buffer = io.BytesIO()
    jnp.save(buffer, x * 2)  # JIT402
    return x

f(jnp.ones(3))
""",
}

# Evidence that a value is concrete even in traced code.
CONCRETE = {
    "isinstance-numpy-narrows": """
import jax
import jax.numpy as jnp
import numpy as np

def select(pred, a, b):
    if isinstance(pred, (np.ndarray, np.generic)) and pred.shape == ():
        pred = pred.item()
    if pred is True:
        return a
    return jnp.where(pred, a, b)

jax.jit(select)(jnp.ones(()) > 0, 1.0, 2.0)
""",
    "optional-int-option-is-no-array": """
import jax
import jax.numpy as jnp

def norm(x, axis: int | None = None):
    return jnp.sum(x * x, axis=axis)

jax.jit(norm)(jnp.ones((2, 3)))
""",
}

# Hashability of static arguments, from what reaches them.
CONCRETE_ARGS = {
    "a-guard-inside-an-and-chain-makes-the-value-concrete": """
import jax
import jax.numpy as jnp
import numpy as np

def not_jax_tracer(x):
    return not isinstance(x, jax.core.Tracer)

def log_prob(rate, value, sparse=True):
    if sparse and not_jax_tracer(value) and jnp.size(value) > 1:
        shape = jax.lax.broadcast_shapes(jnp.shape(rate), jnp.shape(value))
        nonzero = np.broadcast_to(jax.device_get(value) > 0, shape)
        return jnp.where(nonzero, rate, 0.0)
    return rate * value

jax.jit(log_prob)(jnp.ones(3), jnp.ones(3))
log_prob(jnp.ones(3), jnp.ones(3))
""",
    "a-concretization-error-caught-around-the-test-is-handled": """
import jax

def f(x, n):
    try:
        if n == 0:
            return x
    except jax.errors.ConcretizationTypeError:
        pass  # n might be a tracer, which the loop below handles
    return jax.lax.fori_loop(0, n, lambda i, v: v + 1.0, x)

jax.jit(f)(1.0, 3)
""",
    "a-different-error-caught-does-not-handle-it": """
import jax

def f(x, n):
    try:
        if n == 0:  # JIT101
            return x
    except KeyError:
        pass
    return x

jax.jit(f)(1.0, 3)
""",
    "equinox-partition-refuses-a-traced-filter-spec": """
import jax
import equinox as eqx

@jax.jit
def partition(params, params_mask):
    return eqx.partition(params, filter_spec=params_mask)  # JIT401

partition(((1.0, 2.0), 3.0), ((True, False), False))
""",
    "equinox-partition-takes-a-closed-over-filter-spec": """
import jax
import equinox as eqx

MASK = ((True, False), False)

@jax.jit
def partition(params):
    return eqx.partition(params, filter_spec=MASK)

partition(((1.0, 2.0), 3.0))
""",
}

HASHABLE = {
    # A filtered jit keeps a parameter annotated `int` static: a caller under another
    # filtered jit, reached through `jax.grad`, hands it the Python int it was given
    # (DMPE's simulate_ahead in its look-ahead loss).
    "an-int-parameter-of-a-filtered-jit-called-from-another-stays-static": """
import equinox as eqx
import jax
import jax.numpy as jnp

@eqx.filter_jit
def ahead(n_steps: int, obs):
    return jnp.zeros([n_steps, obs.shape[0]]).at[0].set(obs)

@eqx.filter_jit
def loss(actions, n_steps):
    return ahead(n_steps=n_steps, obs=actions).sum()

def optimize(grad_loss, actions, n_steps):
    for _ in range(3):
        actions = actions - 0.1 * grad_loss(actions, n_steps)
    return actions

optimize(jax.grad(loss), jnp.ones(2), 3)
""",
    # A tracer handed to a static parameter raises at the call (it has no hash), so the
    # body never sees it: `jnp.zeros(n)` there is not a traced shape (trajax's cem,
    # DiffeRT2d's parameters_count).
    "a-static-parameter-given-a-tracer-raises-at-the-call-not-in-the-body": """
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnums=(1,))
def pad(x, n):
    return jnp.concatenate([x, jnp.zeros(n)])

@jax.jit
def outer(x, n):
    return pad(x, n)  # JIT302

outer(jnp.ones(2), 3)
""",
    # flash-nanoGPT's generate, jitted bound: JAX counts `static_argnums` after `self`, and
    # maps them to names, so `max_new_tokens=10` by keyword is the static argument.
    "static-argnums-of-a-bound-method-count-after-self": """
import jax
import jax.numpy as jnp

class GPT:
    def generate(self, key, scale, context, max_new_tokens):
        for i in range(max_new_tokens):
            noise = jax.random.normal(jax.random.fold_in(key, i), context.shape)
            context = context + scale * noise
        return context

model = GPT()
jax.jit(model.generate, static_argnums=(3,))(
    jax.random.key(0), 1.0, context=jnp.zeros(2), max_new_tokens=3
)
""",
    "static-argnums-of-a-bound-method-name-the-parameter-after-self": """
import jax
import jax.numpy as jnp

class GPT:
    def generate(self, key, scale, context, max_new_tokens):
        return context * scale

model = GPT()
jax.jit(model.generate, static_argnums=(2,))(jax.random.key(0), 1.0, jnp.zeros(2), 3)  # JIT302
""",
    "a-pytree-classs-aux-data-and-what-init-derives-from-it-stay-static": """
import jax
import jax.numpy as jnp

@jax.tree_util.register_pytree_node_class
class SqPNorm:
    def __init__(self, p):
        self.p = p
        self.q = 1.0 / (1.0 - (1.0 / p)) if p > 1.0 else jnp.inf

    def h_legendre(self, z):
        return 0.5 * jnp.linalg.norm(z, self.q) ** 2

    def tree_flatten(self):
        return (), (self.p,)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*aux_data)

jax.jit(lambda cost, z: cost.h_legendre(z))(SqPNorm(1.5), jnp.ones(2))
""",
    # michael-diggin's jax-transformer: a base class flattens into `self.params()` and
    # `self.aux_data()`, which each module overrides; what a module's own `aux_data` returns
    # is static under jit (a Python rate to branch on, a head count to reshape by).
    "an-inherited-tree-flatten-keeps-what-the-subclasss-aux-method-returns-static": """
from functools import partial
import jax
import jax.numpy as jnp

@jax.tree_util.register_pytree_node_class
class Base:
    def params(self):
        return []

    def aux_data(self):
        return None

    def tree_flatten(self):
        return self.params(), self.aux_data()

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children, aux_data)

@jax.tree_util.register_pytree_node_class
class Dropout(Base):
    def __init__(self, w, rate):
        self.w = w
        self.rate = rate

    def params(self):
        return [self.w]

    def aux_data(self):
        return self.rate

    @partial(jax.jit, static_argnames=["train"])
    def __call__(self, x, train=False):
        if self.rate == 0.0 or not train:
            return x * self.w
        return x.reshape(self.rate, -1) * self.w

Dropout(jnp.ones(()), 2)(jnp.ones(4), train=True)
""",
    # A tuple argument of a jitted function is a pytree: what unpacking it gives are its
    # leaves, tracers, and a static position refuses them (covid19 network simulations).
    "a-part-of-a-traced-tuple-given-to-a-static-position": """
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnums=(1,))
def develop(state, probabilities):
    return state * 2

@jax.jit
def step(args):
    state, probabilities = args
    return develop(state, probabilities)  # JIT302

step((jnp.ones(2), jnp.ones(2)))
""",
    "a-static-self-whose-own-hash-hashes-an-array-field": """
from functools import partial
import jax
import jax.numpy as jnp

class Scaler:
    def __init__(self, x, mul):
        self.x = x
        self.mul = mul

    @partial(jax.jit, static_argnums=0)
    def calc(self, y):
        return self.x * y if self.mul else y

    def __hash__(self):
        return hash((self.x, self.mul))

    def __eq__(self, other):
        return isinstance(other, Scaler) and (self.x, self.mul) == (other.x, other.mul)

c = Scaler(jnp.array([1.0, 2.0]), True)
c.calc(3.0)  # JIT302
""",
    "a-static-self-whose-own-hash-hashes-a-tuple-field": """
from functools import partial
import jax
import jax.numpy as jnp

class Scaler:
    def __init__(self, x, mul):
        self.x = x
        self.mul = mul

    @partial(jax.jit, static_argnums=0)
    def calc(self, y):
        return jnp.asarray(self.x) * y if self.mul else y

    def __hash__(self):
        return hash((self.x, self.mul))

    def __eq__(self, other):
        return isinstance(other, Scaler) and (self.x, self.mul) == (other.x, other.mul)

c = Scaler((1.0, 2.0), True)
c.calc(3.0)
""",
    "hash-of-a-tracer-raises-under-jit": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    return x * (hash(x) % 2)  # JIT401

f(jnp.ones(2))
""",
    "hash-of-a-tracer-raises-under-grad-too": """
import jax
import jax.numpy as jnp

def loss(x):
    hash(x)  # JIT401
    return x.sum()

jax.grad(loss)(jnp.ones(2))
""",
    "jit-of-hash-traces-its-argument": """
import jax

jax.jit(hash)(1)  # JIT401
""",
    "hash-of-a-static-value-under-jit-runs": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    return x * (hash(x.shape) % 2)

f(jnp.ones(2))
""",
    "jit-of-an-equinox-layer-hashes-its-weights": """
import jax
import jax.numpy as jnp
import equinox as eqx

layer = eqx.nn.Linear(2, 2, key=jax.random.key(0))
fast = jax.jit(layer)
fast(jnp.ones(2))  # JIT302
""",
    "an-unhashable-static-argument-raises-at-the-first-line-of-a-multi-line-call": """
import functools
import jax
import jax.numpy as jnp

@functools.partial(jax.jit, static_argnames="n")
def f(a, n):
    return a * n

f(  # JIT302
    jnp.arange(3.0),
    n=jnp.array(2),
)
""",
    "a-list-a-caller-gives-reaches-a-static-argument-through-a-wrapper": """
import functools
import jax
import jax.numpy as jnp

@functools.partial(jax.jit, static_argnums=1)
def _resize(image, shape):
    return jnp.broadcast_to(image, shape)

def resize(image, shape):
    return _resize(image, shape)  # JIT302

resize(jnp.ones(3), [2, 3])
""",
    # The same through a method of a module-level instance (skrl's GaussianNoise.sample).
    "a-method-passing-its-parameter-to-a-static-position-given-a-list": """
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnames=("shape",))
def _sample(mean, key, shape):
    return mean + jax.random.normal(key, shape)

class Noise:
    def __init__(self, mean):
        self.mean = mean

    def sample(self, size):
        return _sample(self.mean, jax.random.key(0), size)  # JIT302

noise = Noise(0.0)
noise.sample([3, 2])
""",
    "a-tuple-a-caller-gives-reaches-a-static-argument-through-a-wrapper": """
import functools
import jax
import jax.numpy as jnp

@functools.partial(jax.jit, static_argnums=1)
def _resize(image, shape):
    return jnp.broadcast_to(image, shape)

def resize(image, shape):
    return _resize(image, shape)

resize(jnp.ones(3), (2, 3))
""",
    "jit-of-a-module-of-this-file-with-an-array-field": """
import jax
import jax.numpy as jnp
import equinox as eqx

class Scale(eqx.Module):
    w: jax.Array

    def __call__(self, x):
        return self.w * x

jax.jit(Scale(jnp.ones(2)))(jnp.ones(2))  # JIT302
""",
    "filter-jit-of-an-equinox-layer-and-jit-of-its-vmap-run": """
import jax
import jax.numpy as jnp
import equinox as eqx

layer = eqx.nn.Linear(2, 2, key=jax.random.key(0))
eqx.filter_jit(layer)(jnp.ones(2))
jax.jit(jax.vmap(layer))(jnp.ones((3, 2)))
""",
    "jit-of-a-module-holding-only-python-values-runs": """
import jax
import jax.numpy as jnp
import equinox as eqx

class Times(eqx.Module):
    n: int

    def __call__(self, x):
        return self.n * x

jax.jit(Times(2))(jnp.ones(2))
""",
    "jit-of-a-jax-function-traces-the-parameter-jax-holds-static": """
import jax
import jax.numpy as jnp

norm = jax.jit(jnp.linalg.norm)
norm(jnp.ones(2), ord=1)  # JIT302
""",
    "a-name-rebound-later-holds-the-jit-of-a-jax-function-where-it-is-called": """
import jax
import jax.numpy as jnp

norm = jax.jit(jnp.linalg.norm)
norm(jnp.ones(2), ord=1)  # JIT302
norm = jax.jit(lambda x: jnp.linalg.norm(x, ord=1))
""",
    "a-name-rebound-to-the-jit-of-a-jax-function-after-it-is-called": """
import jax
import jax.numpy as jnp

norm = jax.jit(lambda x: jnp.linalg.norm(x, ord=1))
norm(jnp.ones(2))
norm = jax.jit(jnp.linalg.norm)
""",
    "jit-of-a-jax-function-with-that-parameter-static-runs": """
import jax
import jax.numpy as jnp

norm = jax.jit(jnp.linalg.norm, static_argnames="ord")
norm(jnp.ones(2), ord=1)
""",
    "a-traced-value-given-to-a-parameter-jax-holds-static": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x, decimals):
    return jnp.round(x, decimals)  # JIT302

f(jnp.ones(2), 1)
""",
    "a-python-value-given-to-a-parameter-jax-holds-static": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    return jnp.round(x, 1) + jnp.linalg.norm(x, ord=2)

f(jnp.ones(2))
""",
    "a-dict-a-helper-returns-in-a-tuple-is-unhashable": """
import jax
import jax.numpy as jnp

def setup(n):
    params = {"size": n}
    state = jnp.zeros(n)
    return params, state

def step(state, params):
    return state + params["size"]

step_jit = jax.jit(step, static_argnums=1)
params, state = setup(3)
step_jit(state, params)  # JIT302
""",
    "a-tuple-a-helper-returns-in-a-tuple-is-hashable": """
import jax
import jax.numpy as jnp

def setup(n):
    params = {"size": n}
    params = tuple(params.items())
    return params, jnp.zeros(n)

def step(state, params):
    return state + dict(params)["size"]

step_jit = jax.jit(step, static_argnums=1)
params, state = setup(3)
step_jit(state, params)
""",
    "register-dataclass-meta-fields-holding-arrays-meet-in-the-cache": """
import jax
import jax.numpy as jnp
from dataclasses import dataclass

@dataclass
class Foo:
    a: jax.Array

jax.tree_util.register_dataclass(Foo, data_fields=[], meta_fields=["a"])

func = jax.jit(lambda x: x)
foo1 = Foo(jnp.arange(4))
func(foo1)
foo2 = Foo(jnp.arange(4))
func(foo2)  # JIT302
""",
    "make-jaxpr-of-a-jit-traces-its-static-argument": """
import jax

def my_func(x, y):
    return x + y

jit_func = jax.jit(my_func, static_argnames={"y"})
jax.make_jaxpr(jit_func)(1, 2)  # JIT302
""",
    "vmap-of-a-jit-traces-its-static-argument": """
import jax
import jax.numpy as jnp

def my_func(x, y):
    return x + y

jit_func = jax.jit(my_func, static_argnums=1)
jax.vmap(jit_func)(jnp.ones(3), jnp.ones(3))  # JIT302
""",
    "a-vmap-of-a-jit-bound-at-module-level-traces-its-static-argument": """
import jax
import jax.numpy as jnp

def scale(x, n):
    return x * n

jit_scale = jax.jit(scale, static_argnums=1)
batched = jax.vmap(jit_scale)

def run(xs, ns):
    return batched(xs, ns)  # JIT302

run(jnp.ones(3), jnp.ones(3))
""",
    "vmap-with-in-axes-none-keeps-the-static-argument": """
import jax
import jax.numpy as jnp

def my_func(x, y):
    return x + y

jit_func = jax.jit(my_func, static_argnums=1)
jax.vmap(jit_func, in_axes=(0, None))(jnp.ones(3), 2)
jax.make_jaxpr(jit_func, static_argnums=1)(1, 2)
jax.jit(jit_func, static_argnums=1)(1.0, 2)
jax.eval_shape(jit_func, 1, 2)
""",
    "an-array-given-as-static-to-a-jitted-function-a-factory-returns": """
from functools import partial

import jax
import jax.numpy as jnp

def make_runner(step):
    @partial(jax.jit, static_argnums=(0, 1))
    def run(x, n):
        return step(x) * n
    return run

run = make_runner(lambda x: x + 1)
run(jnp.ones(2), 3)  # JIT302
""",
    "static-half-of-an-equinox-module-with-a-list-field": """
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp

class Net(eqx.Module):
    layers: list

    def __init__(self):
        self.layers = [jnp.ones(2), jax.nn.relu]

@partial(jax.jit, static_argnums=1)
def f(params, static, x):
    return x

model = Net()
params, static = eqx.partition(model, eqx.is_array)
f(params, static, jnp.ones(2))  # JIT302
""",
    "static-half-of-an-equinox-module-with-a-tuple-field": """
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp

class Net(eqx.Module):
    layers: tuple

    def __init__(self):
        self.layers = (jnp.ones(2), jax.nn.relu)

@partial(jax.jit, static_argnums=1)
def f(params, static, x):
    return x

model = Net()
params, static = eqx.partition(model, eqx.is_array)
f(params, static, jnp.ones(2))
""",
    "plain-dataclass-instance-is-unhashable": """
import dataclasses
from functools import partial
import jax
import jax.numpy as jnp

@dataclasses.dataclass
class Config:
    scale: float

@partial(jax.jit, static_argnums=1)
def apply(x, config):
    return x * config.scale

config = Config(2.0)
apply(jnp.ones(3), config)  # JIT302
""",
    "frozen-dataclass-instance-is-hashable": """
import dataclasses
from functools import partial
import jax
import jax.numpy as jnp

@dataclasses.dataclass(frozen=True)
class Config:
    scale: float

@partial(jax.jit, static_argnums=1)
def apply(x, config):
    return x * config.scale

config = Config(2.0)
apply(jnp.ones(3), config)
apply(jnp.ones(3), config)
""",
    "eq-without-hash-is-unhashable": """
from functools import partial
import jax
import jax.numpy as jnp

class Opts:
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return isinstance(other, Opts) and other.n == self.n

@partial(jax.jit, static_argnames="opts")
def apply(x, opts):
    return x * opts.n

apply(jnp.ones(3), opts=Opts(2))  # JIT302
""",
    "array-bound-name-as-static": """
import jax
import jax.numpy as jnp

def f(x):
    return jnp.arange(-x, x)

f_jit = jax.jit(f, static_argnums=0)
n = jnp.add(4, 1)
f_jit(n)  # JIT302
""",
}

# Under grad alone: only the arguments in `argnums` are differentiated, and those refuse
# `float()` but accept `int()`, `bool()` and `if`.
GRAD = {
    "grad-inside-jit-keeps-the-callers-tracers": """
import jax

def loss(w, flag):
    if flag:  # JIT101
        return w * 2.0
    return w

@jax.jit
def step(w, flag):
    return jax.grad(loss)(w, flag)

step(1.0, True)
""",
    "scan-length-from-a-jit-argument": """
import jax

jax.jit(lambda n, x: jax.lax.scan(lambda c, z: (c, z), x, None, length=n))(3, 1.0)  # JIT404
""",
    "float-of-differentiated-argument": """
import jax

def f(x):
    return x if float(x) >= 0.0 else -x  # JIT401

jax.grad(f)(3.0)
""",
    "int-bool-if-work-under-grad": """
import jax

def f(x):
    n = int(x)
    if bool(x > 0) and x < 10:
        return x * n
    return -x

jax.grad(f)(3.0)
""",
    "argument-outside-argnums-stays-concrete": """
import jax

def loss(w, scale):
    return w * float(scale)

jax.grad(loss)(1.0, 2.0)
jax.value_and_grad(loss, 0)(1.0, 2.0)
""",
    "argnums-keyword-selects-the-traced-argument": """
import jax

def loss(scale, w):
    return w * float(w) * scale  # JIT401

jax.grad(loss, argnums=1)(2.0, 1.0)
""",
    "float-under-grad-inside-jit": """
import jax

def loss(w, scale):
    return w * float(scale)  # JIT401

jax.jit(jax.grad(loss))(1.0, 2.0)
""",
}

# Library transforms call the function with a known convention: what they pass is traced
# whatever the parameter's default; what they do not pass keeps its default.
PASSED = {
    # A jitted method its class calls as `self.post(x, noiseless)`: the call passes the
    # defaulted flag, so jit traces it, a Python bool too (gpax's get_mvn_posterior).
    "a-defaulted-flag-a-jitted-method-is-given-by-its-class-is-traced": """
from functools import partial
import jax
import jax.numpy as jnp

class GP:
    @partial(jax.jit, static_argnames="self")
    def post(self, x, noiseless: bool = False):
        return x * jnp.array(not noiseless, int)  # JIT103

    def predict(self, x, noiseless=False):
        return self.post(x, noiseless)

GP().predict(jnp.ones(2))
""",
    "an-object-built-in-the-trace-keeps-the-tracer-its-constructor-stores": """
import jax
import jax.numpy as jnp

class Scaler:
    def __init__(self, scale, offset):
        self.scale = scale
        self.offset = offset

    def apply(self, x):
        if self.offset > 0:
            x = x + self.offset
        if self.scale > 1:  # JIT101
            return x * self.scale
        return x

@jax.jit
def f(x, s):
    scaler = Scaler(s, 1.0)
    return scaler.apply(x)

f(jnp.ones(2), 2.0)
""",
    "a-name-jitted-on-one-branch-only-may-hold-the-plain-function": """
import os
import jax
import jax.numpy as jnp

USE_JIT = os.environ.get("JITLINT_CASE_NEVER_SET") == "1"

def _loop(x, n):
    return x * n

def run(x, n, jit=False):
    fun = _loop
    if jit:
        fun = jax.jit(fun, static_argnums=1)
    return fun(x, n)

@jax.jit
def outer(x, n):
    return run(x, n, jit=USE_JIT)

outer(jnp.ones(2), 3)
""",
    "a-method-jitted-through-its-object-runs-its-lax-cond-traced": """
import jax
import jax.numpy as jnp

class Buffer:
    def insert_internal(self, data, roll):
        return jax.lax.cond(roll, lambda: jnp.roll(data, roll), lambda: data)

buffer = Buffer()
insert_internal = jax.jit(buffer.insert_internal)
data = jnp.arange(4.0)
for i in range(3):
    data = insert_internal(data, i)
""",
    "a-global-mutable-array-reference-is-written-under-jit-by-design": """
import jax
import jax.numpy as jnp

counter = jax.new_ref(jnp.zeros(3))

@jax.jit
def bump(x):
    counter[1] += 1.0
    return x + 1

bump(jnp.ones(2))
assert float(counter[1]) == 1.0
""",
    "a-traced-dict-spread-leaves-unnamed-parameters-at-their-defaults": """
import jax
import jax.numpy as jnp

def sample(x, temperature=1.0, rescale=True, num_decodes=1):
    if num_decodes > 1:
        x = jnp.repeat(x, num_decodes)
    if rescale:
        x = x / temperature
    return x

@jax.jit
def predict(x, params):
    return sample(x, **params)

predict(jnp.ones(2), {"temperature": 0.5})
""",
    "a-not-is-tracer-conjunct-guards-the-comparison-after-it": """
import jax
import jax.numpy as jnp

def _is_tracer(x):
    return isinstance(x, jax.core.Tracer)

@jax.jit
def clip(x, limit):
    limit = jnp.minimum(limit, 10)
    if not _is_tracer(limit) and limit > x.shape[0]:
        limit = x.shape[0]
    return x * limit

clip(jnp.ones(2), 3)
""",
    "a-partial-of-pmap-with-only-placement-options-is-pmap": """
from functools import partial
import jax
import jax.numpy as jnp

my_pmap = partial(jax.pmap, axis_name="i")

@my_pmap
def f(x):
    if x > 0:  # JIT101
        return x
    return -x

f(jnp.ones(1))
""",
    "keywords-gathered-in-kwargs-keep-their-taint": """
import jax
import jax.numpy as jnp

def scale(p, **kw):
    if kw["wd"] > 0:  # JIT101
        p = p * 2
    return p

@jax.jit
def step(p, wd):
    return scale(p, wd=wd)

step(jnp.ones(2), 0.1)
""",
    "empty-kwargs-are-a-python-dict": """
import jax
import jax.numpy as jnp

def scale(p, **kw):
    if kw:
        p = p * kw["factor"]
    return p

@jax.jit
def step(p):
    return scale(p) + scale(p, factor=2.0)

step(jnp.ones(2))
""",
    "a-function-given-to-a-loop-wrapper-runs-in-its-traced-body": """
import jax
import jax.numpy as jnp

def while_loop(cond_fun, body_fun, init_val):
    def _cond(state):
        return cond_fun(state[1])

    def _body(state):
        return state[0] + 1, body_fun(state[1])

    return jax.lax.while_loop(_cond, _body, (0, init_val))[1]

def run(x):
    def cond_fun(s):
        if s.sum() < 10:  # JIT101
            return True
        return False

    return while_loop(cond_fun=cond_fun, body_fun=lambda s: s * 2, init_val=x)

run(jnp.ones(2))
""",
    "numpyro-mcmc-with-jit-model-args-traces-the-models-arguments": """
import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS

def model(y, window):
    scale = numpyro.sample("scale", dist.HalfNormal(1.0))
    head = y[:window]  # JIT404
    numpyro.sample("obs", dist.Normal(0.0, scale), obs=head)

kernel = NUTS(model)
mcmc = MCMC(kernel, num_warmup=2, num_samples=2, jit_model_args=True, progress_bar=False)
mcmc.run(jax.random.PRNGKey(0), jnp.ones(8), window=4)
""",
    "numpyro-mcmc-without-jit-model-args-hands-the-model-python-values": """
import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS

def model(y, window):
    scale = numpyro.sample("scale", dist.HalfNormal(1.0))
    head = y[:window]
    numpyro.sample("obs", dist.Normal(0.0, scale), obs=head)

kernel = NUTS(model)
mcmc = MCMC(kernel, num_warmup=2, num_samples=2, progress_bar=False)
mcmc.run(jax.random.PRNGKey(0), jnp.ones(8), window=4)
""",
    "a-nonlocal-recorded-once-at-the-first-trace-is-lazy-initialisation": """
import jax
import jax.numpy as jnp

def make():
    structure = None

    @jax.jit
    def f(x):
        nonlocal structure
        if structure is None:
            structure = jax.tree_util.tree_structure(x)
        return x * 2

    return f

make()(jnp.ones(2))
""",
    "checkpoint-called-at-once-under-jit-traces-an-annotated-flag": """
from typing import Optional

import jax
import jax.numpy as jnp

def bool_fn(x, flag: Optional[bool] = None):
    if flag:  # JIT101
        return x
    return x - 1

jax.jit(lambda x: jax.checkpoint(bool_fn)(x, flag=False))(jnp.ones(3))
""",
    "a-traced-dict-spread-into-a-call-traces-its-parameters": """
import jax
import jax.numpy as jnp

def density(x, mu, scale):
    if scale == 0:  # JIT101
        return x - mu
    return (x - mu) / scale

@jax.jit
def log_prob(x, params):
    return jnp.log(density(x, **params))

log_prob(1.0, {"mu": 0.0, "scale": 2.0})
""",
    "a-traced-tuple-spread-into-a-call-traces-its-parameters": """
import jax

def density(x, mu, scale):
    if scale == 0:  # JIT101
        return x - mu
    return (x - mu) / scale

@jax.jit
def log_prob(x, params):
    return density(x, *params)

log_prob(1.0, (0.0, 2.0))
""",
    "a-spread-leaves-the-explicit-arguments-alone": """
import jax

def density(x, mu, scale, flag):
    if flag:
        return x - mu
    return (x - mu) / scale

@jax.jit
def log_prob(x, params):
    return density(x, flag=False, **params)

log_prob(1.0, {"mu": 0.0, "scale": 2.0})
""",
    "a-flag-a-helper-is-given-as-a-literal-skips-its-branch": """
import jax
import jax.numpy as jnp

def validate(cutoff):
    if jnp.exp(-cutoff) > 0.5:
        print("cutoff too small")

def energy(x, cutoff, runtime_validate=True):
    if runtime_validate:
        validate(cutoff)
    return jnp.sum(x) * cutoff

@jax.jit
def U(x):
    return energy(x, 2.0, runtime_validate=False)

U(jnp.ones(3))
""",
    "a-flag-left-at-its-default-runs-its-branch": """
import jax
import jax.numpy as jnp

def validate(cutoff):
    if jnp.exp(-cutoff) > 0.5:  # JIT101
        print("cutoff too small")

def energy(x, cutoff, runtime_validate=True):
    if runtime_validate:
        validate(cutoff)
    return jnp.sum(x) * cutoff

@jax.jit
def U(x):
    return energy(x, 2.0)

U(jnp.ones(3))
""",
    "a-function-passed-by-name-to-a-helper-that-vmaps-it-is-traced": """
import jax
import jax.numpy as jnp

def image(seed):
    if seed > 2:  # JIT101
        return jnp.zeros(3)
    return jnp.ones(3)

def generate(n, imgfunc):
    return jax.vmap(imgfunc)(jnp.arange(n))

generate(4, image)
""",
    "a-function-passed-by-name-and-called-untraced-stays-untraced": """
import jax.numpy as jnp

def image(seed):
    if seed > 2:
        return jnp.zeros(3)
    return jnp.ones(3)

def generate(n, imgfunc):
    return [imgfunc(s) for s in range(n)]

generate(4, image)
""",
    "a-closure-returned-by-a-method-and-jitted-is-traced": """
import jax
import jax.numpy as jnp
from dataclasses import dataclass
from jax.scipy.special import erfc

def check(cutoff=1.0, beta=2.0, threshold=1e-2):
    if erfc(beta * cutoff) > threshold:  # JIT101
        print("cutoff too small")

def energy(x, beta, cutoff):
    check(cutoff, beta)
    return jnp.sum(x) * beta

@dataclass
class Nonbonded:
    beta: float
    cutoff: float

    def to_reference(self):
        def U(x):
            return energy(x, self.beta, self.cutoff)
        return U

U_ref = Nonbonded(1.0, 0.1).to_reference()
jax.jit(U_ref)(jnp.ones(3))
""",
    "checkpoint-called-at-once-outside-jit-traces-the-flag-too": """
from typing import Optional

import jax
import jax.numpy as jnp

def bool_fn(x, flag: Optional[bool] = None):
    if flag:  # JIT101
        return x
    return x - 1

(lambda x: jax.checkpoint(bool_fn)(x, flag=False))(jnp.ones(3))
""",
    "checkpoint-static-argnums-keeps-the-flag": """
import jax
import jax.numpy as jnp

def bool_fn(x, flag=None):
    if flag:
        return x
    return x - 1

jax.jit(lambda x: jax.checkpoint(bool_fn, static_argnums=(1,))(x, False))(jnp.ones(3))
""",
    "none-default-left-out-by-every-main-block-call-is-python": """
import jax
import jax.numpy as jnp

def pool(x, strides=None):
    strides = strides or (1,)
    return x * len(strides)

if __name__ == "__main__":
    f = jax.jit(pool)
    f(jnp.ones(3))
""",
    "none-default-passed-by-a-main-block-call-is-traced": """
import jax
import jax.numpy as jnp

def pool(x, strides=None):
    strides = strides or (1,)  # JIT103
    return x * len(strides)

if __name__ == "__main__":
    f = jax.jit(pool)
    f(jnp.ones(3))
    f(jnp.ones(3), jnp.ones(2))
""",
    "main-block-jit-called-by-a-function-too": """
import jax
import jax.numpy as jnp

def pool(x, strides=None):
    strides = strides or (1,)  # JIT103
    return x * len(strides)

def run():
    return f(jnp.ones(3), strides=jnp.ones(2))

if __name__ == "__main__":
    f = jax.jit(pool)
    run()
""",
    "none-default-left-out-by-a-module-level-call-at-once-is-python": """
import jax
import jax.numpy as jnp

def pool(x, strides=None):
    strides = strides or (1,)
    return x * len(strides)

jax.jit(pool)(jnp.ones(3))
""",
    "apply-along-axis-maps-its-function-with-vmap": """
import jax.numpy as jnp
import numpy as np

def clip_row(row):
    if row.sum() > 2:  # JIT101
        return row / row.sum()
    return row

jnp.apply_along_axis(clip_row, 1, np.ones((3, 4)))
""",
    "apply-along-axis-of-one-argument-where": """
import jax.numpy as jnp
import numpy as np

x = np.array([[0, 1], [1, 0]])
jnp.apply_along_axis(jnp.where, 1, x)  # JIT403
""",
    "apply-along-axis-of-sum-is-fine": """
import jax.numpy as jnp
import numpy as np

jnp.apply_along_axis(jnp.sum, 1, np.ones((3, 4)))
""",
    "vmap-of-unique-by-reference": """
import jax
import jax.numpy as jnp
import numpy as np

jax.vmap(jnp.unique)(np.array([[0, 1], [1, 1]]))  # JIT403
""",
    "vmap-of-three-argument-where-is-fine": """
import jax
import jax.numpy as jnp

x = jnp.arange(4.0).reshape(2, 2)
jax.vmap(jnp.where)(x > 1, x, jnp.zeros_like(x))
""",
    "lax-map-of-nonzero-by-reference": """
import jax
import jax.numpy as jnp

jax.lax.map(jnp.nonzero, jnp.eye(3))  # JIT403
""",
    "piecewise-functions-are-staged": """
import jax.numpy as jnp

def tail(v):
    if v.sum() > 0:  # JIT101
        return v
    return -v

x = jnp.arange(4.0)
jnp.piecewise(x, [x > 1], [tail, 0.0])
""",
    "odeint-passes-time-despite-default": """
import jax.numpy as jnp
from jax.experimental.ode import odeint

def dynamics(y, t=0.0, scale=2.0):
    if scale > 1.0 and t > 1.5:  # JIT101
        return -y
    return y

odeint(dynamics, jnp.ones(2), jnp.linspace(0.0, 2.0, 3), rtol=1e-6)
""",
    "fori-loop-passes-index-despite-default": """
import jax
import jax.numpy as jnp

def body(i=0, x=None):
    return x + jnp.zeros(3)[: i + 1].sum()  # JIT404

jax.lax.fori_loop(0, 3, body, jnp.zeros(()))
""",
    # A jitted function's calls are all seen: a keyword no call passes keeps its default.
    "jitted-call-leaves-keyword-default": """
import jax
import jax.numpy as jnp

def total(x, *, axis: jax.typing.ArrayLike | None = None):
    axis = tuple(range(1, x.ndim)) if axis is None else axis
    return jnp.sum(x, axis=axis)

def check():
    fast = jax.jit(total)
    return fast(jnp.ones((2, 3))), jax.jit(total)(jnp.ones((2, 3)))

check()
""",
    "jitted-call-passes-keyword": """
import jax
import jax.numpy as jnp

def total(x, *, axis: jax.typing.ArrayLike | None = None):
    axis = tuple(range(1, x.ndim)) if axis is None else axis
    return jnp.sum(x, axis=axis)  # JIT404

def check():
    fast = jax.jit(total)
    return fast(jnp.ones((2, 3)), axis=1)

check()
""",
    "jitted-name-escapes-so-keyword-may-be-passed": """
import jax
import jax.numpy as jnp

def total(x, *, axis: jax.typing.ArrayLike | None = None):
    axis = tuple(range(1, x.ndim)) if axis is None else axis
    return jnp.sum(x, axis=axis)  # JIT404

def call(fn):
    return fn(jnp.ones((2, 3)), axis=1)

def check():
    fast = jax.jit(total)
    fast(jnp.ones((2, 3)))
    return call(fast)

check()
""",
    # The same for a function a decorator jits inside the function that calls it.
    "decorated-jit-call-passes-defaulted-keyword": """
from functools import partial
import jax
import jax.numpy as jnp

def simulate(x):
    @partial(jax.jit, static_argnums=(1,))
    def evolve(x, n_steps, every=10):
        traj = jnp.cumsum(jnp.ones((n_steps, 2)) * x, axis=0)
        return traj[::every]  # JIT404

    return evolve(x, n_steps=100, every=10)

simulate(jnp.ones(2))
""",
    "decorated-jit-calls-leave-defaulted-keyword": """
from functools import partial
import jax
import jax.numpy as jnp

def simulate(x):
    @partial(jax.jit, static_argnums=(1,))
    def evolve(x, n_steps, every=10):
        traj = jnp.cumsum(jnp.ones((n_steps, 2)) * x, axis=0)
        return traj[::every]

    return evolve(x, 100), evolve(x, n_steps=50)

simulate(jnp.ones(2))
""",
}

# Functions reach transforms through factories and libraries: a closure a factory returns,
# a learning-rate schedule optax calls with the step count inside the jitted update.
REACHED = {
    # pzflow's spline inverse: Python's `all()` of a traced array calls bool() on each
    # element, so its result is as traced as the array (the `if` raises here).
    "all-of-a-traced-array-is-a-traced-truth-value": """
import jax
import jax.numpy as jnp

@jax.jit
def inverse(b, c):
    if all(b ** 2 - 4 * c >= 0):  # JIT101
        return jnp.sqrt(b ** 2 - 4 * c)
    return b

inverse(jnp.ones(2), jnp.zeros(2))
""",
    # interpax's cubic spline under eqx.filter_jit: the boundary conditions are a list of
    # strings and (order, value) records; an item compared with strings is a Python bool
    # (an array equals no string), and the list's items may be replaced in place.
    "items-of-a-list-compared-with-strings-stay-python-values-and-the-list-is-no-array": """
import equinox as eqx
import jax.numpy as jnp

@eqx.filter_jit
def cubic(f, bc):
    df = jnp.diff(f)
    if bc[0] in ["not-a-knot", "periodic"]:
        bc[0] = (1, df[0])
    if bc[1] in ["not-a-knot", "periodic"]:
        bc[1] = (1, df[0])
    return f * bc[0][1]

cubic(jnp.arange(3.0), ["not-a-knot", (2, jnp.zeros(()))])
""",
    # interpax's per-call version: the records come from a helper that fills a list with
    # (order, value) pairs; a record stored in it keeps the order a Python int.
    "a-list-of-records-with-python-parts-keeps-them-python-values": """
import jax
import jax.numpy as jnp

def validate(bc_type, shape):
    out = []
    for bc in bc_type:
        if bc == "clamped":
            out.append((1, jnp.zeros(shape)))
        else:
            out.append((2, jnp.asarray(bc)))
    return out

def cubic(f, bc_type):
    bc = validate(bc_type, f.shape[1:])
    df = jnp.diff(f, axis=0)
    bc[0] = (1, df[0])
    start, end = bc
    if end[0] == 2:
        return f * end[1]
    return f

def approx(f, bc_type=("clamped", 0.5)):
    def fun(f):
        return cubic(f, bc_type)
    return jax.jit(fun)(f)

approx(jnp.ones((3, 2)))
""",
    "an-abstract-method-called-on-self-runs-the-subclass-override": """
from abc import ABC, abstractmethod
from functools import partial
import jax
import jax.numpy as jnp

class MetaLearner(ABC):
    @abstractmethod
    def adapt(self, params, x):
        pass

    @partial(jax.jit, static_argnums=0)
    def step(self, params, x):
        return self.adapt(params, x)

class Clipped(MetaLearner):
    def adapt(self, params, x):
        if jnp.sum(x) > 0:  # JIT101
            return params * x
        return params

Clipped().step(1.0, jnp.ones(2))
""",
    "a-method-stub-raising-not-implemented-runs-the-subclass-override": """
import jax
import jax.numpy as jnp

class Strategy:
    def ask(self, key, mean):
        raise NotImplementedError

    def run(self, key, mean):
        return jax.jit(self.ask)(key, mean)

class Gaussian(Strategy):
    def ask(self, key, mean):
        return mean + jax.random.normal(key, (int(mean.sum()),))  # JIT401

Gaussian().run(jax.random.key(0), jnp.ones(2))
""",
    "jit-of-an-instance-built-in-place-traces-its-call": """
import jax
import jax.numpy as jnp

class Merge:
    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        size = jnp.prod(jnp.asarray(x.shape[: self.n]))
        return jnp.reshape(x, (size,) + x.shape[self.n :])  # JIT404

out = jax.jit(Merge(2))(jnp.ones((3, 4, 5)))
""",
    "a-method-a-base-class-defines-runs-for-self": """
import jax
import jax.numpy as jnp

class Base:
    def clip(self, x):
        if x.sum() > 0:  # JIT101
            return x
        return -x

class Model(Base):
    def forward(self, x):
        return self.clip(x)

@jax.jit
def run(x):
    return Model().forward(x)

run(jnp.ones(3))
""",
    "a-project-decorators-wrapper-runs-and-calls-the-function": """
import jax
import jax.numpy as jnp

def checked(fn):
    def wrapper(x):
        y = fn(x)
        if y.sum() > 0:  # JIT101
            return y
        return -y
    return wrapper

@checked
def double(x):
    return x * 2

jax.jit(double)(jnp.ones(3))
""",
    "getitem-of-a-project-class-runs-in-the-trace": """
import jax
import jax.numpy as jnp

class Table:
    def __init__(self, values):
        self.values = values

    def __getitem__(self, index):
        if index.sum() > 0:  # JIT101
            return self.values[index]
        return self.values

@jax.jit
def pick(values, index):
    return Table(values)[index]

pick(jnp.ones(3), jnp.array([1]))
""",
    "the-rows-of-a-numpy-array-are-numpy-arrays": """
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def coords(index):
    return [x[index] for x in np.indices((3, 4))]  # JIT402

coords(jnp.array(1))
""",
    "optax-chain-runs-the-update-of-each-project-transformation": """
import jax
import jax.numpy as jnp
import optax

def clip_transform(limit):
    def init_fn(params):
        return optax.EmptyState()

    def update_fn(updates, state, params=None):
        norm = optax.tree.norm(updates)
        if norm > limit:  # JIT101
            updates = jax.tree.map(lambda u: u / norm * limit, updates)
        return updates, state

    return optax.GradientTransformation(init_fn, update_fn)

tx = optax.chain(clip_transform(1.0), optax.sgd(0.1))

@jax.jit
def step(params, state, grads):
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state

p = jnp.ones(3)
step(p, tx.init(p), p)
""",
    "a-template-method-only-subclasses-define-is-followed": """
from functools import partial
import jax
import jax.numpy as jnp

class Strategy:
    @partial(jax.jit, static_argnums=(0,))
    def ask(self, x):
        return self.ask_strategy(x)

class Halving(Strategy):
    def ask_strategy(self, x):
        return jnp.zeros((jnp.array(x.shape[0] / 2, int), 3))  # JIT404

Halving().ask(jnp.ones(4))
""",
    "a-linen-remat-of-a-module-class-counts-self-in-static-argnums": """
import jax
import jax.numpy as jnp
import flax.linen as nn

class MLP(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        if train:  # JIT101
            x = x * 2
        return nn.Dense(2)(x)

Remat = nn.remat(MLP, static_argnums=(1,))
Remat().init(jax.random.PRNGKey(0), jnp.ones((1, 3)), True)
""",
    "a-linen-remat-static-argnum-after-self-keeps-the-flag-a-python-value": """
import jax
import jax.numpy as jnp
import flax.linen as nn

class MLP(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        if train:
            x = x * 2
        return nn.Dense(2)(x)

Remat = nn.remat(MLP, static_argnums=(2,))
Remat().init(jax.random.PRNGKey(0), jnp.ones((1, 3)), True)
""",
    "a-staticmethod-through-self-receives-only-its-arguments": """
import jax
import jax.numpy as jnp

class Scaler:
    @staticmethod
    def scale(x, n):
        if n > 1:
            return x * n
        return x

    def apply(self, x):
        return self.scale(x, 3)

@jax.jit
def f(x):
    return Scaler().apply(x)

f(jnp.ones(2))
""",
    "a-classmethod-through-its-class-is-followed": """
import jax
import jax.numpy as jnp

class Average:
    @classmethod
    def from_output(cls, values, mask):
        if mask.sum() > 0:  # JIT101
            return values
        return mask

@jax.jit
def step(values, mask):
    return Average.from_output(values, mask)

step(jnp.ones(2), jnp.ones(2))
""",
    "a-staticmethod-through-its-class-is-followed": """
import jax
import jax.numpy as jnp

class Ops:
    @staticmethod
    def clip(x, limit):
        if x.max() > limit:  # JIT101
            return x / x.max()
        return x

@jax.jit
def step(x):
    return Ops.clip(x, 1.0)

step(jnp.ones(2))
""",
    "an-equinox-module-built-in-a-filter-transform-runs-init-in-the-trace": """
import equinox as eqx
import jax
import jax.numpy as jnp

class Layer(eqx.Module):
    weight: jax.Array

    def __init__(self, size, key):
        lim = 1 / jnp.sqrt(jnp.prod(jnp.array(size))).item()  # JIT401
        self.weight = jax.random.uniform(key, (size,)) * lim

make = eqx.filter_jit(lambda key: Layer(3, key))
make(jax.random.PRNGKey(0))
""",
    "an-equinox-module-built-outside-a-trace-runs-init-eagerly": """
import equinox as eqx
import jax
import jax.numpy as jnp

class Layer(eqx.Module):
    weight: jax.Array

    def __init__(self, size, key):
        lim = 1 / jnp.sqrt(jnp.prod(jnp.array(size))).item()
        self.weight = jax.random.uniform(key, (size,)) * lim

layer = Layer(3, jax.random.PRNGKey(0))
eqx.filter_jit(lambda m, x: m.weight * x)(layer, 2.0)
""",
    "a-flax-initializer-is-staged-out-by-apply": """
import jax
import jax.numpy as jnp
import flax.linen as nn

def hadamard(key, shape, dtype=jnp.float32):
    lg2 = jnp.log2(shape[0])
    h = jnp.ones((1,), dtype=dtype)
    for _ in jnp.arange(lg2):  # JIT404
        h = jnp.concatenate([h, -h])
    return h

class Hadamard(nn.Module):
    n: int

    @nn.compact
    def __call__(self, x):
        return x * self.param("kernel", hadamard, (self.n,))

model = Hadamard(4)
params = model.init(jax.random.key(0), jnp.ones(4))
model.apply(params, jnp.ones(4))
""",
    "a-flax-initializer-tests-its-python-shape": """
import jax
import jax.numpy as jnp
import flax.linen as nn

def init(key, shape, dtype=jnp.float32):
    if shape[0] > 2:
        return jnp.ones(shape, dtype)
    return jnp.zeros(shape, dtype)

class M(nn.Module):
    n: int

    @nn.compact
    def __call__(self, x):
        return x * self.param("k", init, (self.n,))

model = M(4)
params = model.init(jax.random.key(0), jnp.ones(4))
model.apply(params, jnp.ones(4))
""",
    "property-read-in-traced-code-runs-its-getter": """
from typing import NamedTuple

import jax
import jax.numpy as jnp

class State(NamedTuple):
    board: jax.Array

    @property
    def size(self) -> int:
        return int(jnp.sqrt(self.board.shape[-1]).astype(jnp.int32).item())  # JIT401

@jax.jit
def step(state: State):
    return state.board * state.size

step(State(jnp.zeros(9)))
""",
    "property-read-through-a-lambda-called-at-once": """
from typing import NamedTuple

import jax
import jax.numpy as jnp

class State(NamedTuple):
    board: jax.Array

    @property
    def size(self) -> int:
        return int(jnp.sqrt(self.board.shape[-1]).astype(jnp.int32).item())  # JIT401

state = State(jnp.zeros(9))
jax.jit(lambda s: s.size)(state)
""",
    "method-inherited-from-a-base-class-of-the-module": """
import jax
import jax.numpy as jnp
import numpy as np

class Base:
    def shift(self, x):
        return np.append(x[0], x[:-1])  # JIT402

class Child(Base):
    pass

kernel = Child()
jax.jit(kernel.shift)(jnp.ones(3))
""",
    "closure-of-a-factory-called-at-once-in-traced-code": """
import jax
import jax.numpy as jnp

def make(n=None, scale=None):
    if scale is None:
        return None

    def run(x):
        bound = n or scale  # JIT103
        return x * bound

    return run

@jax.jit
def fun(x, steps):
    return make(n=steps, scale=3)(x)

fun(jnp.ones(3), 4)
""",
    "tuple-attribute-from-init-indexed-by-a-traced-loop-variable": """
import jax
import jax.numpy as jnp

class Net:
    def __init__(self, sizes=(2, 3)):
        self.sizes = sizes

    def __call__(self, x):
        for i in jnp.arange(2):
            x = x * self.sizes[i]  # JIT401
        return x

jax.jit(lambda x: Net()(x))(1.0)
""",
    "array-in-a-static-field-compared-across-two-instances": """
import jax
import numpy as np
from flax import struct

@struct.dataclass
class Model:
    c: np.ndarray = struct.field(pytree_node=False)

@jax.jit
def f(model):
    return 1.0

m = Model(np.ones(3))
n = Model(np.ones(3))
f(m)
f(n)  # JIT302
""",
    "array-in-a-static-field-of-one-instance-called-twice": """
import jax
import numpy as np
from flax import struct

@struct.dataclass
class Model:
    c: np.ndarray = struct.field(pytree_node=False)

@jax.jit
def f(model):
    return 1.0

m = Model(np.ones(3))
f(m)
f(m)
""",
    "filter-jit-keeps-a-python-int-from-every-call-static": """
import equinox as eqx
import jax.numpy as jnp

def total(x, axis: int = -1):
    return _sum(x, axis)

@eqx.filter_jit
def _sum(x, axis):
    return jnp.sum(x, axis=axis)

total(jnp.ones((2, 3)))
_sum(jnp.ones((2, 3)), 0)
""",
    "filter-jit-traces-an-array-given-for-an-axis": """
import equinox as eqx
import jax.numpy as jnp

def total(x, axis: int = -1):
    return _sum(x, axis)

@eqx.filter_jit
def _sum(x, axis):
    return jnp.sum(x, axis=axis)  # JIT404

total(jnp.ones((2, 3)))
_sum(jnp.ones((2, 3)), jnp.int32(0))
""",
    "a-product-rebound-from-its-own-method-resolves-without-recursion": """
import jax
import jax.numpy as jnp

class Opt:
    def chain(self):
        return self

    def update(self, x):
        return x

opt = Opt()
opt = opt.chain()

@jax.jit
def f(x):
    return opt.update(x)

f(jnp.ones(3))
""",
    "optax-record-of-functions-from-a-factory": """
import jax
import jax.numpy as jnp
import optax

def clip_once():
    def init_fn(params):
        return jnp.zeros([], jnp.int32)

    def update_fn(updates, state, params=None):
        if state == 0:  # JIT101
            updates = jax.tree_util.tree_map(lambda g: g / 2, updates)
        return updates, state + 1

    return optax.GradientTransformation(init_fn, update_fn)

opt = clip_once()

@jax.jit
def step(params, state):
    return opt.update(params, state)

step(jnp.ones(3), opt.init(jnp.ones(3)))
""",
    "tree-map-of-a-star-lambda-over-a-star-forest": """
import jax
import numpy as np

def stack_forest(forest):
    stack = lambda *args: np.stack(args)  # JIT402
    return jax.tree_util.tree_map(stack, *forest)

jax.jit(stack_forest)([{"w": 1.0}, {"w": 2.0}])
""",
    "int-field-of-a-module-under-filter-jit-is-static": """
import equinox as eqx
import jax
import jax.numpy as jnp

class MLP(eqx.Module):
    w: jax.Array
    n: int

    def __call__(self, x):
        if self.n > 1:
            return self.w * x
        return x

@eqx.filter_jit
def loss(model, x):
    return model(x).sum()

loss(MLP(jnp.ones(3), 2), jnp.ones(3))
""",
    "method-of-a-module-passed-to-a-filter-jit-function": """
import equinox as eqx
import jax
import jax.numpy as jnp

class MLP(eqx.Module):
    w: jax.Array

    def __call__(self, x):
        if (x > 0).all():  # JIT101
            return self.w * x
        return x

@eqx.filter_jit
def loss(model, x):
    return model(x).sum()

loss(MLP(jnp.ones(3)), jnp.ones(3))
""",
    "method-of-a-module-bound-once-and-passed-to-a-jitted-alias": """
import equinox as eqx
import jax
import jax.numpy as jnp

class MLP(eqx.Module):
    w: jax.Array

    def __call__(self, x):
        if self.w.ndim > 1:
            return self.w @ x
        return self.w * x

def loss(model, x):
    return model(x).sum()

step = eqx.filter_jit(loss)
model = MLP(jnp.ones(3))
step(model, jnp.ones(3))
""",
    "method-of-a-module-bound-once-and-passed-to-a-jitted-alias-traced-if": """
import equinox as eqx
import jax
import jax.numpy as jnp

class MLP(eqx.Module):
    w: jax.Array

    def __call__(self, x):
        if self.w.sum() > 1:  # JIT101
            return self.w @ x
        return self.w * x

def loss(model, x):
    return model(x).sum()

step = eqx.filter_jit(loss)
model = MLP(jnp.ones(3))
step(model, jnp.ones(3))
""",
    # An object constructed inside the trace is thrown away with it: its methods may write
    # to `self` (numpyro's `SVI(...).init(...)` inside `lax.map`).
    "method-of-object-built-in-trace-writes-self": """
import jax
import jax.numpy as jnp

class Fitter:
    def __init__(self, scale):
        self.scale = scale

    def init(self, x):
        self.state = x * self.scale
        self._count()
        return self.state

    def _count(self):
        self.calls = 1

@jax.jit
def run(x):
    fitter = Fitter(2.0)
    return fitter.init(x)

assert (run(jnp.ones(2)) == run(jnp.ones(2))).all()
""",
    "object-built-in-trace-called-from-a-nested-function-writes-self": """
import jax
import jax.numpy as jnp

class KeyStream:
    def __init__(self, key):
        self.key = key

    def __call__(self):
        self.key, sub = jax.random.split(self.key)
        return sub

@jax.jit
def step(key, x):
    stream = KeyStream(key)

    def loss(x):
        return (x * jax.random.normal(stream(), x.shape)).sum()

    return jax.grad(loss)(x), stream()

step(jax.random.key(0), jnp.ones(2))
""",
    "object-built-outside-the-trace-written-by-a-nested-function": """
import jax
import jax.numpy as jnp

class KeyStream:
    def __init__(self, key):
        self.key = key

    def __call__(self):
        self.key, sub = jax.random.split(self.key)  # JIT202
        return sub

def main():
    stream = KeyStream(jax.random.key(0))

    @jax.jit
    def step(x):
        return x * jax.random.normal(stream(), x.shape)

    step(jnp.ones(2))
    stream()  # the key it stored is a leaked tracer

main()
""",
    "closure-from-factory-given-to-jit": """
import jax
import jax.numpy as jnp

def make_step(limit):
    def step(x):
        if x.sum() > limit:  # JIT101
            return x
        return -x
    return step

step = jax.jit(make_step(2.0))
step(jnp.ones(3))
""",
    "closure-from-factory-bound-then-jitted": """
import jax
import jax.numpy as jnp

def make_step(limit):
    def step(x):
        if limit > 1.0:
            return x * jnp.arange(3)[: int(limit)].sum()
        return -x
    return step

fn = make_step(2.0)
jax.jit(fn)(jnp.ones(3))
""",
    "lambda-bound-to-a-name-then-jitted": """
import jax
import jax.numpy as jnp

rank = lambda x: x + jnp.ndim([jnp.ones(1)])  # JIT402
rank(0.0)
jax.jit(rank)(0.0)
""",
    "schedule-called-by-optax-under-jit": """
import jax
import jax.numpy as jnp
import optax

def schedule(count):
    if count < 10:  # JIT101
        return 0.1
    return 0.01

tx = optax.adam(learning_rate=schedule)
params = {"w": jnp.ones(3)}
state = tx.init(params)
jax.jit(tx.update)(params, state, params)
""",
    "submodule-built-in-setup-called-through-self": """
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

class Scale(nn.Module):
    def __call__(self, x):
        return np.asarray(x) * 2.0  # JIT402

class Model(nn.Module):
    def setup(self):
        self.scale = Scale()

    def __call__(self, x):
        return self.scale(x) + 1.0

model = Model()
params = model.init(jax.random.PRNGKey(0), jnp.ones(3))
jax.jit(model.apply)(params, jnp.ones(3))
""",
    "attribute-annotated-with-a-class-called-through-self": """
from dataclasses import dataclass, field
import jax

class Clip:
    def __call__(self, x):
        if x > 1.0:  # JIT101
            return 1.0
        return x

@dataclass
class Loss:
    clip: Clip = field(default_factory=Clip)

    def __call__(self, x):
        return self.clip(x * 2.0)

loss = Loss()
jax.jit(lambda x: loss(x))(0.3)
""",
    "attribute-rebound-to-another-class-not-followed": """
import jax

class Clip:
    def __call__(self, x):
        if x > 1.0:
            return 1.0
        return x

class Identity:
    def __call__(self, x):
        return x

class Loss:
    def __init__(self, clip):
        self.op = Clip()
        if not clip:
            self.op = Identity()

    def __call__(self, x):
        return self.op(x)

loss = Loss(clip=False)
jax.jit(lambda x: loss(x))(0.3)
""",
    "flax-compact-submodule-built-and-called": """
import flax.linen as nn
import jax
import jax.numpy as jnp

class Block(nn.Module):
    @nn.compact
    def __call__(self, x):
        if x.sum() > 0:  # JIT101
            x = -x
        return nn.Dense(2)(x)

class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return Block()(x)

model = Model()
params = jax.eval_shape(model.init, jax.random.PRNGKey(0), jnp.ones(2))
jax.jit(model.apply)(params, jnp.ones(2))
""",
    "instance-bound-to-a-local-name-then-called": """
import jax

class Clip:
    def __init__(self, top):
        self.top = top

    def __call__(self, x):
        if x > self.top:  # JIT101
            return self.top
        return x

@jax.jit
def f(x):
    clip = Clip(1.0)
    return clip(x)

f(0.5)
""",
    "haiku-transform-apply-under-jit": """
import haiku as hk
import jax
import jax.numpy as jnp

def forward(x):
    if x.mean() > 0:  # JIT101
        x = -x
    return hk.Linear(2)(x)

net = hk.transform(forward)
params = net.init(jax.random.PRNGKey(0), -jnp.ones(3))
jax.jit(net.apply)(params, None, jnp.ones(3))
""",
    "haiku-module-in-forward-under-grad-of-jit": """
import haiku as hk
import jax
import jax.numpy as jnp

class Scale(hk.Module):
    def __call__(self, x):
        w = hk.get_parameter("w", (), init=jnp.ones)
        return x * w if x.sum() > 0 else x  # JIT101

net = hk.without_apply_rng(hk.transform(lambda x: Scale()(x)))
params = net.init(jax.random.PRNGKey(0), jnp.ones(3))

@jax.jit
def loss(params, x):
    return net.apply(params, x).sum()

jax.grad(loss)(params, jnp.ones(3))
""",
    "haiku-init-runs-forward-eagerly": """
import haiku as hk
import jax
import jax.numpy as jnp

def forward(x):
    if x.mean() > 0:
        x = -x
    return hk.Linear(2)(x)

net = hk.transform(forward)
params = net.init(jax.random.PRNGKey(0), jnp.ones(3))
""",
    "lazy-initialisation-of-self-in-a-traced-method": """
import jax
import jax.numpy as jnp

class Scaled:
    def __init__(self):
        self.label = None

    def __call__(self, x):
        if self.label is None:
            self.label = "scaled by 2"
        return x * 2

scaled = Scaled()
f = jax.jit(lambda x: scaled(x))
f(jnp.ones(2))
f(jnp.ones(2))
""",
    "partial-of-a-lambda-called-in-the-trace": """
import jax
from jax.tree_util import Partial

@jax.jit
def f(x, y):
    g = Partial(lambda a, b: a if b > 0 else -a)  # JIT101
    return g(x, y)

f(1.0, 2.0)
""",
    "functools-partial-called-in-the-trace-binds-first": """
from functools import partial
import jax

def step(n, x):
    for _ in range(n):
        x = x * 2
    return x

@jax.jit
def f(x):
    g = partial(step, 3)
    return g(x)

f(1.0)
""",
    "functools-partial-bound-traced-value": """
from functools import partial
import jax

def step(n, x):
    for _ in range(n):  # JIT104
        x = x * 2
    return x

@jax.jit
def f(x, k):
    g = partial(step, k)
    return g(x)

f(1.0, 3)
""",
}

# Staged code hands a custom_vjp / custom_jvp function a tracer for every argument but its
# nondiff_argnums, even where the caller held a static Python value; outside staging (vmap,
# grad alone, eager) the function sees the concrete value.
CUSTOM = {
    "a-tracer-in-a-custom-vjp-nondiff-position-raises": """
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.custom_vjp, nondiff_argnums=(0,))
def scale(s, p):
    return s * p

def scale_fwd(s, p):
    return s * p, None

def scale_bwd(s, _, g):
    return (g * s,)

scale.defvjp(scale_fwd, scale_bwd)

@jax.vmap
def f(s, p):
    return scale(s, p)  # JIT302

f(jnp.ones(2), jnp.ones(2))
""",
    "a-python-value-in-a-custom-vjp-nondiff-position-is-fine": """
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.custom_vjp, nondiff_argnums=(0,))
def scale(s, p):
    return s * p

def scale_fwd(s, p):
    return s * p, None

def scale_bwd(s, _, g):
    return (g * s,)

scale.defvjp(scale_fwd, scale_bwd)

@jax.jit
def f(p):
    return jax.grad(lambda q: scale(2.0, q))(p)

f(jnp.ones(()))
""",
    "lambda-bound-to-a-name-runs-in-the-trace": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    sign = lambda y: 1.0 if y.sum() > 0 else -1.0  # JIT101
    return x * sign(x)

f(jnp.ones(3))
""",
    "lambda-bound-to-a-name-with-static-arguments": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    sign = lambda n: 1.0 if n > 0 else -1.0
    return x * sign(x.ndim)

f(jnp.ones(3))
""",
    "custom-vjp-sees-a-static-argument-traced": """
from functools import partial
import jax

@jax.custom_vjp
def power(z, n):
    k = int(n)  # JIT401
    return z ** k

power.defvjp(lambda z, n: (power(z, n), (z, n)), lambda r, g: (g * r[1] * r[0] ** (r[1] - 1), None))

@partial(jax.jit, static_argnums=1)
def f(z, n):
    return power(z, n)

f(3.0, 2)
""",
    "custom-jvp-sees-a-static-argument-traced": """
from functools import partial
import jax

@jax.custom_jvp
def scaled(z, n):
    if n > 1:  # JIT101
        return z * n
    return z

scaled.defjvp(lambda p, t: (scaled(*p), t[0] * p[1]))

@partial(jax.jit, static_argnames="n")
def f(z, n):
    return scaled(z, n)

f(3.0, n=2)
""",
    "custom-vjp-nondiff-argnums-stay-static": """
from functools import partial
import jax

@partial(jax.custom_vjp, nondiff_argnums=(1,))
def power(z, n):
    k = int(n)
    return z ** k

power.defvjp(lambda z, n: (power(z, n), z), lambda n, z, g: (g * n * z ** (n - 1),))

@partial(jax.jit, static_argnums=1)
def f(z, n):
    return power(z, n)

f(3.0, 2)
""",
    "custom-vjp-nondiff-argnames-stay-static": """
from functools import partial
import jax

@partial(jax.custom_vjp, nondiff_argnames=("n",))
def power(z, n):
    k = int(n)
    return z ** k

power.defvjp(lambda z, n: (power(z, n=n), z), lambda n, z, g: (g * n * z ** (n - 1),))

@partial(jax.jit, static_argnums=1)
def f(z, n):
    return power(z, n=n)

f(3.0, 2)
""",
    "custom-vjp-under-vmap-sees-concrete-constants": """
import jax
import jax.numpy as jnp

@jax.custom_vjp
def power(z, n):
    k = int(n)
    return z ** k

power.defvjp(lambda z, n: (power(z, n), (z, n)), lambda r, g: (g * r[1] * r[0] ** (r[1] - 1), None))

jax.vmap(lambda z: power(z, 2))(jnp.ones(3))
""",
}

# What jit does to the arguments of a JAX function handed to it directly, and lengths that
# JAX computes from the data when they are left out.
LENGTHS = {
    "a-traced-diagonal-offset-is-a-shape": """
import jax
import jax.numpy as jnp

@jax.jit
def upper(x, k):
    return jnp.triu(x, k)  # JIT404

upper(jnp.ones((3, 3)), 1)
""",
    "a-traced-diag-offset-is-a-shape": """
import jax
import jax.numpy as jnp

@jax.jit
def band(x, k):
    return jnp.diag(x, k)  # JIT404

band(jnp.ones((3, 3)), 1)
""",
    # `metrics[name]()` of a dict of lambdas the jitted function builds: the one picked
    # runs in the trace (quantammsim's _calculate_return_value).
    "a-function-picked-from-a-dict-of-lambdas-runs-in-the-trace": """
from functools import partial
import jax
import jax.numpy as jnp

def daily(values):
    k = jnp.array(2, dtype=jnp.int32)
    n = (values.shape[0] - 1) // k
    return jnp.arange(n) * k  # JIT404

@partial(jax.jit, static_argnums=(0,))
def metric(name, values):
    metrics = {
        "last": lambda: values[-1],
        "daily": lambda: daily(values),
    }
    return metrics[name]()

metric("last", jnp.ones(5))
metric("daily", jnp.ones(5))
""",
    # equinox's filter_jit keeps a Python int static: a script binding `evaluate =
    # eqx.filter_jit(loss)` in its `__main__` block and calling it with `2` from a helper
    # there passes a Python value.
    "a-python-int-given-to-a-filter-jit-bound-in-main-stays-static": """
import equinox as eqx
import jax.numpy as jnp

def loss(x, n):
    m = x.shape[0] // n
    return jnp.arange(0, m).sum() + x.sum()

if __name__ == "__main__":
    evaluate = eqx.filter_jit(loss)

    def loss_with(i):
        return float(evaluate(jnp.ones(4) * i, 2))

    loss_with(1)
""",
    # A list the function fills with tracers (`x.append(index % base)`) is a list of
    # tracers, as `[a, b]` is: NumPy converts it (pymdp's index_to_combination); its
    # length and truth value stay Python values.
    "a-list-filled-with-tracers-given-to-numpy-converts-them": """
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def digits(index):
    x = []
    for base in (3, 2):
        x.append(index % base)
        index = index // base
    return np.stack(x)  # JIT402

digits(5)
""",
    "a-list-filled-with-tracers-keeps-a-python-length": """
import jax
import jax.numpy as jnp

@jax.jit
def mean_loss(a):
    losses = []
    for i in range(3):
        losses.append(a * i)
    if losses:
        return jnp.stack(losses).sum() / len(losses)
    return a

mean_loss(jnp.ones(2))
""",
    "a-traced-index-to-delete-is-a-shape": """
import jax
import jax.numpy as jnp

@jax.jit
def drop(x, i):
    return jnp.delete(x, i)  # JIT404

drop(jnp.arange(4.0), 1)
""",
    "a-traced-index-to-delete-assumed-unique-is-fine": """
import jax
import jax.numpy as jnp

@jax.jit
def drop(x, i):
    return jnp.delete(x, i, assume_unique_indices=True)

drop(jnp.arange(4.0), 1)
""",
    "a-traced-rotation-count-is-a-shape": """
import jax
import jax.numpy as jnp

@jax.jit
def turn(x, k):
    return jnp.rot90(x, k)  # JIT404

turn(jnp.ones((3, 3)), 1)
""",
    "a-traced-triangle-size-is-a-shape": """
import jax
import jax.numpy as jnp

@jax.jit
def pairs(x, n):
    i, j = jnp.triu_indices(n)  # JIT404
    return x[i, j]

pairs(jnp.ones((3, 3)), 3)
""",
    "jit-of-a-jax-function-traces-its-axis": """
import jax
import jax.numpy as jnp

jax.jit(jnp.sum)(jnp.arange(4), 0)  # JIT404
""",
    "jit-of-a-jax-function-with-the-axis-static": """
import jax
import jax.numpy as jnp

jax.jit(jnp.sum, static_argnums=1)(jnp.arange(4), 0)
jax.jit(jnp.sum)(jnp.arange(4))
""",
    "jitted-jax-function-bound-to-a-name": """
import jax
import jax.numpy as jnp

one_hot = jax.jit(jax.nn.one_hot)
one_hot(jnp.arange(3), 4)  # JIT404
""",
    "segment-sum-without-num-segments-under-jit": """
import jax
import numpy as np

ids = np.array([0, 0, 1])

@jax.jit
def f(x):
    return jax.ops.segment_sum(x, ids)  # JIT404

f(np.ones(3))
""",
    "segment-sum-with-num-segments-under-jit": """
import jax
import numpy as np

ids = np.array([0, 0, 1])

@jax.jit
def f(x):
    return jax.ops.segment_sum(x, ids, num_segments=2)

f(np.ones(3))
""",
    "bincount-without-length-under-vmap": """
import jax
import jax.numpy as jnp

jax.vmap(lambda x: jnp.bincount(x))(jnp.array([[0, 1], [1, 1]]))  # JIT404
""",
    "constant-table-indexed-by-loop-index-is-traced": """
import jax
import jax.numpy as jnp

sizes = jnp.array([3, 2, 1])

def body(i, total):
    n = sizes[i]
    return total + jnp.ones(n).sum()  # JIT404

jax.lax.fori_loop(0, 3, body, 0.0)
""",
    "sparse-fromdense-without-nse-under-jit": """
import jax
import jax.numpy as jnp
from jax.experimental import sparse

@jax.jit
def f(x):
    return sparse.BCOO.fromdense(x)  # JIT403

f(jnp.eye(2))
""",
    "sparse-fromdense-with-nse-under-jit": """
import jax
import jax.numpy as jnp
from jax.experimental import sparse

@jax.jit
def f(x):
    return sparse.BCOO.fromdense(x, nse=2).todense()

f(jnp.eye(2))
""",
    "flax-setup-runs-in-the-trace-of-apply": """
import flax.linen as nn
import jax
import jax.numpy as jnp
from jax.experimental.sparse import BCOO

class Model(nn.Module):
    dim: int

    def setup(self):
        self.dense = nn.Dense(self.dim)
        self.pattern = BCOO.fromdense(jnp.eye(self.dim))  # JIT403

    def __call__(self, x):
        return self.dense(x)

model = Model(2)
params = model.init(jax.random.PRNGKey(0), jnp.ones(2))
jax.jit(model.apply)(params, jnp.ones(2))
""",
    "flax-setup-assigns-submodules-and-constants": """
import flax.linen as nn
import jax
import jax.numpy as jnp

class Model(nn.Module):
    dim: int

    def setup(self):
        self.dense = nn.Dense(self.dim)
        self.scale = jnp.sqrt(float(self.dim))

    def __call__(self, x):
        return self.dense(x) / self.scale

model = Model(2)
params = model.init(jax.random.PRNGKey(0), jnp.ones(2))
jax.jit(model.apply)(params, jnp.ones(2))
""",
}

# Python containers known by how they are made or tested: their truth value and length are
# Python values even when they hold tracers.
NARROWING = {
    # sglang-jax's sampler: the operands go in a tuple with a Python flag appended, and the
    # helper unpacks it; the flag stays a Python bool, a handed-on tuple too.
    "a-python-part-of-a-tuple-argument-stays-static-when-unpacked": """
import jax
import jax.numpy as jnp

def multinomial(operands):
    inputs, rng, use_probs = operands
    if not use_probs:
        return jax.random.categorical(rng, inputs)
    return jax.random.categorical(rng, jnp.log(inputs))

def with_seed(operands):
    inputs, rng, use_probs = operands
    if use_probs:
        return multinomial(operands)
    return jnp.argmax(inputs)

@jax.jit
def sample(probs, rng):
    ops = (probs, rng)
    return with_seed((*ops, True))

sample(jnp.full(4, 0.25), jax.random.key(0))
""",
    # JAX_GP's `Kernel.gradient`: its jitted caller always gives `params`, a tracer, which is
    # never None, so the default read from the static `self` does not run under the trace.
    "a-parameter-given-a-tracer-is-not-none": """
from functools import partial
import jax
import jax.numpy as jnp

class Kernel:
    def __init__(self, p):
        self.param_values = p

    def gradient(self, X1, params=None):
        if params is None:
            params = self.param_values
        return X1 * params

class GP:
    def __init__(self, kernel):
        self.kernel = kernel

    @partial(jax.jit, static_argnums=(0,))
    def loss(self, params):
        return self.kernel.gradient(jnp.ones(2), params)

k = Kernel(jnp.ones(2))
gp = GP(k)
gp.loss(jnp.ones(2))
k.param_values = jnp.zeros(2)
assert float(gp.loss(3.0 * jnp.ones(2))[0]) == 3.0  # what the call gives, not a stale default
""",
    # JAX_GP's `Kernel.__call__`: a JAX array compared with None with `==` or `!=` falls back
    # to identity and gives a Python bool, also under jit: no tracer to branch on.
    "an-array-compared-with-none-by-equality-is-a-python-bool": """
import jax
import jax.numpy as jnp

def kernel(X1, X2=None):
    if X2 == None:
        X2 = X1
    if None != X2:
        X2 = X2 * 1.0
    return X1 + X2

jax.jit(kernel)(jnp.ones(3), jnp.ones(3))
jax.jit(kernel)(jnp.ones(3))
""",
    "a-list-every-call-passes-to-a-jitted-function-is-indexed-by-a-tracer": """
from jax import jit

@jit
def f(idx, mylist):
    return mylist[idx]  # JIT401

f(1, [1.0, 2.0, 3.0])
""",
    "a-list-every-call-passes-keeps-its-static-length": """
import jax
import jax.numpy as jnp

@jax.jit
def total(xs):
    if not xs:
        return jnp.zeros(())
    return sum(xs[1:], xs[0])

total([jnp.ones(()), jnp.ones(())])
""",
    "star-args-is-a-tuple": """
import jax

def f(x, *args):
    if not args:
        return x
    return x + args[0]

jax.jit(f)(1.0)
jax.jit(f)(1.0, 2.0)
""",
    "isinstance-tuple-early-return-makes-a-tuple-below": """
import jax
import jax.numpy as jnp

def vindex(x, args):
    if not isinstance(args, tuple):
        return x[args]
    if not args:
        return x
    args = args[1:] + (slice(None),) * 0
    if not args:
        return x
    return x[args]

jax.jit(lambda x, i: vindex(x, (i, i)))(jnp.ones((3, 3)), 1)
jax.jit(lambda x, i: vindex(x, i))(jnp.ones(3), 1)
""",
    "isinstance-slice-branch-holds-a-python-slice": """
import jax
import jax.numpy as jnp

def index(x, args):
    for arg in args:
        if isinstance(arg, slice):
            if arg != slice(None):
                raise NotImplementedError
    return x[args]

jax.jit(lambda x, i: index(x, (i, slice(None))))(jnp.ones((3, 3)), 1)
""",
    "enumerate-index-stays-static-through-reversed-list": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x, args):
    out = x
    for i, arg in reversed(list(enumerate(args))):
        out = out + jnp.arange(x.shape[i]).sum() * arg
    return out

f(jnp.ones((2, 3)), (1.0, 2.0))
""",
    "a-branch-on-a-default-no-call-passes-never-runs": """
import jax

def f(x, check=False):
    if check:
        if x > 0:
            return -x
    return x

jax.jit(f)(1.0)
""",
    "the-branch-runs-when-a-call-passes-the-flag": """
import jax

def f(x, check=False):
    if check:
        if x > 0:  # JIT101
            return -x
    return x

jax.jit(f, static_argnames="check")(1.0, check=True)
""",
    "a-default-rebound-in-the-function-is-not-folded": """
import jax

def f(x, check=False):
    check = not check
    if check:
        if x > 0:  # JIT101
            return -x
    return x

jax.jit(f)(1.0)
""",
    "isinstance-tuple-does-not-hide-an-array-test": """
import jax
import jax.numpy as jnp

@jax.jit
def f(x, args):
    if isinstance(args, tuple):
        return x
    if args > 0:  # JIT101
        return x
    return -x

f(1.0, 2.0)
""",
}

# `stats or {}` defaults an optional dict of tracers: Python asks the dict for its truth.
OPTIONAL = {
    "an-optional-dict-of-tracers-defaulted-with-or": """
import jax
import jax.numpy as jnp

def loss(w, x):
    return jnp.sum(w * x), {"norm": jnp.linalg.norm(w)}

@jax.jit
def step(w, x):
    (value, stats), grads = jax.value_and_grad(loss, has_aux=True)(w, x)
    stats = stats or {}
    stats["loss"] = value
    return grads, stats

step(jnp.ones(3), jnp.ones(3))
""",
    # A record class without `__bool__` or `__len__`: the truth value of an instance, traced
    # leaves and all, is the object's (True), so the test asks whether one was given.
    "an-optional-record-parameter-tested-bare-asks-whether-it-was-given": """
from typing import Optional
import jax
import jax.numpy as jnp
from flax import struct

@struct.dataclass
class Memory:
    items: jax.Array
    count: jax.Array

def remember(x, scale, memory: Optional[Memory] = None):
    if not memory:
        memory = Memory(jnp.zeros(3), jnp.zeros((), jnp.int32))
    return Memory(memory.items + scale * x, memory.count + 1)

if __name__ == "__main__":
    step = jax.jit(remember, static_argnums=1)
    m = None
    for _ in range(2):
        m = step(jnp.ones(3), 2, m)
""",
    # A field the record declares as an array is a leaf: traced with the record, so a bare
    # test of it asks for a tracer's truth value (flashbax's `buffer_state.is_full`).
    # `np.asarray(x)` of a tracer raises; the code after it is written for the NumPy array
    # it returns, and is not reported again (one report, where JAX fails).
    "after-a-numpy-conversion-of-a-tracer-the-code-is-not-reported-again": """
import jax
import numpy as np

def merge(t_span):
    t_span = np.asarray(t_span)  # JIT402
    direction = np.sign(t_span[1] - t_span[0])
    if direction < 0:
        t_span = t_span[::-1]
    return t_span

jax.jit(merge)(np.array([0.0, 1.0]))
""",
    # `math.prod` multiplies the elements with `*`: on a traced array it gives a tracer,
    # with no conversion to a Python number (a shape made from it is still traced).
    "math-prod-of-a-traced-array-multiplies-tracers": """
import math
import jax
import jax.numpy as jnp

@jax.jit
def volume(dims):
    return jnp.ones(2) * math.prod(dims)

volume(jnp.array([2, 3]))
""",
    # SciPy's result records are dicts: built from tracers, they keep them.
    "a-scipy-result-record-holds-tracers": """
import jax
import jax.numpy as jnp
from scipy.integrate._ivp.ivp import OdeResult
from scipy.optimize import OptimizeResult

@jax.jit
def f(x):
    r = OdeResult(t=x, y=x * 2)
    o = OptimizeResult(x=x)
    return r.y + o.x

f(jnp.ones(2))
""",
    # A plain alias of a function (`call_back_f = f`) given to a `lax` loop is that function.
    "an-alias-of-a-function-given-to-fori-loop-is-traced": """
import jax
import jax.numpy as jnp

def f(i, x):
    if x[0] > 0:  # JIT101
        return x
    return -x

call_back_f = f
jax.lax.fori_loop(0, 3, call_back_f, jnp.ones(2))
""",
    # `argnums` says which arguments `grad` differentiates: a Python int, not a tracer.
    "grad-argnums-from-a-vmapped-value-is-traced": """
import jax
import jax.numpy as jnp

def f(x, y):
    return x * y ** 2

def pick(position):
    return jax.grad(f, position)(1.0, 2.0)  # JIT404

jax.vmap(pick)(jnp.array([0, 1]))
""",
    # The result of an equinox transform, stored in a field, is what it computed (arrays),
    # not a new wrapper per instance.
    "an-equinox-field-holding-a-filter-vmap-result-is-arrays": """
import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jr

class Ensemble(eqx.Module):
    mlps: eqx.nn.MLP

    def __init__(self, key):
        keys = jr.split(key, 3)
        make_mlp = lambda k: eqx.nn.MLP(2, 2, 4, 1, key=k)
        self.mlps = eqx.filter_vmap(make_mlp)(keys)

@eqx.filter_jit
def run(model, x):
    return eqx.filter_vmap(lambda m: m(x))(model.mlps)

run(Ensemble(jr.PRNGKey(0)), jnp.ones(2))
run(Ensemble(jr.PRNGKey(1)), jnp.ones(2))
""",
    "a-bare-test-of-a-field-declared-as-an-array-is-a-traced-bool": """
import jax
import jax.numpy as jnp
from flax import struct

@struct.dataclass
class Buffer:
    data: jax.Array
    index: jax.Array
    is_full: jax.Array

@jax.jit
def count(buffer):
    size = buffer.data.shape[0]
    return size if buffer.is_full else buffer.index  # JIT101

count(Buffer(jnp.zeros(4), jnp.int32(2), jnp.bool_(False)))
""",
}

# flax nnx transforms split the modules they are given and write their state back: inside
# a trace they refuse a module from outside it (ValueError: Cannot extract graph node from
# different trace level).
NNX = {
    "a-python-attribute-of-an-nnx-module-stays-static-under-nnx-jit": """
import flax.nnx as nnx
import jax
import jax.numpy as jnp

def patchify(videos: jax.Array, size: int) -> jax.Array:
    B, T, H, W, C = videos.shape
    x = videos.reshape(B, T, H // size, size, W // size, size, C)
    return x.reshape(B, T, (H // size) * (W // size), size * size * C)

class Tokenizer(nnx.Module):
    def __init__(self, in_dim, patch_size, rngs: nnx.Rngs):
        self.in_dim = in_dim
        self.patch_size = patch_size

    def encode(self, videos: jax.Array):
        return patchify(videos, self.patch_size)

@nnx.jit
def encode_step(model: Tokenizer, inputs: dict):
    return model.encode(inputs["videos"])

model = Tokenizer(3, 2, rngs=nnx.Rngs(0))
encode_step(model, {"videos": jnp.ones((1, 1, 4, 4, 3))})
""",
    "an-nnx-grad-of-a-global-module-inside-jax-jit": """
import jax
import jax.numpy as jnp
from flax import nnx

model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))

def loss_fn(m, x):
    return jnp.mean(m(x) ** 2)

@jax.jit
def step(x):
    return nnx.grad(loss_fn)(model, x)  # JIT202

step(jnp.ones((4, 2)))
""",
    "an-nnx-value-and-grad-of-self-model-in-a-jitted-closure": """
import jax
import jax.numpy as jnp
from flax import nnx

class Trainer:
    def __init__(self, model):
        self.model = model

        @jax.jit
        def update(x):
            return nnx.value_and_grad(lambda m: jnp.mean(m(x)))(self.model)  # JIT202

        self.update = update

Trainer(nnx.Linear(2, 1, rngs=nnx.Rngs(0))).update(jnp.ones((4, 2)))
""",
    "an-nnx-grad-of-a-module-passed-into-jax-jit-is-clean": """
import jax
import jax.numpy as jnp
from flax import nnx

def loss_fn(m, x):
    return jnp.mean(m(x) ** 2)

@jax.jit
def step(model, x):
    return nnx.grad(loss_fn)(model, x)

step(nnx.Linear(2, 1, rngs=nnx.Rngs(0)), jnp.ones((4, 2)))
""",
    "a-global-nnx-dropout-module-called-in-a-lax-scan-body": """
import jax
import jax.numpy as jnp
from flax import nnx

class MLP(nnx.Module):
    def __init__(self, *, rngs):
        self.linear = nnx.Linear(4, 4, rngs=rngs)
        self.dropout = nnx.Dropout(rate=0.5, rngs=rngs)

    def __call__(self, x):
        return self.dropout(self.linear(x))  # JIT202

model = MLP(rngs=nnx.Rngs(0))

def body(carry, x):
    return carry + model(x).sum(), None

jax.lax.scan(body, 0.0, jnp.ones((3, 1, 4)))
""",
    "an-nnx-dropout-module-passed-into-jax-jit-is-clean": """
import jax
import jax.numpy as jnp
from flax import nnx

class MLP(nnx.Module):
    def __init__(self, *, rngs):
        self.linear = nnx.Linear(4, 4, rngs=rngs)
        self.dropout = nnx.Dropout(rate=0.5, rngs=rngs)

    def __call__(self, x):
        return self.dropout(self.linear(x))

@jax.jit
def forward(model, x):
    return model(x)

forward(MLP(rngs=nnx.Rngs(0)), jnp.ones((1, 4)))
""",
    "a-jax-vmap-of-a-bound-nnx-jit-method": """
import jax
import jax.numpy as jnp
from flax import nnx

class Renderer(nnx.Module):
    def __init__(self):
        self.linear = nnx.Linear(3, 3, rngs=nnx.Rngs(0))

    @nnx.jit
    def render(self, x):
        return self.linear(x)

renderer = Renderer()
frames = jax.vmap(renderer.render)(jnp.ones((2, 3)))  # JIT202
""",
    "an-nnx-jit-method-of-a-global-module-in-a-scan-body": """
import jax
import jax.numpy as jnp
from flax import nnx

class Renderer(nnx.Module):
    def __init__(self):
        self.linear = nnx.Linear(3, 3, rngs=nnx.Rngs(0))

    @nnx.jit
    def render(self, x):
        return self.linear(x)

renderer = Renderer()

def body(carry, x):
    return carry, renderer.render(x)  # JIT202

jax.lax.scan(body, 0.0, jnp.ones((2, 3)))
""",
    "an-nnx-jit-method-called-from-another-on-its-own-module-is-clean": """
import jax.numpy as jnp
from flax import nnx

class Renderer(nnx.Module):
    def __init__(self):
        self.linear = nnx.Linear(3, 3, rngs=nnx.Rngs(0))

    @nnx.jit
    def render(self, x):
        return self.linear(x)

    @nnx.jit
    def twice(self, x):
        return self.render(self.render(x))

Renderer().twice(jnp.ones(3))
""",
    "an-nnx-jit-method-of-a-module-passed-into-jax-jit-is-clean": """
import jax
import jax.numpy as jnp
from flax import nnx

class Renderer(nnx.Module):
    def __init__(self):
        self.linear = nnx.Linear(3, 3, rngs=nnx.Rngs(0))

    @nnx.jit
    def render(self, x):
        return self.linear(x)

@jax.jit
def draw(renderer, x):
    return renderer.render(x)

draw(Renderer(), jnp.ones(3))
""",
    "an-nnx-grad-of-a-global-array-holds-no-module": """
import jax
import jax.numpy as jnp
from flax import nnx

w = jnp.ones(3)

@jax.jit
def step(y):
    return nnx.grad(lambda a: jnp.sum(a * y))(w)

step(jnp.ones(3))
""",
}

# Donation deletes the donated arrays on CPU too (jax 0.10.2): module-level code, as in a
# script, reads a deleted array as a function's code would.
DONATED = {
    "module-level-code-reads-an-array-it-donated": """
import functools
import jax
import jax.numpy as jnp

@functools.partial(jax.jit, donate_argnums=0)
def update(w, g):
    return w - g

w = jnp.ones(3)
w_new = update(w, jnp.ones(3))
total = w.sum()  # JIT504
""",
    "an-array-donated-to-a-jit-called-at-once-is-deleted": """
import jax
import jax.numpy as jnp

def add(x, y):
    return x + y

x = jnp.ones(3)
y = jnp.ones(3)
z = jax.jit(add, donate_argnums=(1,))(x, y)
w = y + 1  # JIT504
""",
    "an-array-donated-to-a-jit-called-at-once-and-rebound-is-clean": """
import jax
import jax.numpy as jnp

def add(x, y):
    return x + y

x = jnp.ones(3)
y = jnp.ones(3)
y = jax.jit(add, donate_argnums=(1,))(x, y)
w = y + 1
""",
    "module-level-code-that-rebinds-the-donated-name-is-clean": """
import functools
import jax
import jax.numpy as jnp

@functools.partial(jax.jit, donate_argnums=0)
def update(w, g):
    return w - g

w = jnp.ones(3)
w = update(w, jnp.ones(3))
total = w.sum()
""",
    "a-call-of-a-lambda-closed-over-near-a-donating-call-is-no-donation": """
import functools
import jax
import jax.numpy as jnp

@functools.partial(jax.jit, donate_argnums=0)
def update(w, g):
    return w - g

def run(xs):
    norm = lambda x: x.sum()

    def inner():
        return [norm(x) for x in xs]

    w = update(jnp.ones(3), jnp.ones(3))
    return w, inner()

run([jnp.ones(2)])
""",
    "nnx-jit-writes-the-state-of-a-donated-module-back": """
import jax.numpy as jnp
from flax import nnx

model = nnx.Linear(2, 2, rngs=nnx.Rngs(0))

@nnx.jit(donate_argnums=0)
def step(model, x):
    model.kernel[...] = model.kernel[...] + 1
    return x.sum()

step(model, jnp.ones(2))
total = model.kernel[...].sum()
""",
}

# Calls JAX makes through other calls: a transform of a jitted def, a module's own calls.
THROUGH = {
    # jym's bandit policy: a jitted static method vmapped over the position it holds static.
    "vmap-of-a-jitted-static-method-over-its-static-argument": """
from functools import partial
import jax
import jax.numpy as jnp

class Policy:
    @staticmethod
    @partial(jax.jit, static_argnums=(1,))
    def call(q, epsilon):
        return q * epsilon

    @staticmethod
    @jax.jit
    def batched_call(q, epsilon):
        return jax.vmap(Policy.call, in_axes=(0, 0))(q, epsilon)  # JIT302

Policy.batched_call(jnp.ones(3), jnp.array([0.0, 0.1, 0.01]))
""",
    "vmap-of-a-jitted-def-keeps-its-static-arguments-python-values": """
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnums=(1,))
def scaled(x, method):
    if method == "double":
        return 2 * x
    print(f"unknown method {method}")
    raise ValueError(method)

mapped = jax.vmap(scaled, in_axes=(0, None))
mapped(jnp.ones(3), "double")
""",
    # egnn-jax: `loss_fn = partial(l1_loss, ..., training=True)`, `l1_loss` jitted with only
    # `model_fn` and `task` static: the keyword the partial binds is traced in every call.
    "a-keyword-a-partial-binds-to-a-jitted-def-is-traced": """
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnames=["task"])
def l1_loss(pred, target, training=True, task="graph"):
    if training:  # JIT101
        pred = pred / 2.0
    return jnp.abs(pred - target).mean()

def main():
    loss_fn = partial(l1_loss, training=True, task="graph")
    return loss_fn(jnp.ones(3), jnp.zeros(3))

main()
""",
    "a-default-the-module-itself-passes-to-a-jitted-def-is-traced": """
import jax
import jax.numpy as jnp

@jax.jit
def transpose(matrix, flip_vertical=True):
    mat = jnp.swapaxes(matrix, 0, 1)
    if flip_vertical:  # JIT101
        mat = mat[::-1]
    return mat

transpose(jnp.ones((2, 3)), flip_vertical=False)
""",
    "a-default-no-call-of-the-module-passes-keeps-its-python-value": """
import jax
import jax.numpy as jnp

@jax.jit
def transpose(matrix, flip_vertical=True):
    mat = jnp.swapaxes(matrix, 0, 1)
    if flip_vertical:
        mat = mat[::-1]
    return mat

transpose(jnp.ones((2, 3)))
""",
}

CASES = {
    **OPTIONAL,
    **DONATED,
    **NNX,
    **CONCRETE_ARGS,
    **NARROWING,
    **LENGTHS,
    **OMNISTAGING,
    **FLOW,
    **TYPES,
    **CONCRETE,
    **HASHABLE,
    **GRAD,
    **PASSED,
    **REACHED,
    **CUSTOM,
    **THROUGH,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_linted_as_jax_behaves(name: str) -> None:
    source = textwrap.dedent(CASES[name]).lstrip("\n")
    expected = marked(source)
    assert len(expected) <= 1, "a case marks at most one line"
    got, _ = reported(source)
    assert got == expected
    error, line = run(source)
    if expected:
        assert error is not None, "JAX ran the case without the error it marks"
        assert line == next(iter(expected))[0], f"JAX failed elsewhere: {error!r}"
    else:
        assert error is None, f"JAX rejected a case marked clean: {error!r}"


SLICE_STATIC = """
import functools
import jax
import jax.numpy as jnp

@functools.partial(jax.jit, static_argnums=1)
def take(arr, s):
    return arr[s]

take(jnp.arange(3), slice(1, 2))  # JIT302
"""


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="a slice is hashable from Python 3.12")
def test_a_static_slice_is_unhashable_before_python_3_12() -> None:
    source = textwrap.dedent(SLICE_STATIC).lstrip("\n")
    expected = marked(source)
    got, _ = reported(source)
    assert got == expected
    error, line = run(source)
    assert error is not None and line == next(iter(expected))[0], repr(error)


@pytest.mark.parametrize("name", sorted(SIZE_CHANGING))
def test_size_changing_functions_fail_on_constants_under_jit(name: str) -> None:
    a = np.array([1, 0, 2, 1])
    args = (a > 0, a) if name in {"extract", "compress"} else (a, a[:2]) if "1d" in name else (a,)
    function = getattr(jnp, name)
    function(*args)  # fine eagerly
    with pytest.raises(jax.errors.JAXTypeError):
        jax.jit(lambda: function(*args))()


@pytest.mark.slow
def test_optax_optimizers_call_their_schedule_with_a_traced_count() -> None:
    optax = pytest.importorskip("optax")
    pytest.importorskip("optax.contrib")
    seen: list[bool] = []

    def schedule(count: jax.Array) -> float:
        seen.append(isinstance(count, jax.core.Tracer))
        return 0.1

    params = {"w": jnp.ones((3, 3))}
    for name in sorted(OPTAX_SCHEDULED):
        factory = optax
        for part in name.split("."):
            factory = getattr(factory, part)
        seen.clear()
        with warnings.catch_warnings():  # noisy_sgd: "Specifying a key will be required"
            warnings.simplefilter("ignore", UserWarning)
            tx = factory(schedule)
            state = tx.init(params)
            jax.jit(tx.update)(params, state, params)
        assert any(seen), f"optax.{name} did not call its schedule under jit"


_EXTRA_ARGS = {"reshape": ((-1,),), "repeat": (2,), "swapaxes": (0, 1), "moveaxis": (-1, 0)}


@pytest.mark.parametrize("name", sorted(DISPATCHES_TO_METHOD))
def test_numpy_functions_jitlint_exempts_run_on_tracers(name: str) -> None:
    function = getattr(np, name)
    extra = _EXTRA_ARGS.get(name, ())
    jax.jit(lambda x: function(x, *extra))(jnp.ones((2, 2)))
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.jit(lambda x: function([x, x], *extra))(jnp.ones((2, 2)))  # a list is no array


def test_lazy_initialisation_that_stores_a_tracer_is_still_a_leak() -> None:
    source = textwrap.dedent(
        """
        import jax

        class Cache:
            def __init__(self):
                self.last = None

            def __call__(self, x):
                if self.last is None:
                    self.last = x * 2
                return x

        cache = Cache()
        jax.jit(lambda x: cache(x))(1.0)
        """
    ).lstrip("\n")
    got, _ = reported(source)
    assert (9, "JIT202") in got
    # The leak itself: what the object keeps after the trace is a tracer.
    cache_source = source + "assert isinstance(cache.last, jax.core.Tracer)\n"
    error, _ = run(cache_source)
    assert error is None, error


def test_a_try_around_the_call_of_a_jitted_function_still_reports_its_body() -> None:
    # A `try` handles the errors of its own body: the jitted function it calls keeps its
    # bug (the JAX tutorial demonstrates it by catching the error at the call).
    source = textwrap.dedent(
        """
        import jax

        def f(x):
            if x > 0:  # JIT101
                return x
            return -x

        try:
            jax.jit(f)(1.0)
        except jax.errors.TracerBoolConversionError:
            pass
        """
    ).lstrip("\n")
    got, _ = reported(source)
    assert got == marked(source)
    error, _ = run(source)
    assert error is None  # caught by the script itself


# PRNG keys: JAX's own key-reuse checker (`jax.debug_key_reuse`) is the oracle. A marked
# case raises KeyReuseError under it (JAX reports the reuse at the loop or the jitted call,
# not always at the marked line); an unmarked one runs clean.
KEYS = {
    # optax's nanolm example: `step` splits its key, draws the batch from the new key and
    # hands that key back as the next carry; the caller's next split reuses it.
    "a-key-a-function-drew-from-and-handed-back-is-used-up": """
import jax

def get_batch(key, n):
    return jax.random.randint(key, (2,), 0, n)

def step(key, params):
    key, sub = jax.random.split(key)
    batch = get_batch(key, 5)
    return params + batch.sum() + jax.random.normal(sub), key

params, key = step(jax.random.key(0), 0.0)
key, sub = jax.random.split(key)  # JIT502
""",
    # flax's VAE example: `init(key, x, rng)` runs `__call__(x, z_rng)` with `rng`, whose
    # reparameterisation draws from it; `main` then splits the same `rng`. The module comes
    # from a factory (`def model(): return VAE()`).
    "a-flax-init-runs-call-which-draws-from-the-key-it-is-given-after-the-variables-key": """
import jax
import jax.numpy as jnp
import flax.linen as nn

def reparameterize(rng, mean):
    return mean + jax.random.normal(rng, mean.shape)

class VAE(nn.Module):
    @nn.compact
    def __call__(self, x, z_rng):
        return reparameterize(z_rng, nn.Dense(2)(x))

def model():
    return VAE()

rng = jax.random.key(0)
rng, key = jax.random.split(rng)
params = model().init(key, jnp.ones((4, 3)), rng)["params"]
rng, z_key = jax.random.split(rng)  # JIT502
""",
    "a-flax-init-given-its-own-latent-key-leaves-the-chain-unused": """
import jax
import jax.numpy as jnp
import flax.linen as nn

def reparameterize(rng, mean):
    return mean + jax.random.normal(rng, mean.shape)

class VAE(nn.Module):
    @nn.compact
    def __call__(self, x, z_rng):
        return reparameterize(z_rng, nn.Dense(2)(x))

def model():
    return VAE()

rng = jax.random.key(0)
rng, key, init_z = jax.random.split(rng, 3)
params = model().init(key, jnp.ones((4, 3)), init_z)["params"]
rng, z_key = jax.random.split(rng)
""",
    # The same function called in a loop with the key it handed back: the next call's split
    # draws from a used key, and JAX's checker stops there.
    "a-key-handed-back-used-to-the-same-function-in-a-loop": """
import jax

def step(key, x):
    key, sub = jax.random.split(key)  # JIT502
    x = x + jax.random.normal(sub)
    return x + jax.random.normal(key), key

key = jax.random.key(0)
x = 0.0
for _ in range(2):
    x, key = step(key, x)
""",
    # adept's EPW solver: `self.amp_key, self.phase_key = split(...)` once in `__init__`;
    # the jitted object's `__call__` draws its noise from `self.phase_key`, compiled in as a
    # constant: every step adds the same noise.
    "a-key-attribute-unpacked-from-split-in-init-is-a-constant-of-the-jitted-object": """
import jax

class Solver:
    def __init__(self, seed):
        self.amp_key, self.phase_key = jax.random.split(jax.random.key(seed), 2)

    def noise(self):
        return jax.random.uniform(self.phase_key, (3,))  # JIT502

    def __call__(self, y):
        return y + self.noise()

step = jax.jit(Solver(0))
y = step(jax.numpy.zeros(3))
y = step(y)
""",
    # ralphite's GPT-2 sampler and ReAct_Jax's Trainer: a key `__init__` stores and no
    # method advances, drawn from by a method called once per token or epoch.
    "a-key-only-init-binds-drawn-from-by-a-method-called-in-a-loop": """
import jax

class Sampler:
    def __init__(self, key):
        self.key = key

    def draw(self):
        return jax.random.normal(self.key, (2,))  # JIT502

s = Sampler(jax.random.key(0))
xs = [s.draw() for _ in range(3)]
""",
    "a-key-the-caller-advances-on-the-object-is-new-per-call": """
import jax

class Sampler:
    def __init__(self, key):
        self.key = key

    def draw(self):
        return jax.random.normal(self.key, (2,))

s = Sampler(jax.random.key(0))
key = jax.random.key(1)
xs = []
for _ in range(3):
    key, s.key = jax.random.split(key)
    xs.append(s.draw())
""",
    "a-key-the-method-splits-and-stores-back-advances-per-call": """
import jax

class Sampler:
    def __init__(self, key):
        self.key = key

    def draw(self):
        self.key, sub = jax.random.split(self.key)
        return jax.random.normal(sub, (2,))

s = Sampler(jax.random.key(0))
xs = [s.draw() for _ in range(3)]
""",
    # dronerl's DQN `act`: `_explore` draws from `key`, defined before `uniform(key)` decides
    # whether to explore, and run after it by `lax.cond`.
    "a-local-function-run-by-cond-after-its-key-was-used": """
import jax

def act(key, epsilon):
    def _explore():
        return jax.random.randint(key, (), 0, 4)  # JIT502

    def _exploit():
        return jax.numpy.int32(0)

    rand_val = jax.random.uniform(key)
    return jax.lax.cond(rand_val < epsilon, _explore, _exploit)

act(jax.random.key(0), 0.5)
""",
    "local-branches-drawing-from-one-fresh-key-are-alternatives": """
import jax

def act(key, epsilon):
    decide, pick = jax.random.split(key)

    def _explore():
        return jax.random.randint(pick, (), 0, 4)

    def _shuffle():
        return jax.random.randint(pick, (), 4, 8)

    rand_val = jax.random.uniform(decide)
    return jax.lax.cond(rand_val < epsilon, _explore, _shuffle)

act(jax.random.key(0), 0.5)
""",
    "a-key-split-and-handed-back-unused-is-fresh": """
import jax

def step(key, x):
    key, sub = jax.random.split(key)
    return x + jax.random.normal(sub), key

key = jax.random.key(0)
x = 0.0
for _ in range(2):
    x, key = step(key, x)
key, sub = jax.random.split(key)
""",
    # flax's DenseGeneral before flax#2665: `self.kernel_init`, a field defaulting to an
    # initializer, called once per batch element with the same key.
    "an-initializer-field-called-per-element-with-one-key-draws-alike": """
import dataclasses
from typing import Callable

import jax
import jax.numpy as jnp

default_kernel_init = jax.nn.initializers.lecun_normal()

@dataclasses.dataclass
class DenseGeneral:
    kernel_init: Callable = default_kernel_init

    def init(self, rng, batch, shape):
        return jnp.stack([self.kernel_init(rng, shape) for _ in range(batch)])  # JIT502

DenseGeneral().init(jax.random.key(0), 3, (2, 2))
""",
    # jax-gcn's GCN: each layer's apply function comes from unpacking what its constructor
    # returns (`gc_init, gc_apply = GraphConvolution(4)`); the graph convolution takes the
    # key in **kwargs and draws nothing, so only dropout draws from it.
    "a-layer-function-unpacked-from-its-constructor-draws-nothing-from-the-key-it-is-given": """
import jax
import jax.numpy as jnp

def GraphConvolution(out_dim):
    def init_fun(rng, input_shape):
        return input_shape[:-1] + (out_dim,), jax.random.normal(rng, (input_shape[-1], out_dim))

    def apply_fun(params, x, **kwargs):
        return x @ params

    return init_fun, apply_fun

def Dropout(rate):
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, x, **kwargs):
        keep = jax.random.bernoulli(kwargs["rng"], rate, x.shape)
        return jnp.where(keep, x / rate, 0)

    return init_fun, apply_fun

def GCN():
    gc_init, gc_fun = GraphConvolution(4)
    drop_init, drop_fun = Dropout(0.5)

    def apply_fun(params, x, **kwargs):
        rng = kwargs.pop("rng")
        x = gc_fun(params, x, rng=rng)
        return drop_fun(None, x, rng=rng)

    return gc_init, apply_fun

init_fun, apply_fun = GCN()
k1, k2 = jax.random.split(jax.random.key(0))
_, params = init_fun(k1, (3, 2))
jax.jit(apply_fun)(params, jnp.ones((3, 2)), rng=k2)
""",
    # The jitted function a factory defines is walked first with `a_sampler` unknown, then
    # again when the module's call gives it `choose`: that walk sees `choose` draw.
    "a-function-given-to-a-factory-draws-from-the-key-its-jitted-closure-reuses": """
import jax
import jax.numpy as jnp

def choose(key, x):
    return jax.random.choice(key, x.shape[0], shape=(x.shape[0],))

def make_pairs(a_sampler):
    @jax.jit
    def pairs(key, x):
        idx = a_sampler(key, x)
        parent = jax.random.randint(key, (x.shape[0],), 0, x.shape[0])  # JIT502
        return idx, parent
    return pairs

make_pairs(choose)(jax.random.key(0), jnp.ones(3))
""",
    # A key-reuse scope is read whole at its first draw, before `noiser = Noiser(0.1)` is
    # reached: the one construction the function binds the name to gives its class.
    "an-instance-bound-after-the-first-draw-uses-the-key-its-method-is-given": """
import jax

class Noiser:
    def __init__(self, scale):
        self.scale = scale

    def noise(self, x, random_key):
        return self.scale * jax.random.normal(random_key, x.shape)

def train(x):
    rng, sub = jax.random.split(jax.random.key(0))
    noiser = Noiser(0.1)
    for _ in range(2):
        rng, sub = jax.random.split(rng)  # JIT502
        x = x + noiser.noise(x, random_key=rng)
    return x

train(jax.numpy.ones(3))
""",
    # `update = self.get_update()` holds the function the method returns: it draws from the
    # key the scan body gives it, and the body carries that key on.
    "a-function-a-method-returns-draws-from-the-key-a-scan-carries": """
import jax
import jax.numpy as jnp

class Sampler:
    def get_update(self):
        def update(rng, x):
            return x + jax.random.normal(rng, x.shape)
        return update

    def sample(self, rng, x):
        update = self.get_update()
        def step(carry, t):
            rng, x = carry
            rng, step_rng = jax.random.split(rng)
            x = update(rng, x)  # JIT502
            return (rng, x), ()
        return jax.lax.scan(step, (rng, x), jnp.arange(3))

with jax.disable_jit():  # the scan as a Python loop: the checker sees each iteration
    Sampler().sample(jax.random.key(0), jnp.zeros(2))
""",
    # The same in a Python loop of the function that binds the name.
    # A helper draws from its key only under a flag (`if training:` around dropout): a call
    # that passes the flag False, or leaves its False default, draws nothing from the key.
    "a-key-given-to-a-helper-that-draws-only-when-training-is-drawn-from-when-training": """
import jax
import jax.numpy as jnp

def forward(x, key, training=False):
    if training:
        x = jnp.where(jax.random.uniform(key, x.shape) > 0.1, x, 0.0)
    return x

def sample(x, key):
    logits = forward(x, key, training=True)
    return jax.random.categorical(key, logits)  # JIT502

sample(jnp.zeros(3), jax.random.key(0))
""",
    "a-key-given-to-a-helper-that-draws-only-when-training-is-free-when-not": """
import jax
import jax.numpy as jnp

def forward(x, key, training=False):
    if training:
        x = jnp.where(jax.random.uniform(key, x.shape) > 0.1, x, 0.0)
    return x

def sample(x, key):
    logits = forward(x, key, training=False)
    logits = forward(logits, key)
    return jax.random.categorical(key, logits)

sample(jnp.zeros(3), jax.random.key(0))
""",
    # An initializer the caller hands in (`weight_init: Initializer`) draws from the key
    # it is called with, as one made here does (klax's FullyLinear).
    "an-initializer-parameter-draws-from-the-key-it-is-called-with": """
import jax
from jax.nn.initializers import Initializer, lecun_normal

def make(key, weight_init: Initializer):
    wkey, bkey = jax.random.split(key)
    weight_y = weight_init(wkey, (2, 2))
    weight_z = weight_init(wkey, (2, 2))  # JIT502
    return weight_y, weight_z

make(jax.random.key(0), lecun_normal())
""",
    "a-function-a-factory-returns-draws-from-the-key-it-is-given": """
import jax
import jax.numpy as jnp

def make_update(scale):
    def update(rng, x):
        return x + scale * jax.random.normal(rng, x.shape)
    return update

def sample(rng, x):
    update = make_update(0.1)
    for _ in range(2):
        rng, step_rng = jax.random.split(rng)  # JIT502
        x = update(rng, x)
    return x

sample(jax.random.key(0), jnp.zeros(2))
""",
    # `self._reset = self._reset_balance` (or another method, by configuration): the call
    # `self._reset(rng)` runs one of them, which splits the key.
    "a-method-stored-in-an-attribute-uses-the-key-it-is-given": """
import jax

class Env:
    def __init__(self, balance):
        if balance:
            self._reset = self._reset_balance
        else:
            self._reset = self._reset_swing

    def _reset_balance(self, rng):
        a, b = jax.random.split(rng)
        return jax.random.uniform(a) + jax.random.uniform(b)

    def _reset_swing(self, rng):
        return jax.random.normal(rng)

    def reset(self, rng):
        q = self._reset(rng)
        rng, rng1 = jax.random.split(rng)  # JIT502
        return q, jax.random.normal(rng1)

Env(True).reset(jax.random.key(0))
""",
    # `self.update` stores no key on `self`, so `self.key` still holds the used key.
    "a-method-that-stores-no-key-leaves-self-key-used": """
import jax
import jax.numpy as jnp

def batch(x, key):
    return jax.random.permutation(key, x)

class Trainer:
    def __init__(self):
        self.key = jax.random.key(0)

    def update(self, x):
        return x + 1

    def fit(self, x):
        for _ in range(2):
            xb = batch(x, self.key)  # JIT502
            x = self.update(xb)
        return x

Trainer().fit(jnp.arange(4.0))
""",
    # A helper that hands its key to a library sampler (`dist.sample(rng_key, ...)`,
    # `mcmc.run(rng_key, ...)`) uses the caller's key.
    "a-helper-handing-its-key-to-a-library-sampler-uses-it": """
import jax
import numpyro.distributions as dist

def noise(rng_key, n):
    return dist.Normal(0.0, 1.0).sample(rng_key, (n,))

key = jax.random.key(0)
x = jax.random.normal(key, (3,))
y = noise(key, 3)  # JIT502
""",
    "an-initializer-draws-from-the-key-it-is-given": """
import jax

key = jax.random.key(0)
init = jax.nn.initializers.glorot_normal()
W = init(key, (2, 2))
b = jax.random.normal(key, (2,))  # JIT502
""",
    "a-helper-drawing-from-the-module-key-after-the-module-drew-from-it": """
import jax

key = jax.random.key(0)

def init_params():
    W = jax.random.normal(key, (2, 2))  # JIT502
    return W

X = jax.random.uniform(key, (3,))
W = init_params()
""",
    "a-jitted-function-drawing-from-a-module-level-key-draws-it-on-every-call": """
import jax
import jax.numpy as jnp

root = jax.random.key(0)
root, noise_key = jax.random.split(root)

@jax.jit
def step(x):
    return x + jax.random.normal(noise_key, x.shape)  # JIT502

x = step(jnp.zeros(2))
x = step(x)  # JIT502
""",
    "a-method-jitted-with-static-self-draws-from-the-same-self-key-every-call": """
import functools
import jax
import jax.numpy as jnp

class Sampler:
    def __init__(self):
        self.rng = jax.random.key(0)

    @functools.partial(jax.jit, static_argnums=0)
    def draw(self, logits):
        return jax.random.categorical(self.rng, logits)  # JIT502

s = Sampler()
a = s.draw(jnp.zeros(4))
b = s.draw(jnp.zeros(4))
""",
    "a-jitted-function-given-a-new-key-per-call-is-clean": """
import jax
import jax.numpy as jnp

root = jax.random.key(0)

@jax.jit
def step(x, key):
    return x + jax.random.normal(key, x.shape)

root, k1 = jax.random.split(root)
x = step(jnp.zeros(2), k1)
root, k2 = jax.random.split(root)
x = step(x, k2)
""",
    "a-scan-body-that-hands-its-key-back-unsplit-reuses-it-every-step": """
import jax
import jax.numpy as jnp
from jax import lax

def rollout(key, x):
    def act(carry, _):
        x, key = carry
        noise = jax.random.normal(key, x.shape)  # JIT502
        return (x + noise, key), noise
    return lax.scan(act, (x, key), None, length=3)

jax.jit(rollout)(jax.random.key(0), jnp.zeros(2))
""",
    # A body that is also a jitted function of its own (a method with a static `self`):
    # walked as `@jax.jit`'s target first, it is still checked as the body the scan runs.
    # The helper draws from the key it hands back: the finding is at that draw.
    "a-jitted-method-a-scan-runs-carries-the-key-its-helper-drew-from": """
from functools import partial

import jax
import jax.numpy as jnp

class Planner:
    @partial(jax.jit, static_argnums=(0,))
    def samples(self, key, mean):
        key, subkey = jax.random.split(key)
        xs = jax.random.normal(key, (4,)) + mean  # JIT502
        return xs, key

    @partial(jax.jit, static_argnums=(0,))
    def iterate(self, carry, _):
        mean, key = carry
        xs, key = self.samples(key, mean)
        carry = (xs.mean(), key)
        return carry, xs

    def plan(self, key):
        return jax.lax.scan(self.iterate, (0.0, key), None, length=3)

with jax.disable_jit():  # the scan as a Python loop: the checker sees each iteration
    Planner().plan(jax.random.key(0))
""",
    # Two `if`s on one value that cannot both hold: each run draws from the key once.
    "draws-under-two-ifs-that-exclude-each-other-are-one-draw": """
import jax

def proposal(key, x, d):
    if d == 1:
        xp = x + jax.random.normal(key)
    if d > 1:
        xp = x + jax.random.normal(key, (d,))
    return xp

proposal(jax.random.key(0), 0.0, 1)
proposal(jax.random.key(1), 0.0, 3)
""",
    "draws-under-two-ifs-that-overlap-reuse-the-key": """
import jax

def proposal(key, x, d):
    if d == 1:
        xp = x + jax.random.normal(key)
    if d >= 1:
        xp = x + jax.random.normal(key, (d,))  # JIT502
    return xp

proposal(jax.random.key(0), 0.0, 1)
""",
    "a-scan-body-that-splits-its-carried-key-is-clean": """
import jax
import jax.numpy as jnp
from jax import lax

def rollout(key, x):
    def act(carry, _):
        x, key = carry
        key, sub = jax.random.split(key)
        noise = jax.random.normal(sub, x.shape)
        return (x + noise, key), noise
    return lax.scan(act, (x, key), None, length=3)

jax.jit(rollout)(jax.random.key(0), jnp.zeros(2))
""",
    "a-loop-body-through-a-lambda-bound-in-the-enclosing-function": """
import jax
import jax.numpy as jnp
from jax import lax

def make():
    def act(carry, _):
        x, key = carry
        noise = jax.random.normal(key, x.shape)  # JIT502
        return (x + noise, key), noise

    scanned = lambda state: lax.scan(act, state, None, length=3)

    def update(key, x):
        return scanned((x, key))

    return update

jax.jit(make())(jax.random.key(0), jnp.zeros(2))
""",
    "a-while-body-that-samples-from-a-key-closed-over-from-outside": """
import jax
import jax.numpy as jnp
from jax import lax

def decode(rng, logits):
    def step(carry):
        logits, i = carry
        token = jax.random.categorical(rng, logits)  # JIT502
        return logits + token, i + 1
    return lax.while_loop(lambda c: c[1] < 3, step, (logits, 0))

jax.jit(decode)(jax.random.key(0), jnp.zeros(3))
""",
    "a-loop-body-that-folds-the-iteration-into-a-closed-over-key-is-clean": """
import jax
import jax.numpy as jnp
from jax import lax

def walk(key, x):
    def body(i, x):
        return x + jax.random.normal(jax.random.fold_in(key, i), x.shape)
    return lax.fori_loop(0, 3, body, x)

jax.jit(walk)(jax.random.key(0), jnp.zeros(2))
""",
    "a-key-given-to-a-transformed-function-is-used-by-it": """
import jax
import jax.numpy as jnp

def loss(p, k):
    return jnp.sum(p * jax.random.normal(k, p.shape))

def step(params, key):
    loss_fn = jax.value_and_grad(loss)
    value, grads = loss_fn(params, key)
    key = jax.random.split(key, 1)[0]  # JIT502
    return value, grads, key

jax.jit(step)(jnp.ones(2), jax.random.key(0))
""",
    "an-equinox-layer-given-a-key-by-keyword-uses-it": """
import equinox as eqx
import jax

key = jax.random.key(0)
x = jax.random.normal(key, (2,))
layer = eqx.nn.Linear(2, 2, key=key)  # JIT502
""",
    "flax-init-derives-its-keys-and-leaves-the-key-unused": """
import flax.linen as nn
import jax

key = jax.random.key(0)
x = jax.random.normal(key, (1, 2))
params = nn.Dense(3).init(key, x)
""",
    "a-scan-body-that-carries-on-the-key-it-drew-from-in-a-dict": """
import jax
import jax.numpy as jnp
from jax import lax, random

def bridge(key, x0):
    def step(carry, n):
        key = carry["key"]
        key, subkey = random.split(key)
        x = random.normal(key, carry["x"].shape)  # JIT502
        new = {"x": x, "key": key}
        return new, x
    return lax.scan(step, {"x": x0, "key": key}, jnp.arange(3))[1]

# The checker follows keys through a jitted scan's carry only partly: run it eagerly.
with jax.disable_jit():
    bridge(random.key(0), jnp.zeros(2))
""",
    "a-nested-function-that-draws-from-a-key-its-enclosing-function-split": """
import jax
import jax.numpy as jnp

def main():
    key = jax.random.key(0)
    model_key, data_key = jax.random.split(key)

    def loss(x):
        noise = jax.random.normal(key, x.shape)  # JIT502
        return jnp.sum(x * noise)

    return loss(jnp.ones(2))

main()
""",
    "haiku-apply-draws-from-the-key-it-is-given": """
import haiku as hk
import jax
import jax.numpy as jnp

def forward(x):
    return hk.dropout(hk.next_rng_key(), 0.5, x)

f = hk.transform(forward)
rng = jax.random.key(0)
x = jax.random.normal(rng, (3,))
params = f.init(jax.random.key(1), x)
y = f.apply(params, rng, x)  # JIT502
""",
    "sorted-and-pythons-random-take-no-jax-key": """
import heapq
import random
import jax

def order(xs, key_fn, keys):
    return sorted(xs, key=key_fn), random.sample(keys, 2)

def by_key(xs, key):
    xs.sort(key=key)
    return heapq.nlargest(1, xs, key=key), max(xs, key=key)

key = jax.random.key(0)
order([3, 1], abs, ["a", "b", "c"])
by_key([3, 1], abs)
x = jax.random.normal(key, (2,))
""",
}


@pytest.mark.parametrize("name", sorted(KEYS))
def test_key_reuse_linted_as_jax_checker_sees_it(name: str) -> None:
    source = textwrap.dedent(KEYS[name]).lstrip("\n")
    expected = marked(source)
    got, _ = reported(source)
    assert got == expected
    with jax.debug_key_reuse(True):
        error, _ = run(source)
    if expected:
        assert type(error).__name__ == "KeyReuseError", error
    else:
        assert error is None, f"JAX's key-reuse checker rejected a clean case: {error!r}"


ALIGNED_SHUFFLE = """
import jax
import jax.numpy as jnp

X0 = jnp.arange(8.0)
X1 = 10.0 * jnp.arange(8.0)
permute_rng, rng = jax.random.split(jax.random.key(0))
X0 = jax.random.permutation(permute_rng, X0)
X1 = jax.random.permutation(permute_rng, X1)
"""


def test_one_key_shuffling_paired_arrays_is_the_aligned_shuffle_idiom() -> None:
    # jax-flow-matching: `permutation(k, X0)` and `permutation(k, X1)` draw the same
    # permutation on purpose, so the pairs stay aligned. JAX's key-reuse checker flags the
    # second draw, but the numbers are exactly what the code means: JIT502 stays silent.
    got, _ = reported(ALIGNED_SHUFFLE)
    assert got == set()
    namespace: dict[str, object] = {}
    exec(compile(ALIGNED_SHUFFLE, "case.py", "exec"), namespace)
    x0, x1 = namespace["X0"], namespace["X1"]
    assert jnp.array_equal(10.0 * x0, x1) and not jnp.array_equal(x0, jnp.arange(8.0))
    with jax.debug_key_reuse(True):
        error, _ = run(ALIGNED_SHUFFLE)
    assert type(error).__name__ == "KeyReuseError"
    # Any other second draw from that key is a reuse, and reported.
    other = ALIGNED_SHUFFLE.replace(
        "X1 = jax.random.permutation(permute_rng, X1)",
        "X1 = X1 + jax.random.normal(permute_rng, X1.shape)  # JIT502",
    )
    got, _ = reported(other)
    assert got == marked(other) != set()


ALIGNED_SHUFFLE_OPTIONS = """
import jax
import jax.numpy as jnp

inputs = jnp.arange(24.0).reshape(8, 3)
outputs = jnp.arange(8.0)
key, subkey = jax.random.split(jax.random.key(0))
inputs = jax.random.permutation(subkey, inputs, axis=0, independent=False)
outputs = jax.random.permutation(subkey, outputs, axis=0, independent=False)
"""


def test_paired_shuffles_with_the_same_options_are_aligned_and_others_are_reuses() -> None:
    # dro_sweeps: "Permute X, Y from the same key for identical random ordering", both with
    # `axis=0, independent=False`: rows of the (8, 3) inputs move as the outputs do. With
    # different options the second draw is another permutation, a reuse.
    namespace = linted_and_run(ALIGNED_SHUFFLE_OPTIONS)
    inputs, outputs = namespace["inputs"], namespace["outputs"]
    assert jnp.array_equal(inputs[:, 0] // 3, outputs)  # type: ignore[index,operator]
    other = ALIGNED_SHUFFLE_OPTIONS.replace(
        "(subkey, outputs, axis=0, independent=False)",
        "(subkey, outputs, axis=0, independent=True)  # JIT502",
    )
    got, _ = reported(other)
    assert got == marked(other) != set()


NUMPYRO_SCAN = """
import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive
{imports}

def model(T=4):
    def transition(x0, i):
        x1 = numpyro.sample(f"x_{{i}}", dist.Normal(0.5 * x0, 1.0)){mark}
        return x1, x1

    x0 = numpyro.sample("x_0", dist.Normal(0.0, 1.0))
    _, xs = {scan}(transition, x0, jnp.arange(1, T))
    return xs

Predictive(model, num_samples=2)(jax.random.PRNGKey(0))
"""


@pytest.mark.parametrize(
    ("imports", "scan", "mark", "error"),
    [
        ("", "jax.lax.scan", "  # JIT202", "UnexpectedTracerError"),
        ("from numpyro.contrib.control_flow import scan", "scan", "", None),
    ],
)
def test_numpyro_sites_in_a_lax_loop_leak_into_its_handlers(
    imports: str, scan: str, mark: str, error: str | None
) -> None:
    source = NUMPYRO_SCAN.format(imports=imports, scan=scan, mark=mark).lstrip("\n")
    got, _ = reported(source)
    assert got == marked(source)
    raised, _ = run(source)
    assert (None if raised is None else type(raised).__name__) == error, raised


STATIC_SELF_WRITE = """
import functools
import types
import jax
import jax.numpy as jnp

def scale(x, factor):
    if factor <= 0:
        return x
    return x * factor

helpers = types.SimpleNamespace(scale=scale)

class Engine:
    def __init__(self):
        self.factor = 2
        self.last = None

    @functools.partial(jax.jit, static_argnums=0)
    def step(self, x):
        self.last = x  # JIT202
        return helpers.scale(x, self.factor)

engine = Engine()
out = engine.step(jnp.ones(2))
leaked = engine.last
"""


def test_a_tracer_stored_in_a_static_self_leaves_its_other_attributes_static() -> None:
    # The write leaks a tracer (JIT202), and `self.factor`, never written, is still the
    # Python int it was: the helper's `if factor <= 0` is fine, as JAX shows.
    source = textwrap.dedent(STATIC_SELF_WRITE).lstrip("\n")
    got, _ = reported(source)
    assert got == marked(source)
    error, _ = run(source)
    assert error is None, repr(error)


EQX_JIT_FIELD = """
from typing import Callable

import equinox as eqx
import jax
import jax.numpy as jnp

TRACES = []

def fk(q):
    return jnp.sin(q)

class Model(eqx.Module):
    w: jax.Array
    forward: Callable

    def __init__(self, f):
        self.w = jnp.ones(2)
        self.forward = jax.jit(f)  # JIT301

    def __call__(self, x):
        return self.forward(self.w * x)

@eqx.filter_jit
def apply(model, x):
    TRACES.append(1)  # runs once per trace, on purpose: what this case counts
    return model(x)

for _ in range(3):
    apply(Model(fk), jnp.ones(2))
"""


def test_an_equinox_field_holding_a_new_jit_wrapper_retraces_per_instance() -> None:
    pytest.importorskip("equinox")
    source = textwrap.dedent(EQX_JIT_FIELD).lstrip("\n")
    namespace = linted_and_run(source)
    assert len(namespace["TRACES"]) == 3  # type: ignore[arg-type]


BOUND_VMAP_KEY = """
import jax
import jax.numpy as jnp
from jax import random

def add_noise(x, key):
    return x + random.normal(key, x.shape) * 0.1

x_batch = jnp.zeros((4, 3))
key = random.key(0)
batched = jax.vmap(add_noise, in_axes=(0, None))
y = batched(x_batch, key)  # JIT502
mapped = jax.vmap(add_noise, in_axes=(0, 0))
z = mapped(x_batch, random.split(random.key(1), 4))
"""


def test_a_key_given_in_axes_none_through_a_bound_vmap_draws_alike_per_row() -> None:
    # A tutorial's "common pitfall": the vmap bound to a name first, then called with the
    # key unbatched; every row of the batch draws the same numbers. Split keys differ.
    source = textwrap.dedent(BOUND_VMAP_KEY).lstrip("\n")
    namespace = linted_and_run(source)
    y, z = namespace["y"], namespace["z"]
    assert bool(jnp.all(y == y[0]))  # type: ignore[index]
    assert not bool(jnp.all(z == z[0]))  # type: ignore[index]


STATIC_SELF_STORED = """
from functools import partial
import jax
import jax.numpy as jnp

class World:
    def __init__(self, p, v):
        self.p = p
        self.v = v

    @partial(jax.jit, static_argnums=0)
    def step(self, dt):
        self.v += -9.8 * dt  # JIT202
        self.p += self.v * dt  # JIT202

world = World(jnp.zeros(2), jnp.ones(2))
world.step(0.01)
assert isinstance(world.p, jax.core.Tracer)  # the leak the stores make
"""


STORED_BY_A_CALLED_METHOD = """
import jax
import jax.numpy as jnp

class Box:
    def __init__(self, v):
        self.v = v * 2

    def total(self):
        return jnp.sum(self.v)

class Model:
    def __init__(self, data):
        self.data = data
        self.fit(jnp.ones(2))

    def fit(self, params):
        self.box = Box(params * self.data)  # JIT202

    def loss(self, params):
        self.fit(params)
        return self.box.total()

m = Model(jnp.ones(2))
loss = jax.jit(m.loss)
first = loss(jnp.ones(2))
assert isinstance(m.box.v, jax.core.Tracer)  # the leak the store makes
"""


def test_a_static_self_attribute_a_called_method_stored_in_this_trace_is_not_stale() -> None:
    # mind_the_gaps#78: `negative_log_likelihood` calls `self.compute_fit(params)`, which
    # stores `self.gp`, then reads `self.gp`: the value this trace just stored, not a stale
    # one. The store itself leaks a tracer (JIT202).
    namespace = linted_and_run(STORED_BY_A_CALLED_METHOD)
    assert float(namespace["first"]) == 4.0  # type: ignore[arg-type]


HELD_ELEMENT_WRITE = """
import jax
import jax.numpy as jnp

class Param:
    def __init__(self, value):
        self.value = value
        self.fixed = False

class Spec:
    def __init__(self, terms):
        self.terms = terms

    def update_from_array(self, array):
        i = 0
        for term in self.terms:
            for name, param in term.items():
                if not param.fixed:
                    param.value = jnp.array(array[i])  # JIT202
                    i += 1

class Model:
    def __init__(self, spec):
        self.spec = spec

    def loss(self, params):
        self.spec.update_from_array(params)
        return jnp.sum(params)

spec = Spec([{"scale": Param(0.0), "sigma": Param(1.0)}])
model = Model(spec)
loss = jax.jit(model.loss)
loss(jnp.ones(2))
assert isinstance(spec.terms[0]["scale"].value, jax.core.Tracer)  # the leak
"""


CONSTANT_RNGS_DICT = """
import jax
import jax.numpy as jnp
import flax.linen as nn

class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dropout(0.5, deterministic=False)(nn.Dense(8)(x))

net = Net()
params = net.init(jax.random.PRNGKey(0), jnp.ones((1, 4)))

@jax.jit
def step(params, x):
    rngs = {"dropout": jax.random.PRNGKey(1337)}
    a = net.apply(params, x, rngs=rngs)  # JIT502
    b = net.apply(params, x + 1.0, rngs=rngs)  # JIT502
    return a, b

x = jnp.ones((1, 4))
first, _ = step(params, x)
again, _ = step(params, x)
fresh = net.apply(params, x, rngs={"dropout": jax.random.PRNGKey(7)})
assert bool(jnp.array_equal(first, again))  # the same mask on every step
assert not bool(jnp.array_equal(first, fresh))  # dropout is active
"""


TRACER_GUARDED = """
import jax
import jax.numpy as jnp
from jax.core import Tracer

log = []

def record(name, v):
    if not isinstance(v, jax.core.Tracer):
        log.append((name, float(v)))

def record_early(v):
    if isinstance(v, Tracer):
        return
    log.append(float(v))

@jax.jit
def flip(key, x):
    s = jax.random.bernoulli(key, 0.5)
    record("flip", s)
    record_early(s)
    return jnp.where(s, x[::-1], x)

flip(jax.random.PRNGKey(0), jnp.arange(3.0))
assert log == []  # the guarded lines never ran under the trace
record("eager", jnp.float32(2.0))
assert log == [("eager", 2.0)]
"""


VMAPPED_FILTER_JIT = """
import jax
import jax.numpy as jnp
import equinox as eqx

class NeuralODE(eqx.Module):
    cell: eqx.nn.GRUCell
    use_recurrence: bool

@eqx.filter_jit
def solve(model, y):
    if model.use_recurrence:
        hidden = jnp.zeros(model.cell.hidden_size)
        return model.cell(y, hidden)
    return y

model = NeuralODE(eqx.nn.GRUCell(3, 4, key=jax.random.PRNGKey(0)), True)
out = jax.vmap(solve, in_axes=(None, 0))(model, jnp.ones((2, 3)))
assert out.shape == (2, 4)
"""


# Cases that run to the end, their own asserts showing what JAX did (a tracer left behind),
# and whose findings are the marked lines.
RUNS_TO_THE_END = {
    # NeuralODE's generate script: `jax.vmap(solve_sde, in_axes=(None, ...))(model, ...)` of
    # an `eqx.filter_jit` function: its body runs under filter_jit, which keeps the module's
    # Python fields (`use_recurrence`, the GRU cell's `hidden_size`) static.
    "a-filter-jit-function-under-vmap-keeps-python-fields-static": VMAPPED_FILTER_JIT,
    # dlfb's dm_pix stand-in: `if not isinstance(v, jax.core.Tracer): float(v)` never runs
    # under a trace, nor does what follows `if isinstance(v, Tracer): return`.
    "code-guarded-by-an-isinstance-tracer-test-does-not-run-traced": TRACER_GUARDED,
    # cyclegan-jax: a dict of flax streams bound once to a key made from a constant seed and
    # handed to `apply(..., rngs=rngs)` in jitted code: every step draws the same masks.
    "a-constant-key-in-a-named-rngs-dict-draws-alike-every-call": CONSTANT_RNGS_DICT,
    # jax#1567: `self.v` on the second line reads the tracer the first line stored in this
    # same trace; the stores are the leaks (JIT202), the read is not a stale value (JIT201).
    "a-static-self-attribute-read-after-this-trace-stored-it-is-not-stale": STATIC_SELF_STORED,
    # mind_the_gaps#78: `for term in self.terms: for name, param in
    # term.parameters.items(): param.value = ...` in a method of an object every
    # constructor call gives a `Spec` (`Model(spec)`, `spec = Spec(...)`): the tracer is
    # stored in the `Param` the static `self` holds, and is still there after the call.
    "a-write-to-an-object-a-static-self-holds-through-a-loop-leaks": HELD_ELEMENT_WRITE,
}


@pytest.mark.parametrize("name", sorted(RUNS_TO_THE_END))
def test_case_runs_to_the_end_with_its_marked_findings(name: str) -> None:
    source = RUNS_TO_THE_END[name]
    got, _ = reported(source)
    assert got == marked(source)
    error, _ = run(source)
    assert error is None


JITTED_ATTRIBUTE_WRITER = """
import jax
import jax.numpy as jnp

class Agent:
    def __init__(self):
        self.q_params = jnp.ones(2)
        self.update_actor = jax.jit(self._update_actor)

    def _update_actor(self, p, x):
        scale = jnp.sum(self.q_params)  # JIT201

        def loss(p):
            return jnp.sum(p * self.q_params * x)  # JIT201

        return jax.grad(loss)(p) * scale

    def learner_step(self, p, x):
        g = self.update_actor(p, x)
        self.q_params = self.q_params + 1.0
        return g

agent = Agent()
first = agent.learner_step(jnp.ones(2), jnp.ones(2))
second = agent.learner_step(jnp.ones(2), jnp.ones(2))
"""


def test_a_writer_that_calls_a_jitted_attribute_and_a_grad_inside_the_trace_read_stale() -> None:
    # sac-jax: `learner_step` calls `self.update_actor`, bound in `__init__` to
    # `jax.jit(self._update_actor)`, then replaces `self.q_params`: it traces before its
    # write, however early the script calls it. The read in the loss given to `jax.grad` on
    # the spot is cached with the jitted method's trace too.
    namespace = linted_and_run(JITTED_ATTRIBUTE_WRITER)
    first, second = namespace["first"], namespace["second"]
    assert float(first[0]) == 2.0  # type: ignore[index]
    assert float(second[0]) == 2.0  # type: ignore[index]  # q_params 1.0 compiled in
    agent = namespace["agent"]
    eager = agent._update_actor(jnp.ones(2), jnp.ones(2))  # type: ignore[attr-defined]
    assert float(eager[0]) == 18.0  # q_params 3.0 now: 3 * (3 + 3)


KEY_THROUGH_A_SELF_CALL = """
from functools import partial
import jax

class Agent:
    def __init__(self):
        self.key = jax.random.key(0)

    @partial(jax.jit, static_argnums=(0,))
    def forward(self, key, logits):
        return jax.random.categorical(key, logits)

    def actions(self, logits):
        return self.forward(self.key, logits)  # JIT502

    def act(self, step, logits):
        return self.actions(logits)

agent = Agent()
logits = jax.numpy.zeros((8, 6))
moves = [agent.act(step, logits) for step in range(4)]
"""


def test_a_method_a_looped_method_calls_on_self_runs_repeatedly() -> None:
    # Lux-Design-S3's agent: the game loop calls `act`, which calls `self.actions`, which
    # hands the key `__init__` stored to the jitted `forward`: every turn samples the same
    # moves for the same logits.
    namespace = linted_and_run(KEY_THROUGH_A_SELF_CALL)
    moves = namespace["moves"]
    assert all(bool((m == moves[0]).all()) for m in moves)  # type: ignore[index, union-attr, attr-defined]
    assert not bool((moves[0] == moves[0][0]).all())  # type: ignore[index]  # a real draw


STATIC_SELF_BUFFERS = """
from functools import partial
import jax
import jax.numpy as jnp

class Controller:
    def __init__(self, horizon):
        self.horizon = horizon
        self._init_buffers()

    def _init_buffers(self):
        self.steps = jnp.arange(self.horizon)

    @partial(jax.jit, static_argnums=0)
    def cost(self, x):
        return jnp.sum(self.steps * x)

ctrl = Controller(3)
first = ctrl.cost(1.0)
OUTPUTS = [first, ctrl.cost(1.0)]
"""


def test_a_static_self_attribute_only_the_constructor_sets_through_a_helper_is_not_stale() -> None:
    # anycar's MPPI controller: `_init_buffers`, called only by `__init__`, sets what the
    # jitted methods read; it runs once per object, before any trace, so nothing goes stale.
    got, _ = reported(STATIC_SELF_BUFFERS)
    assert got == marked(STATIC_SELF_BUFFERS) == set()
    namespace: dict[str, object] = {}
    exec(compile(STATIC_SELF_BUFFERS, "case.py", "exec"), namespace)
    assert [float(v) for v in namespace["OUTPUTS"]] == [3.0, 3.0]  # type: ignore[attr-defined]
    # Called again from outside, the helper changes the field after the trace: the jitted
    # method keeps the old one (3.0 where the new buffers give 10.0), and JIT201 says so.
    again = STATIC_SELF_BUFFERS.replace(
        "        return jnp.sum(self.steps * x)",
        "        return jnp.sum(self.steps * x)  # JIT201",
    ).replace(
        "OUTPUTS = [first, ctrl.cost(1.0)]",
        "ctrl.horizon = 5\nctrl._init_buffers()\nOUTPUTS = [first, ctrl.cost(1.0)]",
    )
    got, _ = reported(again)
    assert got == marked(again) != set()
    namespace = {}
    exec(compile(again, "case.py", "exec"), namespace)
    assert [float(v) for v in namespace["OUTPUTS"]] == [3.0, 3.0]  # type: ignore[attr-defined]


LOOP_DEFINED = """
import jax
import jax.numpy as jnp

scale = 0.0

@jax.jit
def step(x):
    return x * scale

OUTPUTS = []
for i in range(3):
    scale = float(i + 1)

    @jax.jit  # JIT301
    def step(x):
        return x * scale

    OUTPUTS.append(step(jnp.ones(())))
"""


def test_a_function_defined_in_a_loop_reads_the_globals_of_its_own_iteration() -> None:
    # An ensemble Kalman filter script (data_science_utils' enkf.py) defines and jits its
    # update inside the loop that rebinds the globals it reads: each iteration's function is
    # a new object, traced afresh, so it reads that iteration's values (the recompiles are
    # JIT301's finding). The definition before the loop is rebound before anything calls it.
    namespace = linted_and_run(LOOP_DEFINED)
    assert [float(v) for v in namespace["OUTPUTS"]] == [1.0, 2.0, 3.0]  # type: ignore[attr-defined]
    # Rebound after the iteration's first call, the global is stale for the second one.
    again = LOOP_DEFINED.replace(
        "        return x * scale\n\n    OUTPUTS",
        "        return x * scale  # JIT201\n\n"
        "    step(jnp.ones(()))\n    scale = 10.0\n    OUTPUTS",
    )
    got, _ = reported(again)
    assert got == marked(again)
    assert (again.count("JIT201"), again.count("scale = 10.0")) == (1, 1)
    namespace = {}
    exec(compile(again, "case.py", "exec"), namespace)
    assert [float(v) for v in namespace["OUTPUTS"]] == [1.0, 2.0, 3.0]  # type: ignore[attr-defined]


SET_BY_INIT = """
from functools import partial
import jax
import jax.numpy as jnp

class Linear:
    def init(self, key):
        return jax.random.normal(key, (2,))

class Learner:
    def __init__(self, model):
        self.model = model
        self._rate = None

    def init(self, key, rate):
        self._rate = rate
        return self.model.init(key)

    @partial(jax.jit, static_argnums=0)
    def step(self, w):
        return w - self._rate * w

learner = Learner(Linear())
w = learner.init(jax.random.key(0), 0.5)
OUTPUTS = [learner.step(w), learner.step(w)]
"""


def test_a_field_set_by_init_before_the_first_trace_is_not_stale() -> None:
    # jax-meta-learning's MetaLearner: `init` sets the optimizer the jitted step reads, once,
    # before any trace; `self.model.init(key)` inside it calls another object's `init`.
    got, _ = reported(SET_BY_INIT)
    assert got == marked(SET_BY_INIT) == set()
    namespace: dict[str, object] = {}
    exec(compile(SET_BY_INIT, "case.py", "exec"), namespace)
    first, second = namespace["OUTPUTS"]  # type: ignore[misc]
    assert jnp.array_equal(first, second) and not jnp.array_equal(first, 0 * first)
    # `init` called again after the trace (a second run on the same learner) changes the
    # rate the cached trace keeps: then it is stale, and JIT201 says so.
    again = SET_BY_INIT.replace(
        "        return w - self._rate * w", "        return w - self._rate * w  # JIT201"
    ).replace(
        "OUTPUTS = [learner.step(w), learner.step(w)]",
        "OUTPUTS = [learner.step(w)]\nlearner.init(jax.random.key(1), 1.0)\n"
        "OUTPUTS.append(learner.step(w))",
    )
    got, _ = reported(again)
    assert got == marked(again) != set()
    namespace = {}
    exec(compile(again, "case.py", "exec"), namespace)
    first, second = namespace["OUTPUTS"]  # type: ignore[misc]
    assert jnp.array_equal(first, second)  # the new rate 1.0 would give zeros


JIT_INSIDE_JIT = """
import equinox as eqx
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
)

@eqx.filter_jit
def update(ensemble, scale):
    @jax.jit
    def update_point(point):
        return point * scale

    return jax.vmap(update_point)(ensemble)

PER_CALL = []
for step in range(3):
    ensemble, scale = jnp.ones((4, 2)), jnp.float32(step)
    before = len(COMPILES)
    update(ensemble, scale)
    PER_CALL.append(len(COMPILES) - before)
"""


def test_a_jit_made_inside_a_jitted_function_is_not_compiled_per_call() -> None:
    # data_science_utils' enkf_update: a local `@jax.jit` function inside an
    # `eqx.filter_jit` one is made while tracing the outer function, once per compile of
    # it, and traced into its program; calling the outer function again compiles nothing.
    got, _ = reported(JIT_INSIDE_JIT)
    assert got == marked(JIT_INSIDE_JIT) == set()
    namespace: dict[str, object] = {}
    exec(compile(JIT_INSIDE_JIT, "case.py", "exec"), namespace)
    assert namespace["PER_CALL"] == [1, 0, 0]
    # Without the outer jit the function runs eagerly: a new jitted function per call.
    eager = JIT_INSIDE_JIT.replace("@eqx.filter_jit\n", "").replace(
        "    @jax.jit\n", "    @jax.jit  # JIT301\n"
    )
    got, _ = reported(eager)
    assert got == marked(eager) != set()
    namespace = {}
    exec(compile(eager, "case.py", "exec"), namespace)
    assert all(n >= 1 for n in namespace["PER_CALL"])  # type: ignore[attr-defined]


VARIABLE_NAMED_AS_A_METHOD = """
import jax
import jax.numpy as jnp
from jax import lax

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)

class Learner:
    def __init__(self):
        self._outer_loss = jax.jit(self.outer_loss)

    def adapt(self, x):
        def body(c, _):
            return c * 1.01, None
        return lax.scan(body, x, None, length=3)[0]

    def outer_loss(self, x):
        return self.adapt(x).sum()

    def evaluate(self, batches):
        outer_loss = self._outer_loss
        return [outer_loss(b) for b in batches]

learner = Learner()
batches = [jnp.ones(2), jnp.ones(2)]
PER_CALL = []
for epoch in range(3):
    before = len(COMPILES)
    learner.evaluate(batches)
    PER_CALL.append(len(COMPILES) - before)
"""


def test_a_variable_named_as_a_method_does_not_call_the_method_eagerly() -> None:
    # jax-meta-learning's evaluate: `outer_loss = jit(...)`, then `outer_loss(...)` calls the
    # variable, the jitted function, not the method `outer_loss`: the `lax.scan` that method
    # reaches runs inside that jit, compiled with it once, not eagerly on every evaluation.
    got, _ = reported(VARIABLE_NAMED_AS_A_METHOD)
    assert got == marked(VARIABLE_NAMED_AS_A_METHOD) == set()
    namespace: dict[str, object] = {}
    exec(compile(VARIABLE_NAMED_AS_A_METHOD, "case.py", "exec"), namespace)
    assert namespace["PER_CALL"] == [1, 0, 0]


PER_NEXT = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)

class DataLoader:
    def __init__(self, data):
        self.data = data
        self.step = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.step += 1

        @jax.jit  # JIT301
        def sample(i):
            return jnp.roll(self.data, i)[:2]

        return sample(self.step)

loader = iter(DataLoader(jnp.arange(8.0)))
next(loader)
PER_CALL = []
for _ in range(3):
    before = len(COMPILES)
    next(loader)
    PER_CALL.append(len(COMPILES) - before)
"""


def test_a_jit_made_in_next_compiles_once_per_item() -> None:
    # flash-nanoGPT's data loader: a `@jax.jit` function defined in `__next__` is a new
    # object for every batch the `for` loop asks for, so each batch compiles it again.
    namespace = linted_and_run(PER_NEXT)
    assert namespace["PER_CALL"] == [1, 1, 1]


THROUGH_AN_ALIAS = """
from functools import partial
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)

def implicit(x, steps):
    @jax.jit  # JIT301
    def inference_fn(y):
        return y * 0.5

    for _ in range(steps):
        x = inference_fn(x)
    return x

sample_implicit = implicit
sample_fn = partial(sample_implicit, steps=3)
x = jnp.ones(2)
sample_fn(x)
PER_CALL = []
for epoch in range(3):
    before = len(COMPILES)
    sample_fn(x)
    PER_CALL.append(len(COMPILES) - before)
"""


def test_a_function_called_in_a_loop_through_an_alias_runs_repeatedly() -> None:
    # ntg's diffusion sampler: `sample_fn = partial(sample_implicit, ...)`, where
    # `sample_implicit = implicit`, is called every preview epoch; each call of `implicit`
    # jits a new local function, which compiles again.
    namespace = linted_and_run(THROUGH_AN_ALIAS)
    assert namespace["PER_CALL"] == [1, 1, 1]


CONFIGURATION_SWEEP = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)

x = jnp.arange(4.0).reshape(2, 2)
OUTPUTS = []
before = len(COMPILES)
for axis in (0, -1):
    @jax.jit
    def augment(x):
        return jnp.flip(x, axis=axis)

    OUTPUTS.append(augment(x))
COMPILED = len(COMPILES) - before
"""


def test_a_jit_per_configuration_of_a_constant_sweep_is_not_a_recompile() -> None:
    # librosax's DropStripes check: `for axis in (2, -1):` builds and jits one function per
    # configuration; each is a different program (the outputs differ), compiled once.
    got, _ = reported(CONFIGURATION_SWEEP)
    assert got == set()
    namespace: dict[str, object] = {}
    exec(compile(CONFIGURATION_SWEEP, "case.py", "exec"), namespace)
    first, second = namespace["OUTPUTS"]  # type: ignore[misc]
    assert namespace["COMPILED"] == 2 and not jnp.array_equal(first, second)
    # Over `range(...)` the loop repeats the same work: every iteration compiles again.
    again = CONFIGURATION_SWEEP.replace("for axis in (0, -1):", "for axis in range(2):").replace(
        "    @jax.jit\n", "    @jax.jit  # JIT301\n"
    )
    got, _ = reported(again)
    assert got == marked(again) != set()
    # A sweep over flags is one too (optax's lookahead check: `for reset_state in (False,
    # True):`): each configuration compiles once.
    flags = CONFIGURATION_SWEEP.replace("for axis in (0, -1):", "for flip in (False, True):")
    flags = flags.replace("jnp.flip(x, axis=axis)", "jnp.flip(x) if flip else x")
    got, _ = reported(flags)
    assert got == set()
    namespace = {}
    exec(compile(flags, "case.py", "exec"), namespace)
    first, second = namespace["OUTPUTS"]  # type: ignore[misc]
    assert namespace["COMPILED"] <= 2 and not jnp.array_equal(first, second)


EAGER_LOOP_BODY = """
import jax
import jax.numpy as jnp
from jax.lax import fori_loop

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)

def simulate(x):
    def step(t, x):
        return x * 1.01
    for epoch in range(4):
        x = fori_loop(0, 10, step, x)  # JIT301
    return x

PER_CALL = []
for seed in range(3):
    before = len(COMPILES)
    simulate(jnp.ones(3))
    PER_CALL.append(len(COMPILES) - before)
"""


def test_an_eager_loop_body_defined_before_the_loop_compiles_once_per_call() -> None:
    # The local `step` is one object for the four iterations of one call: the eager
    # fori_loop compiles it once per call of `simulate`, not once per iteration.
    got, result = reported(EAGER_LOOP_BODY)
    assert got == marked(EAGER_LOOP_BODY)
    (finding,) = result.findings
    assert "on every call of `simulate`" in finding.message
    namespace: dict[str, object] = {}
    exec(compile(EAGER_LOOP_BODY, "case.py", "exec"), namespace)
    assert namespace["PER_CALL"][1:] == [1, 1]  # type: ignore[index]
    # Jitted where it is defined, the local function's jit is the one finding, at its
    # decorator (the per-call compile is that jit's).
    jitted = EAGER_LOOP_BODY.replace(
        "    def step(t, x):", "    @jax.jit  # JIT301\n    def step(t, x):"
    ).replace("x = fori_loop(0, 10, step, x)  # JIT301", "x = fori_loop(0, 10, step, x)")
    got, _ = reported(jitted)
    assert got == marked(jitted)
    namespace = {}
    exec(compile(jitted, "case.py", "exec"), namespace)
    assert namespace["PER_CALL"][1:] == [1, 1]  # type: ignore[index]


NUMPY_GENERATOR = """
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

rng = np.random.default_rng(0)

@jax.jit
def noisy(x):
    return x + rng.normal(size=x.shape)  # JIT204

@partial(jax.jit, static_argnums=1)
def jittered(x, gen=np.random.default_rng()):
    return jax.tree_util.tree_map(lambda v: v + gen.uniform(size=v.shape), x)  # JIT204

def crop(img):
    rs = np.random.RandomState(0)
    i = rs.randint(0, 4)
    return img[i : i + 2]

OUTPUTS = [noisy(jnp.zeros(2)), noisy(jnp.zeros(2))]
GIVEN = np.random.default_rng(1)
OUTPUTS += [jittered(jnp.zeros(2), GIVEN), jittered(jnp.zeros(2), GIVEN)]
CROPS = [jax.jit(crop)(jnp.arange(8.0)), crop(jnp.arange(8.0)), crop(jnp.arange(8.0))]
"""


def test_a_numpy_generator_in_traced_code_draws_once_and_is_a_hashable_static() -> None:
    # viceroy's tree_uniform: a NumPy Generator, closed over or static, draws while jit
    # traces; every later call returns those numbers again. A Generator is hashable: as a
    # static argument it raises nothing (it is no NumPy array).
    namespace = linted_and_run(NUMPY_GENERATOR)
    first, second, third, fourth = namespace["OUTPUTS"]  # type: ignore[misc]
    assert np.array_equal(first, second) and np.array_equal(third, fourth)
    assert not np.array_equal(first, np.zeros(2))
    # A seeded generator the traced function makes for itself draws the same numbers on
    # every call, jitted or not: nothing is frozen that would differ (the main corpus's
    # `pick_crop`).
    jitted, *eager = namespace["CROPS"]  # type: ignore[misc]
    assert all(np.array_equal(jitted, e) for e in eager)


SELF_FIELD_SUCCESSOR = """
from functools import partial
import jax
import jax.numpy as jnp

class Scaler:
    def __init__(self):
        self.scale = jnp.float32(1.0)

    @partial(jax.jit, static_argnums=0)
    def step(self, x):
        y = x * self.scale  # JIT201
        self.scale, _ = self.scale * 2, None  # JIT202
        return y

scaler = Scaler()
x = jnp.ones(2)
OUTPUTS = [scaler.step(x), scaler.step(x)]
LEAKED = isinstance(scaler.scale, jax.core.Tracer)
"""


def test_a_field_a_jitted_method_unpacks_its_successor_into_is_stale_and_leaked() -> None:
    # tornadox's EnK1: `_, self.prng_key = jax.random.split(self.prng_key)` in a method
    # jitted with `self` static. The tuple target is a write of the field like any other:
    # the read before it keeps the first trace's value, the write stores a tracer, and the
    # read in the same statement is part of that write (JIT202), not a second finding.
    namespace = linted_and_run(SELF_FIELD_SUCCESSOR)
    first, second = namespace["OUTPUTS"]  # type: ignore[misc]
    assert jnp.array_equal(first, second)  # the doubled scale never reaches the program
    assert namespace["LEAKED"] is True


INITIALISED_PER_OBJECT = """
from functools import partial
import jax
import jax.numpy as jnp

class Solver:
    def __init__(self):
        self.E = None

    def initialize(self, n, scale):
        self.E = scale * jnp.eye(n)
        return jnp.ones(n)

    @partial(jax.jit, static_argnums=0)
    def step(self, state):
        return self.E @ state

first = Solver()
state = first.initialize(2, 1.0)
OUTPUTS = [first.step(state), first.step(state)]
second = Solver()
state = second.initialize(2, 3.0)
OUTPUTS.append(second.step(state))
"""


def test_a_field_set_on_each_new_object_before_its_first_trace_is_not_stale() -> None:
    # tornadox's ODE filters: `initialize` sets the projection matrices the jitted
    # `attempt_step` reads, on each solver the script makes, before that solver's first
    # step. A new object is a new static argument (hashed by identity): traced anew.
    got, _ = reported(INITIALISED_PER_OBJECT)
    assert got == marked(INITIALISED_PER_OBJECT) == set()
    namespace: dict[str, object] = {}
    exec(compile(INITIALISED_PER_OBJECT, "case.py", "exec"), namespace)
    a, b, c = namespace["OUTPUTS"]  # type: ignore[misc]
    assert jnp.array_equal(a, b) and jnp.array_equal(c, 3 * a)
    # `initialize` again on the first solver, after its trace: the cached trace keeps the
    # old matrix, and JIT201 says so.
    again = INITIALISED_PER_OBJECT.replace(
        "        return self.E @ state\n", "        return self.E @ state  # JIT201\n"
    ).replace(
        "second = Solver()\nstate = second.initialize(2, 3.0)\nOUTPUTS.append(second.step(state))",
        "state = first.initialize(2, 3.0)\nOUTPUTS.append(first.step(state))",
    )
    got, _ = reported(again)
    assert got == marked(again) != set()
    namespace = {}
    exec(compile(again, "case.py", "exec"), namespace)
    a, b, c = namespace["OUTPUTS"]  # type: ignore[misc]
    assert jnp.array_equal(c, a)  # the new scale 3.0 would triple it


CALLED_AGAIN_BY_THE_SCRIPT = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
)

def sampling(nusd, f0):
    @jax.jit  # JIT301
    def sampling_jax(nusd, f0):
        return jnp.exp(-nusd) @ f0

    return sampling_jax(nusd, f0)

def model(params):
    return sampling(params, params) + 1.0

PER_CALL = []
before = COMPILES.count("jit(sampling_jax)")
model(jnp.ones(3))
PER_CALL.append(COMPILES.count("jit(sampling_jax)") - before)
before = COMPILES.count("jit(sampling_jax)")
model(jnp.ones(3) * 2)
PER_CALL.append(COMPILES.count("jit(sampling_jax)") - before)
"""


def test_a_jit_made_in_what_a_script_calls_twice_compiles_per_call() -> None:
    # exojax's ipgauss_sampling: the notebook calls model_c eagerly again and again; each
    # call reaches a function that jits a local function reading nothing of the call: the
    # same program, compiled again each time.
    namespace = linted_and_run(CALLED_AGAIN_BY_THE_SCRIPT, findings=True)
    assert namespace["PER_CALL"] == [1, 1]
    # A local function built from the call (it reads `scale`) is another program for each
    # configuration the script runs (`check(False)`, `check(True)`): not reported.
    configured = CALLED_AGAIN_BY_THE_SCRIPT.replace(
        "def sampling(nusd, f0):\n    @jax.jit  # JIT301",
        "def sampling(nusd, f0, scale=2.0):\n    @jax.jit",
    ).replace("jnp.exp(-nusd) @ f0", "jnp.exp(-nusd) @ f0 * scale")
    got, _ = reported(configured)
    assert got == marked(configured) == set()


HOST_TABLE = """
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def interpolation_matrix(x):
    matrix = np.zeros((64, 64))
    for i in range(64):
        for j in range(64):
            matrix[i, j] = (i - 1) ** (j % 4)
    return x @ jnp.asarray(matrix)
"""


def test_a_constant_loop_computing_on_the_host_records_nothing_into_the_program() -> None:
    # plenoxels' tricubic_interpolation_matrix: 4,096 NumPy assignments under jit run in
    # Python while tracing; the program holds one matrix product, not 4,096 copies.
    got, _ = reported(HOST_TABLE)
    assert got == marked(HOST_TABLE) == set()
    namespace: dict[str, object] = {}
    exec(compile(HOST_TABLE, "case.py", "exec"), namespace)
    fn = namespace["interpolation_matrix"]
    jaxpr = jax.make_jaxpr(fn)(jnp.ones(64))  # type: ignore[arg-type]
    assert len(jaxpr.jaxpr.eqns) <= 3
    # The same loop updating a JAX array records every iteration: reported.
    traced = (
        HOST_TABLE.replace(
            "    matrix = np.zeros((64, 64))\n", "    matrix = jnp.zeros((64, 64))\n"
        )
        .replace("        for j in range(64):\n", "        for j in range(64):  # JIT303\n")
        .replace("matrix[i, j] = (i - 1) ** (j % 4)", "matrix = matrix.at[i, j].set(x[j])")
    )
    got, _ = reported(traced)
    assert got == marked(traced) != set()


MEMO_CACHE = """
import jax
import jax.numpy as jnp
import numpy as np

_GRIDS = {}

def grid(n):
    if n in _GRIDS:
        return _GRIDS[n]
    g = np.arange(n, dtype=np.float32) - (n / 2.0 - 0.5)
    _GRIDS[n] = g
    return g

@jax.jit
def project(x):
    return x * grid(x.shape[0])

OUTPUTS = [project(jnp.ones(4)), project(jnp.ones(4)), project(jnp.ones(6))]
"""


def test_a_module_cache_only_its_function_fills_is_not_stale() -> None:
    # tomojax's `_build_detector_grid`: a host cache of NumPy grids keyed by the detector's
    # static sizes, read and filled by that function alone. What it holds for a key is what
    # the function computes for that key: a trace reading it keeps nothing stale.
    got, _ = reported(MEMO_CACHE)
    assert got == marked(MEMO_CACHE) == set()
    namespace: dict[str, object] = {}
    exec(compile(MEMO_CACHE, "case.py", "exec"), namespace)
    first, second, third = namespace["OUTPUTS"]  # type: ignore[misc]
    assert jnp.array_equal(first, second)
    assert jnp.array_equal(third, np.arange(6, dtype=np.float32) - 2.5)
    # Changed elsewhere after the trace (`_GRIDS[4] = ...`), the trace keeps the old grid.
    changed = MEMO_CACHE.replace(
        "    if n in _GRIDS:\n        return _GRIDS[n]\n",
        "    if n in _GRIDS:  # JIT201\n        return _GRIDS[n]  # JIT201\n",
    ).replace(
        "OUTPUTS = [project(jnp.ones(4)), project(jnp.ones(4)), project(jnp.ones(6))]",
        "OUTPUTS = [project(jnp.ones(4))]\n_GRIDS[4] = np.zeros(4, dtype=np.float32)\n"
        "OUTPUTS.append(project(jnp.ones(4)))",
    )
    got, _ = reported(changed)
    assert got == marked(changed) != set()
    namespace = {}
    exec(compile(changed, "case.py", "exec"), namespace)
    first, second = namespace["OUTPUTS"]  # type: ignore[misc]
    assert jnp.array_equal(first, second)  # the zeroed grid never reaches the program


BOUND_METHODS_IN_A_LOOP = """
import flax.linen as nn
import equinox as eqx
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)


class Strategy:
    def ask(self, x):
        return x * 2.0


def init_es(n):
    strategy = Strategy()
    return strategy, n


def generations(x):
    strategy, n = init_es(3)
    out = []
    for _ in range(n):
        before = len(COMPILES)
        x = jax.jit(strategy.ask)(x)  # JIT301
        out.append(len(COMPILES) - before)
    return out


x = jnp.ones(2)
model = nn.Dense(2)
params = model.init(jax.random.key(0), x)
FOREIGN = []
for step in range(3):
    before = len(COMPILES)
    y = jax.jit(model.apply)(params, x)  # JIT301
    FOREIGN.append(len(COMPILES) - before)
FILTERED = []
for step in range(3):
    before = len(COMPILES)
    y = eqx.filter_jit(model.apply)(params, x)
    FILTERED.append(len(COMPILES) - before)
UNPACKED = generations(x)
batch = jnp.ones((1, 2))
before = len(COMPILES)
eqx.filter_jit(model.apply)(params, batch)
eqx.filter_jit(model.apply)(params, batch)
FILTERED_TWICE = len(COMPILES) - before
"""


def test_a_bound_method_of_any_class_jitted_in_a_loop_compiles_every_iteration() -> None:
    # behaviour-distillation's generation loop: `jax.jit(strategy.ask)` of a strategy that
    # a helper of the module builds and returns in a tuple, and `jax.jit(model.apply)` of an
    # instance of a class from outside the project (a flax module): each access makes a new
    # bound method, and jit's cache entry dies with it. `eqx.filter_jit` compares the
    # methods, equal for one object, and compiles once.
    namespace = linted_and_run(BOUND_METHODS_IN_A_LOOP, findings=True)
    assert namespace["FOREIGN"] == [1, 1, 1]
    assert namespace["UNPACKED"] == [1, 1, 1]
    assert namespace["FILTERED"] == [1, 0, 0]
    assert namespace["FILTERED_TWICE"] == 1  # the second filtered jit finds the first's cache


INIT_THROUGH_THE_CLASS = """
import jax
import jax.numpy as jnp


class Box:
    def __init__(self, value):
        self.value = value


@jax.jit
def make(x):
    out = Box.__new__(Box)
    Box.__init__(out, x * 2)
    return out.value


OUTPUT = make(jnp.ones(2))
"""


def test_init_called_through_its_class_on_an_object_the_trace_made_writes_nothing_outside() -> None:
    # qutip-jax's `_fast_constructor`: `out = cls.__new__(cls)` then `Data.__init__(out,
    # shape)` builds the object inside the trace, which returns it: the writes reach nothing
    # that outlives the trace. The same `__init__` run on an object made outside leaks.
    got, _ = reported(INIT_THROUGH_THE_CLASS)
    assert got == marked(INIT_THROUGH_THE_CLASS) == set()
    namespace: dict[str, object] = {}
    exec(compile(INIT_THROUGH_THE_CLASS, "case.py", "exec"), namespace)
    assert np.array_equal(namespace["OUTPUT"], np.full(2, 2.0))  # type: ignore[arg-type]
    outside = (
        INIT_THROUGH_THE_CLASS.replace(
            "        self.value = value\n", "        self.value = value  # JIT202\n"
        )
        .replace("    out = Box.__new__(Box)\n", "")
        .replace("OUTPUT = make(jnp.ones(2))", "out = Box.__new__(Box)\nOUTPUT = make(jnp.ones(2))")
    )
    got, _ = reported(outside)
    assert got == marked(outside) != set()
    namespace = {}
    exec(compile(outside, "case.py", "exec"), namespace)
    assert isinstance(namespace["out"].value, jax.core.Tracer)  # type: ignore[attr-defined]


SHADOWED_BY_ITS_JIT = """
from functools import partial
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)


class Agent:
    def __init__(self, alpha):
        self.update = jax.jit(partial(self.update, alpha=alpha))

    @staticmethod
    def update(q, reward, alpha):
        def classic(operands):
            q, reward = operands
            return q + reward

        def weighted(operands):
            q, reward = operands
            return q + alpha * reward

        return jax.lax.cond(alpha == 0, classic, weighted, (q, reward))


agent = Agent(0.5)
q = jnp.zeros(3)
PER_STEP = []
for step in range(3):
    before = len(COMPILES)
    q = agent.update(q, jnp.ones(3))
    PER_STEP.append(len(COMPILES) - before)
"""


def test_a_method_its_object_replaces_with_a_jit_of_itself_runs_traced() -> None:
    # reinforced-lib's agents: `self.update = jax.jit(partial(self.update, ...))` in
    # `__init__` shadows the method, so `agent.update(...)` in the loop calls the jitted
    # function, and the `lax.cond` in the method is traced into it: one compile. Kept a
    # plain method, called eagerly, the cond compiles its new local branches on every call.
    got, _ = reported(SHADOWED_BY_ITS_JIT)
    assert got == marked(SHADOWED_BY_ITS_JIT) == set()
    namespace: dict[str, object] = {}
    exec(compile(SHADOWED_BY_ITS_JIT, "case.py", "exec"), namespace)
    assert namespace["PER_STEP"] == [1, 0, 0]
    eager = (
        SHADOWED_BY_ITS_JIT.replace(
            "        self.update = jax.jit(partial(self.update, alpha=alpha))",
            "        self.alpha = alpha",
        )
        .replace(
            "    q = agent.update(q, jnp.ones(3))",
            "    q = agent.update(q, jnp.ones(3), agent.alpha)",
        )
        .replace(
            "        return jax.lax.cond(alpha == 0, classic, weighted, (q, reward))",
            "        return jax.lax.cond(alpha == 0, classic, weighted, (q, reward))  # JIT301",
        )
    )
    got, _ = reported(eager)
    assert got == marked(eager) != set()
    namespace = {}
    exec(compile(eager, "case.py", "exec"), namespace)
    assert namespace["PER_STEP"][1:] == [1, 1]  # type: ignore[index]


NUMPYRO_FIXED_KEY = """
import jax
import numpyro
import numpyro.distributions as dist

def simulate(key, p):
    return p * jax.random.normal(key, (3,))

def model():
    p = numpyro.sample("p", dist.Uniform(0.5, 1.5))
    numpyro.deterministic("noise", simulate(jax.random.PRNGKey(0), p))  # JIT502
    numpyro.deterministic("direct", jax.random.normal(jax.random.key(1), (2,)))  # JIT502
    numpyro.deterministic("fresh", simulate(numpyro.prng_key(), p))
"""


def test_a_numpyro_model_drawing_from_a_constant_key_draws_alike_in_every_run() -> None:
    # numpyro#1977: numpyro runs the model again for every sample; only its sample sites (and
    # `numpyro.prng_key()`) get new keys from the seed handler, so a draw from a key made
    # from a constant seed is the same in every run, under any seed.
    from numpyro.handlers import seed, trace

    namespace = linted_and_run(NUMPYRO_FIXED_KEY)
    model = namespace["model"]
    runs = [trace(seed(model, s)).get_trace() for s in (0, 1)]
    noise, direct, fresh = (
        [np.asarray(r[site]["value"]) for r in runs] for site in ("noise", "direct", "fresh")
    )
    assert not np.array_equal(*fresh)  # the seed does reach the model
    # the constant keys draw the same numbers under both seeds (`noise` only rescaled by p)
    assert np.array_equal(*direct)
    p = [float(r["p"]["value"]) for r in runs]
    assert np.allclose(noise[0] / p[0], noise[1] / p[1])


CALLED_FROM_A_LOOPED_FUNCTION = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)

def rollout(x, scale):
    step = jax.jit(lambda y: y * 0.5)  # JIT301
    return step(x) * scale

def evaluate(x):
    return rollout(x, 2.0)

@jax.jit
def traced_step(x):
    inner = jax.jit(lambda y: y + 1.0)
    return inner(x)

def also_traced(x):
    return traced_step(x)

PER_CALL = []
def main():
    x = jnp.ones(3)
    evaluate(x)  # the eager operations compile once
    traced_step(x)
    for epoch in range(3):
        before = len(COMPILES)
        evaluate(x)
        PER_CALL.append(len(COMPILES) - before)
        traced_step(x)

main()
"""


def test_a_function_called_by_one_that_runs_repeatedly_runs_repeatedly() -> None:
    # track-mjx#45: the training loop calls `policy_params_fn` once per evaluation, which
    # calls `setup_training_logging`, which jits the rollout environment's methods: a new
    # compile per evaluation. A jitted caller's helper runs once per compile instead.
    namespace = linted_and_run(CALLED_FROM_A_LOOPED_FUNCTION)
    assert namespace["PER_CALL"] == [1, 1, 1]


JIT_INSIDE_A_JITTED_STEP = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)

def loss(params, conds):
    return sum(jnp.sum((params * c) ** 2) for c in conds)

@jax.jit
def update(params, conds):
    grads = jax.jit(jax.grad(loss, 0))(params, conds)
    return params - 0.1 * grads

PER_CALL = []
if __name__ == "__main__":
    params = jnp.ones(3)
    conds = [jnp.ones(3), jnp.arange(3.0)]
    params = update(params, conds)
    for epoch in range(3):
        before = len(COMPILES)
        params = update(params, conds)
        PER_CALL.append(len(COMPILES) - before)
"""


def test_a_jit_inside_a_jitted_step_runs_once_per_compile() -> None:
    # mosi2002's PINN: `jax.jit(jax.grad(loss_fun))` inside the `@jax.jit` update that the
    # training loop calls with a list of boundary arrays. Calling `update` runs its compiled
    # program; its body (and the inner jit) runs only when it is traced, so nothing
    # recompiles, whatever the call hands it.
    got, _ = reported(JIT_INSIDE_A_JITTED_STEP)
    assert got == marked(JIT_INSIDE_A_JITTED_STEP) == set()
    namespace: dict[str, object] = {"__name__": "__main__"}
    exec(compile(JIT_INSIDE_A_JITTED_STEP, "case.py", "exec"), namespace)
    assert namespace["PER_CALL"] == [0, 0, 0]


STALE_THROUGH_A_HELD_OBJECT = """
from functools import partial
import jax
import jax.numpy as jnp

class ActorCritic:
    def __init__(self):
        self.pi_state = jnp.ones(3)

class SAC:
    def __init__(self):
        self.ac = ActorCritic()

    @partial(jax.jit, static_argnums=(0,))
    def loss(self, x):
        return jnp.sum(self.ac.pi_state * x)  # JIT201

    def train(self, x):
        losses = []
        for _ in range(2):
            losses.append(self.loss(x))
            self.ac.pi_state = self.ac.pi_state + 1.0
        return losses

OUTPUTS = SAC().train(jnp.ones(3))
"""


def test_an_attribute_of_an_object_a_static_self_holds_replaced_later_is_stale() -> None:
    # sac-walker: SAC's losses are jitted with `self` static and read
    # `self.ac.pi_state.params`; `train` replaces `self.ac.pi_state` after every update. The
    # object `self.ac` is the same, so the trace cached for `self` keeps the first state.
    namespace = linted_and_run(STALE_THROUGH_A_HELD_OBJECT, findings=True)
    first, second = (float(v) for v in namespace["OUTPUTS"])  # type: ignore[attr-defined]
    assert first == second == 3.0  # fresh, the second loss would be 6.0


STALE_IN_A_NESTED_BODY = """
from functools import partial
import jax
import jax.numpy as jnp

class Agent:
    def __init__(self):
        self.params = jnp.ones(3)

    @partial(jax.jit, static_argnums=(0,))
    def rollout(self, xs):
        def body(c, x):
            return c + jnp.sum(self.params * x), None  # JIT201
        return jax.lax.scan(body, 0.0, xs)[0]

    def train(self, xs):
        returns = []
        for _ in range(2):
            returns.append(self.rollout(xs))
            self.params = self.params + 1.0
        return returns

OUTPUTS = Agent().train(jnp.ones((2, 3)))
"""


def test_a_static_self_read_in_a_scan_body_of_the_jitted_method_is_stale() -> None:
    # JaxStormer's REINFORCE: the scan body nested in the jitted `generate_trajectory` reads
    # `self.policy_state.params`; `train` calls the rollout, then stores the update on `self`.
    # Being called from the module once does not make `train`'s write precede the trace: the
    # trace runs inside it.
    namespace = linted_and_run(STALE_IN_A_NESTED_BODY, findings=True)
    first, second = (float(v) for v in namespace["OUTPUTS"])  # type: ignore[attr-defined]
    assert first == second == 6.0  # fresh, the second rollout would return 12.0


FIXED_KEY_PER_CALL = """
import jax
import jax.numpy as jnp

@jax.jit
def noisy_step(x):
    rng = jax.random.PRNGKey(1234)  # JIT502
    return x + jax.random.normal(rng, x.shape)

def sample(x, key=None):
    if key is None:
        key = jax.random.PRNGKey(0)  # a fallback: callers that pass a key never reach it
    return x + jax.random.normal(key, x.shape)

def simulate(scale):
    key = jax.random.PRNGKey(7)  # the same data for every configuration compared
    return scale * jax.random.normal(key, (3,))

NOISE = []
x = jnp.zeros(3)
for step in range(2):
    NOISE.append(noisy_step(x))
    NOISE.append(sample(x, jax.random.PRNGKey(step)))
RUNS = [simulate(scale) for scale in (1.0, 2.0)]
"""


def test_a_key_made_from_a_constant_seed_in_a_function_run_repeatedly_draws_alike() -> None:
    # maxtext's random routing, a VAE's reparameterisation: a step the loop calls again
    # makes its key from a constant seed, so every call draws the same numbers (compiled in,
    # under jit). A parameter's fallback and a sweep over configurations are left alone.
    namespace = linted_and_run(FIXED_KEY_PER_CALL, findings=True)
    first, passed0, second, passed1 = namespace["NOISE"]  # type: ignore[misc]
    assert jnp.array_equal(first, second)  # the same noise on every step
    assert not jnp.array_equal(passed0, passed1)  # keys the caller passes differ
    low, high = namespace["RUNS"]  # type: ignore[misc]
    assert jnp.allclose(2.0 * low, high)  # each configuration sees the same data, on purpose


def test_a_fixed_key_in_a_tests_repeated_step_is_reproducible_on_purpose() -> None:
    # optax's alias tests: `cond = randint(key(0), ...) == 0` in a step the test calls in a
    # loop, to keep the compiler from folding a branch; tests fix their seeds on purpose.
    case = FIXED_KEY_PER_CALL.replace("@jax.jit\ndef noisy_step", "@jax.jit\ndef test_step")
    case = case.replace("noisy_step(x)", "test_step(x)").replace("  # JIT502", "")
    got, _ = reported(case)
    assert got == marked(case) == set()


BUILT_FROM_AN_OUTER_CALL = """
import jax
import jax.numpy as jnp

def rollout(key, steps, scale):
    def single(key):
        @jax.jit
        def body(i, x):
            return x * scale + i
        return jax.lax.fori_loop(0, steps, body, jax.random.normal(key, (2,)))
    return single(key)

OUTPUTS = [rollout(jax.random.key(0), 3, 0.5), rollout(jax.random.key(0), 3, 2.0)]
"""


def test_a_jit_built_from_an_outer_functions_arguments_is_another_configuration() -> None:
    # jym's tabular rollout: the script calls `tabular_rollout` twice (two seeds, or two
    # configurations); the rollout nested in it jits a loop body that reads the outer call's
    # arguments (`scale` here), so each call's program is its own, as when it reads the
    # nested function's own parameters.
    got, _ = reported(BUILT_FROM_AN_OUTER_CALL)
    assert got == marked(BUILT_FROM_AN_OUTER_CALL) == set()
    namespace: dict[str, object] = {}
    exec(compile(BUILT_FROM_AN_OUTER_CALL, "case.py", "exec"), namespace)
    low, high = namespace["OUTPUTS"]  # type: ignore[misc]
    assert not jnp.allclose(low, high)  # the two programs differ: another configuration each


SWEPT_MAIN = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)

def main(strategy):
    scale = {"es": 2.0, "cma": 3.0}[strategy]

    @jax.jit
    def run(x):
        return x * scale
    return run(jnp.ones(3))

def evaluate(strategy):
    return jax.jit(lambda x: x + 1.0)(jnp.ones(3))  # JIT301

PER_CALL = []
for strategy in ["es", "cma"]:
    main(strategy)
    before = len(COMPILES)
    evaluate(strategy)
    PER_CALL.append(len(COMPILES) - before)
"""


def test_a_function_a_sweep_calls_runs_once_per_configuration() -> None:
    # world-models-jax: `for strategy_name in ["es", "cma", "jax_cma"]: main()`; `main` jits
    # a dream engine built from its own configuration: a program per configuration, not a
    # recompile of the same work. A jit there that reads nothing of the call is the same
    # program made again, as when a script calls the function twice.
    namespace = linted_and_run(SWEPT_MAIN, findings=True)
    assert namespace["PER_CALL"] == [1, 1]  # the same lambda compiled again in each run


REPRODUCED_IN_AN_ASSERT = """
import jax
import jax.numpy as jnp

key_a, key_b = jax.random.split(jax.random.key(42))
sample = jax.random.normal(key_a, (3,))
assert jnp.array_equal(sample, jax.random.normal(key_a, (3,)))  # the same draw, on purpose
other = jax.random.normal(key_b, (3,))
again = jax.random.normal(key_a, (3,))  # JIT502
"""


def test_an_assert_drawing_from_a_used_key_checks_the_draw() -> None:
    # chromax's cross test, a corpus harness checking a key's draw: an `assert` that draws
    # from a key again compares what that draw gives, reproducible on purpose; it neither
    # reports nor counts as a use, so a real second draw after it is still the reuse.
    namespace = linted_and_run(REPRODUCED_IN_AN_ASSERT, findings=True)
    assert jnp.array_equal(namespace["sample"], namespace["again"])  # type: ignore[arg-type]


DEFAULT_KEY = """
import jax
import jax.numpy as jnp

def simulate(x, noise=0.1, key=jax.random.PRNGKey(1)):
    return x + noise * jax.random.normal(key, x.shape)  # JIT502

def measure(x, key=jax.random.PRNGKey(2)):
    return x + jax.random.normal(key, x.shape)  # every call passes its own key

_random_key = jax.random.PRNGKey(712)

def gen_dataset(size, key=_random_key):
    return jax.random.uniform(key, (size,))  # JIT502

X = jnp.zeros(3)
FIRST = simulate(X)
SECOND = simulate(X, noise=0.1)
OWN = [measure(X, jax.random.PRNGKey(3)), measure(X, jax.random.PRNGKey(4))]
EPOCHS = [gen_dataset(4), gen_dataset(4)]
"""


def test_a_default_key_the_module_leaves_out_twice_draws_alike() -> None:
    # dynax's forward_simulation: `key=jr.PRNGKey(1)` is made once, when `def` runs; the
    # script calls it twice without a key, so both "noisy measurements" add the same noise.
    # A default every call overrides is never drawn from. sasde's `key=_random_key`, a
    # module-level key bound once, is the same default: every epoch's dataset is the same.
    namespace = linted_and_run(DEFAULT_KEY, findings=True)
    assert jnp.array_equal(namespace["FIRST"], namespace["SECOND"])  # type: ignore[arg-type]
    own, epochs = namespace["OWN"], namespace["EPOCHS"]
    assert not jnp.array_equal(own[0], own[1])  # type: ignore[index]
    assert jnp.array_equal(epochs[0], epochs[1])  # type: ignore[index]


DEFAULT_KEY_HANDED_ON = """
from functools import partial
import jax
from jax import lax, random

def step(state, _):
    x, key = state
    key, sub = random.split(key)
    x = x + random.normal(sub)
    return (x, key), x

@partial(jax.jit, static_argnums=(0,))
def noise(T, scale=1.0, key=random.PRNGKey(0)):
    _, xs = lax.scan(step, (0.0, key), None, length=T)
    return scale * xs

FIRST = noise(5)
EPISODES = []
for episode in range(3):
    EPISODES.append(noise(5))  # JIT502
OWN = [noise(5, key=k) for k in random.split(random.PRNGKey(1), 2)]
"""


def test_a_jitted_functions_default_key_handed_on_is_the_same_on_every_call() -> None:
    # bcolloran's damped-spring noise (batch 50): the jitted function hands its default key
    # into a scan's carry, whose body splits it; every episode that omits the key gets the
    # first call's noise. JAX's key-reuse checker names the call in the loop (jit consumes
    # its arguments where it is called); the calls that pass their own keys are clean.
    namespace = linted_and_run(DEFAULT_KEY_HANDED_ON, findings=True)
    episodes, own = namespace["EPISODES"], namespace["OWN"]
    assert all(jnp.array_equal(e, namespace["FIRST"]) for e in episodes)  # type: ignore[union-attr,arg-type]
    assert not jnp.array_equal(own[0], own[1])  # type: ignore[index]


KEY_PER_EPOCH = """
import jax
import jax.numpy as jnp
from jax import random

data = jnp.arange(8)

def stream(batch_size):
    while True:
        key = random.PRNGKey(0)  # JIT502
        perm = random.permutation(key, data.shape[0])
        for i in range(0, data.shape[0], batch_size):
            yield data[perm][i:i + batch_size]

def fresh_stream(batch_size, key=random.PRNGKey(0)):
    while True:
        key, sub = random.split(key)
        perm = random.permutation(sub, data.shape[0])
        for i in range(0, data.shape[0], batch_size):
            yield data[perm][i:i + batch_size]

same, fresh = stream(8), fresh_stream(8)
EPOCHS = [next(same), next(same)]
FRESH = [next(fresh), next(fresh)]
"""


def test_a_generator_making_its_key_on_every_pass_shuffles_alike() -> None:
    # mnuhn's MNIST data stream (batch 50): `key = random.PRNGKey(0)` at the top of the
    # generator's `while True` pass gives every epoch the same permutation; a key made once
    # and split per pass gives each epoch its own.
    namespace = linted_and_run(KEY_PER_EPOCH, findings=True)
    epochs, fresh = namespace["EPOCHS"], namespace["FRESH"]
    assert jnp.array_equal(epochs[0], epochs[1])  # type: ignore[index]
    assert not jnp.array_equal(fresh[0], fresh[1])  # type: ignore[index]


CLASS_KEY = """
import jax
import jax.numpy as jnp

class Zone:
    key = jax.random.PRNGKey(1)

    def __init__(self, noise):
        self.noise = noise

    def __call__(self, x):
        return x + self.noise * jax.random.normal(self.key, x.shape)  # JIT502

zone = Zone(0.5)
OUTPUTS = [zone(jnp.zeros(3)) for _ in range(2)]
"""


def test_a_class_attribute_key_drawn_per_call_draws_alike() -> None:
    # dynax's Zone: `key = jr.PRNGKey(1)` in the class body is one key for every instance and
    # every call; `__call__` draws its "measurement noise" from it, so each call adds the same.
    namespace = linted_and_run(CLASS_KEY, findings=True)
    first, second = namespace["OUTPUTS"]  # type: ignore[misc]
    assert jnp.array_equal(first, second) and not jnp.array_equal(first, 0 * first)


COPIED_SPLIT = """
import jax
import jax.numpy as jnp

def init_gru(rng, n):
    k1, k2 = jax.random.split(rng)
    update = (jax.random.normal(k1, (n,)), jax.random.normal(k2, (n,)))
    k1, k2 = jax.random.split(rng)  # JIT502
    reset = (jax.random.normal(k1, (n,)), jax.random.normal(k2, (n,)))
    return update, reset

def summary(rng, n, verbose=True):
    k1, k2 = jax.random.split(rng)
    params = jax.random.normal(k1, (n,)) + jax.random.normal(k2, (n,))
    if verbose:
        k1, k2 = jax.random.split(rng)  # the same keys again, to show what was drawn
        print(jax.random.normal(k1, (n,)).shape)
    return params

UPDATE, RESET = init_gru(jax.random.PRNGKey(0), 3)
"""


def test_a_split_copied_in_one_block_is_a_reuse_and_rederived_in_a_branch_a_reset() -> None:
    # learning-jax's GRU: `k1, k2, k3 = random.split(rng, num=3)` before each gate's weights
    # gives the three gates identical weights. tdmpc2-jax re-derives the same keys under
    # `if verbose:` to print a summary: a reset to what it already drew, on purpose.
    namespace = linted_and_run(COPIED_SPLIT, findings=True)
    update, reset = namespace["UPDATE"], namespace["RESET"]
    assert all(jnp.array_equal(u, r) for u, r in zip(update, reset, strict=True))  # type: ignore[call-overload]


SAMPLE_METHOD = """
import jax
import jax.numpy as jnp

def evaluate(model, key, batches):
    actions = []
    for obs in batches:
        actions.append(model.sample_actions(key, obs))  # JIT502
    return actions

class Policy:
    def sample_actions(self, rng, obs):
        return obs + jax.random.normal(rng, obs.shape)

ACTIONS = evaluate(Policy(), jax.random.PRNGKey(0), [jnp.zeros(3), jnp.zeros(3)])
"""


def test_a_sample_method_given_the_same_key_each_batch_draws_alike() -> None:
    # MultiNet#895: `model.sample_actions(key, observation)` for every evaluation batch with
    # one key: a method named `sample_...` takes the key it draws from first, like
    # numpyro's `dist.sample(key)`; every batch gets the same noise.
    namespace = linted_and_run(SAMPLE_METHOD, findings=True)
    first, second = namespace["ACTIONS"]  # type: ignore[misc]
    assert jnp.array_equal(first, second)


TRANSFORMED_STEP = """
import functools
import jax
import jax.numpy as jnp

def train_step(key, state, batch, lr):
    key, noise_key = jax.random.split(key)
    return state + lr * jax.random.normal(noise_key, batch.shape)

def train(batches):
    key = jax.random.PRNGKey(0)
    step = jax.vmap(functools.partial(train_step, lr=0.1), in_axes=(None, None, 0))
    states = []
    for batch in batches:
        states.append(step(key, 0.0, batch))  # JIT502
    return states

def show(xs):
    key = jax.random.PRNGKey(1)
    jax.vmap(jax.vmap(lambda x: x + jax.random.normal(key)))(xs)
    kept = jax.jit(jax.vmap(functools.partial(train_step, lr=1.0), in_axes=(None, None, 0)))
    kept(key, 0.0, xs)
    out = kept(key, 0.0, xs)
    return out

STATES = train([jnp.zeros((1, 2)), jnp.zeros((1, 2))])
"""


def test_a_step_bound_to_a_transform_of_a_partial_consumes_the_key_it_is_given() -> None:
    # Willis1118's DDPM: `p_train_step = jax.pmap(functools.partial(train_step, ...))` is
    # given the same `training_key` at every step; train_step splits it but never returns
    # it, so every step draws the same timesteps. A transform of a keyword-only partial runs
    # the function with the same positions. A call whose first result is thrown away and
    # whose second is kept is one run that is used, not two draws.
    namespace = linted_and_run(TRANSFORMED_STEP, findings=True)
    first, second = namespace["STATES"]  # type: ignore[misc]
    assert jnp.array_equal(first, second)


COUNTED_DRIVER = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
)

class Env:
    def step(self, state, action):
        return state + action

def evaluate(state):
    env = Env()
    step = jax.jit(env.step)  # JIT301
    for _ in range(3):
        state = step(state, 1.0)
    return state

def fit(state, scale):
    env = Env()
    step = jax.jit(env.step)
    for _ in range(3):
        state = step(state, scale)
    return state

PER_EVAL = []
for epoch in range(3):
    before = len(COMPILES)
    evaluate(jnp.zeros(2))
    PER_EVAL.append(len(COMPILES) - before)
for scale in [jnp.float32(1.0), jnp.float32(2.0)]:
    fit(jnp.zeros(2), scale)
"""


def test_a_driver_called_in_a_counting_loop_compiles_its_jit_on_every_call() -> None:
    # track-mjx's evaluation logger: `jax.jit(rollout_env.step)` built once per evaluation
    # and stepped in its own loop, the evaluation called every epoch: one compile per
    # evaluation, of the same function. A driver called once per value of a sweep (`fit`
    # per scale) builds its jit per configuration, as numpyro's SVI example must.
    namespace = linted_and_run(COUNTED_DRIVER, findings=True)
    assert namespace["PER_EVAL"][1:] == [1, 1]  # type: ignore[index]


DROPOUT_THROUGH_HELPERS = """
import flax.linen as nn
import jax
import jax.numpy as jnp

class Net(nn.Module):
    @nn.compact
    def __call__(self, x, training=True):
        return nn.Dropout(0.5, deterministic=not training)(x)

model = Net()

def compute_loss(params, x, dropout_rng):
    return model.apply(params, x, rngs={"dropout": dropout_rng})

@jax.jit
def train_step(params, x, dropout_rng):
    grad_fn = jax.value_and_grad(lambda p: compute_loss(p, x, dropout_rng).sum())
    return compute_loss(params, x, dropout_rng)

def train_epoch(params, batches, dropout_rng):
    outs = []
    for x in batches:
        outs.append(train_step(params, x, dropout_rng))  # JIT502
    return outs

def evaluate(params, batches, eval_rng):
    scores = []
    for step, x in enumerate(batches):
        if step % 2 == 0:
            scores.append(compute_loss(params, x, eval_rng).sum())
    return scores


PARAMS = model.init(jax.random.PRNGKey(0), jnp.ones(4))
OUTS = train_epoch(PARAMS, [jnp.ones(4), jnp.ones(4)], jax.random.PRNGKey(1))

if __name__ == "__main__":
    def train_step(params, x, dropout_rng):  # a driver's wrapper: the module as imported
        return compute_loss(params, x, dropout_rng)
"""


def test_a_key_reaches_dropout_through_the_modules_helpers_and_generators() -> None:
    # minGPT-reimplemented: `train_epoch` hands one `dropout_rng` to the jitted
    # `train_step`, which hands it through `jax.value_and_grad(compute_loss)` to flax's
    # `apply(..., rngs={"dropout": ...})`: every batch of the epoch gets the same dropout
    # mask. A helper consumes what the helpers it calls consume. An evaluation every k
    # steps on a fixed key is left alone, and a redefinition in the `__main__` block does
    # not change what the module's functions call.
    namespace = linted_and_run(DROPOUT_THROUGH_HELPERS, findings=True)
    first, second = namespace["OUTS"]  # type: ignore[misc]
    assert jnp.array_equal(first == 0, second == 0) and bool((first == 0).any())


NESTED_UNROLL = """
import jax
import jax.numpy as jnp

def grid(a):
    s = a[0]
    for i in range(40):
        for j in range(40):  # JIT303
            s = s + a[(i + j) % 3]
    return s

EQNS = len(jax.make_jaxpr(grid)(jnp.ones(3)).jaxpr.eqns)
GRID = jax.jit(grid)
"""


def test_nested_constant_loops_are_reported_where_the_body_runs_that_many_times() -> None:
    # jax#4436, jax#3134: `for i in range(128): for j in range(128):` unrolls 16,384 copies
    # of the inner body; the loop whose body is copied that many times is the inner one,
    # where the product of the trip counts, counted from outside, reaches the threshold.
    namespace = linted_and_run(NESTED_UNROLL, findings=True)
    assert namespace["EQNS"] >= 40 * 40  # type: ignore[operator]


HAND_WRITTEN_WHILE = """
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnums=(0,))
def solve(f, z, max_iterations):
    def while_loop(cond_fun, body_fun, init_val):
        val = init_val
        while cond_fun(val):
            val = body_fun(val)
        return val

    def cond(carry):
        z, iteration = carry
        if iteration < max_iterations:  # JIT101
            return True
        return False

    def body(carry):
        z, iteration = carry
        return f(z), iteration + 1

    return while_loop(cond, body, (z, 1))

solve(jnp.cos, jnp.float32(1.0), 5)
"""


def test_a_function_handed_to_a_helper_in_traced_code_is_traced_where_it_is_called() -> None:
    # modax's differentiable forward solver: a hand-written `while_loop(cond_fun, body_fun,
    # init)` inside a jitted function calls the condition it is given; the condition
    # compares a Python counter with the traced `max_iterations`, and JAX raises there.
    got, _ = reported(HAND_WRITTEN_WHILE)
    assert got == marked(HAND_WRITTEN_WHILE) != set()
    error, line = run(HAND_WRITTEN_WHILE)
    assert isinstance(error, jax.errors.TracerBoolConversionError)
    assert {(line, "JIT101")} == marked(HAND_WRITTEN_WHILE)


ARRAY_FROM_THE_CALLER = """
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnums=(1,))
def develop(state, probabilities):
    return state * probabilities[0]

def simulate(state, probabilities, steps):
    @jax.jit
    def step(t, state):
        return develop(state, probabilities)  # JIT302
    return jax.lax.fori_loop(0, steps, step, state)

simulate(jnp.ones(3), jnp.array([0.5, 0.2]), 2)
"""


def test_an_array_a_script_passes_reaches_a_static_argument_through_a_closure() -> None:
    # covid19-netsims: `simulate(..., recovery_probabilities, ...)` is given a JAX array,
    # which its jitted `step` hands to `developing_step`'s static position: jit hashes the
    # static argument, and an array cannot be hashed.
    got, _ = reported(ARRAY_FROM_THE_CALLER)
    assert got == marked(ARRAY_FROM_THE_CALLER) != set()
    error, line = run(ARRAY_FROM_THE_CALLER)
    assert isinstance(error, ValueError) and "Non-hashable static arguments" in str(error)
    assert {(line, "JIT302")} == marked(ARRAY_FROM_THE_CALLER)


IMMUTABLE_STATIC = """
from functools import partial
from typing import NamedTuple
import jax
import jax.numpy as jnp

class Fns(NamedTuple):
    scale: float

class Agent:
    def __init__(self):
        self.scale = 1.0

    def anneal(self):
        self.scale = self.scale / 2

@partial(jax.jit, static_argnums=(1,))
def loss(x, fns: Fns):
    return x * fns.scale

agent = Agent()
agent.anneal()
FIRST = loss(jnp.ones(2), Fns(agent.scale))
agent.anneal()
SECOND = loss(jnp.ones(2), Fns(agent.scale))
"""


def test_a_static_namedtuple_argument_cannot_go_stale() -> None:
    # deep_rl_experiments' SAC: `pi_loss(pi, obs, non_grad, fns: SAC_fns)` with `fns`
    # static, a NamedTuple of the networks' functions, while the agent class sets `self.pi`
    # to new parameters. A NamedTuple's fields cannot be set and it hashes by value: a new
    # one with other fields is another cache entry, never a stale trace.
    got, _ = reported(IMMUTABLE_STATIC)
    assert got == marked(IMMUTABLE_STATIC) == set()
    namespace: dict[str, object] = {}
    exec(compile(IMMUTABLE_STATIC, "case.py", "exec"), namespace)
    assert float(namespace["FIRST"][0]) == 0.5 and float(namespace["SECOND"][0]) == 0.25  # type: ignore[index]


PARTIAL_OF_A_METHOD = """
from functools import partial
import jax
import jax.numpy as jnp

class Maml:
    def __init__(self, params):
        self.num_inner_updates = params.get("num_inner_updates")
        self.losses = []

    def task_loss(self, parameters, x):
        for _ in range(self.num_inner_updates):
            parameters = parameters - 0.1 * x
        return jnp.sum(parameters * x)

    def batch_loss(self, parameters, xs):
        return jax.vmap(partial(self.task_loss, parameters))(xs).mean()

    def spread(self, c, xs):
        fitted = jax.vmap(lambda x: jnp.sum(c * x))(xs)
        self.losses.append(fitted.sum())  # JIT202
        return fitted.sum()

    def step(self, parameters, xs):
        return jax.grad(self.batch_loss)(parameters, xs), jax.grad(self.spread)(parameters, xs)

MODEL = Maml({"num_inner_updates": 2})
GRADS = MODEL.step(jnp.ones(2), jnp.ones((3, 2)))
"""


def test_a_partial_of_a_bound_method_binds_after_self() -> None:
    # task_weighted_maml: `vmap(partial(self._maml_loss, parameters))` under
    # `jax.grad(self.batch_maml_loss)`: `parameters` is the argument after `self`, so
    # `self.num_inner_updates` stays the Python int it is and `range` over it runs. And a
    # vmapped lambda closing over a tracer returns a tracer (jax#2332: the loss stored on
    # `self` under grad is a JVP tracer that escapes).
    namespace = linted_and_run(PARTIAL_OF_A_METHOD, findings=True)
    model = namespace["MODEL"]
    assert isinstance(model.losses[0], jax.core.Tracer)  # type: ignore[attr-defined]


LOCAL_FUNCTION_STATIC = """
from functools import partial
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
)

@partial(jax.jit, static_argnums=(1,))
def batch_grad(params, loss_fn, batch):
    return jax.grad(lambda p: jnp.mean(jax.vmap(loss_fn, (None, 0))(p, batch)))(params)

class Agent:
    def __init__(self):
        self.w = jnp.ones(2)
        self.scale = 2.0

    def update(self, batch):
        def loss_agent(params, obs):
            return jnp.sum(params * obs) * self.scale

        self.w = self.w - 0.1 * batch_grad(self.w, loss_agent, batch)  # JIT301

AGENT = Agent()
PER_UPDATE = []
for _ in range(3):
    before = len(COMPILES)
    AGENT.update(jnp.ones((4, 2)))
    PER_UPDATE.append(len(COMPILES) - before)
"""


def test_a_local_function_passed_to_a_static_argument_recompiles_on_every_call() -> None:
    # deep_rl_experiments' SAC `update`: `def q_loss_agent(...)` closing over `self`, handed
    # to `batch_grad`'s static `loss_fn`. A static argument is part of jit's cache key, a
    # function hashes by identity, and each call of `update` defines a new one.
    namespace = linted_and_run(LOCAL_FUNCTION_STATIC, findings=True)
    assert all(n >= 1 for n in namespace["PER_UPDATE"])  # type: ignore[attr-defined]


STATIC_SELF_SPLIT = """
from functools import partial
import jax
import jax.numpy as jnp

class Planner:
    def __init__(self):
        self.key = jax.random.PRNGKey(0)

    @partial(jax.jit, static_argnums=(0,))
    def plan(self, mean):
        key, subkey = jax.random.split(self.key)  # JIT502
        return mean + jax.random.normal(subkey, mean.shape)

PLANNER = Planner()
FIRST = PLANNER.plan(jnp.zeros(3))
SECOND = PLANNER.plan(jnp.ones(3))
"""


def test_a_split_of_a_static_selfs_key_is_the_same_split_every_call() -> None:
    # manipulator_mujoco's CEM planner: `key, subkey = jax.random.split(self.key)` in a
    # method jitted with `self` static, `self.key = PRNGKey(0)` never advanced: the key is
    # compiled in, every MPC step draws the same noise.
    namespace = linted_and_run(STATIC_SELF_SPLIT, findings=True)
    first, second = namespace["FIRST"], namespace["SECOND"]
    assert jnp.allclose(second - first, 1.0)  # type: ignore[operator]


RETURNED_BOUND_JIT = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
)

class Learner:
    def outer_step(self, w, x):
        return w - 0.1 * x

    def fast_outer_step(self):
        return jax.jit(self.outer_step)  # JIT301

    def train(self, w, xs):
        per_step = []
        for x in xs:
            before = len(COMPILES)
            w = self.fast_outer_step()(w, x)
            per_step.append(len(COMPILES) - before)
        return w, per_step

W, PER_STEP = Learner().train(jnp.ones(2), [jnp.ones(2)] * 3)
"""


def test_a_jit_of_a_bound_method_returned_per_step_compiles_every_step() -> None:
    # task_weighted_maml: `fast_outer_training_loop` returns `jit(self.outer_training_loop)`
    # and the training loop calls it every step: a new bound method each time, so jit's
    # cache misses and every step compiles again.
    namespace = linted_and_run(RETURNED_BOUND_JIT, findings=True)
    assert namespace["PER_STEP"][1:] == [1, 1]  # type: ignore[index]


REBUILT_FROM_AUX = """
import jax
import jax.numpy as jnp

class LSTM:
    def __init__(self, hidden_size):
        self._hidden_size = hidden_size
        self._parameters = {"w": jnp.ones((hidden_size, hidden_size))}

    def args(self):
        return (self._hidden_size,)

    def set_parameters(self, parameters):
        self._parameters = parameters

    def step(self, inp):
        hidden = jnp.zeros((inp.shape[0], self._hidden_size))
        return hidden @ self._parameters["w"] + inp

    def reshaped(self, inp):
        return inp.reshape(self._parameters["w"].shape[0], -1)

def _flatten(model):
    return [model._parameters["w"]], model.args()

def _unflatten(args, params):
    model = LSTM(*args)
    model.set_parameters({"w": params[0]})
    return model

jax.tree_util.register_pytree_node(LSTM, _flatten, _unflatten)

@jax.jit
def run(model, inp):
    return model.step(inp), model.reshaped(inp)

OUT = run(LSTM(3), jnp.ones((2, 3)))
"""


def test_what_unflatten_rebuilds_from_the_aux_data_is_static() -> None:
    # ldfrancis's jaxtalk: `register_pytree_node(LSTM, flatten, unflatten)` where unflatten
    # builds `LSTM(*args)` from the auxiliary data and hands the children to a setter: the
    # sizes `__init__` stores are Python values under jit, the parameters are tracers.
    got, _ = reported(REBUILT_FROM_AUX)
    assert got == marked(REBUILT_FROM_AUX) == set()
    namespace: dict[str, object] = {}
    exec(compile(REBUILT_FROM_AUX, "case.py", "exec"), namespace)
    out = namespace["OUT"]
    assert out[0].shape == (2, 3) and out[1].shape == (3, 2)  # type: ignore[index]


NNX_STATIC = """
from functools import partial
import jax
import jax.numpy as jnp
from flax import nnx

class Model(nnx.Module):
    def __init__(self, rngs):
        self.depth = 2

@partial(nnx.jit, static_argnums=1)
def build(x, rngs):
    return x + 1

@partial(jax.jit, static_argnums=1)
def scale(x, model):
    return x * model.depth

@partial(jax.jit, static_argnums=1)
def shift(x, offset):
    return x + offset

OUT = scale(jnp.ones(2), Model(nnx.Rngs(0)))
{call}
"""


@pytest.mark.parametrize(
    "call",
    [
        "build(jnp.ones(2), nnx.Rngs(42))  # JIT302",
        "build(jnp.ones(2), Model(nnx.Rngs(0)))  # JIT302",
        "shift(jnp.ones(2), nnx.Param(jnp.ones(2)))  # JIT302",
        "build(jnp.ones(2), 3)",
    ],
)
def test_a_flax_nnx_graph_node_cannot_be_a_static_argument_of_nnx_jit(call: str) -> None:
    # flax's surgery guide: `partial(nnx.jit, static_argnums=1)` given `nnx.Rngs(42)`.
    # nnx.jit splits a static graph node into graph and state, and the state's NodeStates
    # has no hash, for a module of Python attributes only too; under jax.jit a module hashes
    # by identity (`scale` runs) but an nnx variable does not.
    source = NNX_STATIC.format(call=call)
    got, _ = reported(source)
    assert got == marked(source)
    error, line = run(source)
    if marked(source):
        assert isinstance(error, ValueError) and "Non-hashable static arguments" in str(error)
        assert {(line, "JIT302")} == marked(source)
    else:
        assert error is None


FILTER_JIT_PLAIN_SELF = """
import equinox as eqx
import jax.numpy as jnp

class Trainer:
    def __init__(self):
        self.scale = jnp.ones(2)

    @eqx.filter_jit
    def step(self, x):
        return x * self.scale  # JIT201

    def fit(self, x):
        for _ in range(3):
            x = self.step(x)
            self.scale = self.scale * 2
        return x

OUT = Trainer().fit(jnp.ones(2))
"""


def test_filter_jit_keeps_a_plain_classs_self_static() -> None:
    # quantbayes's RegressionModel: `@eqx.filter_jit def train_step(self, ...)` reads
    # `self.opt_state`, which `fit` stores anew each step. `self` is neither an array nor a
    # pytree, so filter_jit holds it as a static leaf, hashed by identity: the first trace's
    # `self.scale` is compiled in (eagerly the result would be 1 * 2 * 4 = 8).
    namespace = linted_and_run(FILTER_JIT_PLAIN_SELF, findings=True)
    assert [float(v) for v in namespace["OUT"]] == [1.0, 1.0]  # type: ignore[attr-defined]


TRACE_RECORD = """
import jax
import jax.numpy as jnp

traces = []
seen = []

@jax.jit
def step(x):
    traces.append(x.shape)
    seen.append(x)  # JIT202
    return x * 2

for _ in range(3):
    step(jnp.ones(2))
"""


def test_a_list_that_records_traces_is_not_outer_state() -> None:
    # equinox's SpectralNorm test and jaxrl's rollout: `traces.append(inference)` in a
    # jitted function counts its traces on purpose, with Python values; a list of another
    # name that keeps the traced argument holds a leaked tracer.
    namespace = linted_and_run(TRACE_RECORD, findings=True)
    assert namespace["traces"] == [(2,)]
    assert isinstance(namespace["seen"][0], jax.core.Tracer)  # type: ignore[index]


BUILTIN_ALL = """
import jax
import jax.numpy as jnp

@jax.jit
def positive(xs):
    empty = any(d == 0 for d in xs.shape)
    flag = all(xs > 0)  # JIT401
    return xs * flag * (not empty)

OUT = positive(jnp.ones(3))
"""


def test_builtin_all_of_a_traced_array_asks_each_element_for_a_bool() -> None:
    # `all(xs > 0)` iterates over the mask and converts each traced element to a Python bool:
    # TracerBoolConversionError at that line. `any` over Python values stays fine.
    got, _ = reported(BUILTIN_ALL)
    assert got == marked(BUILTIN_ALL) != set()
    error, line = run(BUILTIN_ALL)
    assert isinstance(error, jax.errors.TracerBoolConversionError)
    assert {(line, "JIT401")} == marked(BUILTIN_ALL)


FACTORY_CLOSURE = """
import jax
import jax.numpy as jnp

TRACES = []

def build_metric_fn(scale):
    def metric(params, batch):
        TRACES.append(1)
        return jnp.sum(params * batch) * scale
    return metric

def evaluate(params, batches, scale):
    compute_metric = jax.jit(build_metric_fn(scale))  # JIT301
    return sum(compute_metric(params, b) for b in batches)

def sweep(params, batches):
    for scale in (1.0, 2.0):
        jax.jit(build_metric_fn(scale))(params, batches[0])

def train(params, batches, epochs):
    for epoch in range(epochs):
        evaluate(params, batches, 0.5)

train(jnp.ones(2), [jnp.ones(2)] * 2, 3)
EVALUATED = len(TRACES)
sweep(jnp.ones(2), [jnp.ones(2)])
"""


def test_a_jit_of_what_a_closure_factory_returns_compiles_on_every_call() -> None:
    # learning-jax's `evaluate`, run once per epoch: `jax.jit(build_metric_fn(model, pad))`
    # wraps the new function object each call of the factory returns, so every epoch traces
    # (and compiles) the metric again. A loop over configurations making one function each
    # (`for scale in ...: jax.jit(build_metric_fn(scale))`) compiles once per configuration.
    namespace = linted_and_run(FACTORY_CLOSURE, findings=True)
    assert namespace["EVALUATED"] == 3  # one trace per epoch, not one in all
    assert len(namespace["TRACES"]) == 5  # type: ignore[arg-type]


ELEMENT_TO_A_HELPER = """
import jax
from jax import random

def get_batch(key, n):
    return random.randint(key, (n,), 0, 100)

def estimate(key, iters):
    batches, splits = [], []
    for _ in range(iters):
        key = random.split(key[0])  # JIT502
        splits.append(key)
        batches.append(get_batch(key[0], 4))
    return batches, splits

BATCHES, SPLITS = estimate(random.split(random.PRNGKey(3)), 2)
"""


def test_an_element_of_split_keys_handed_to_a_sampling_helper_is_used_up() -> None:
    # nanogpt-jax's estimate_loss: `get_batch(split, key[0], ...)` draws from `key[0]`, and
    # the next pass splits that same element again, so the first batch's key is the parent
    # of every later key: the helper consumes an element as it consumes a name.
    namespace = linted_and_run(ELEMENT_TO_A_HELPER, findings=True)
    splits, batches = namespace["SPLITS"], namespace["BATCHES"]
    drawn_from = splits[0][0]  # type: ignore[index]
    # the first batch is drawn from `key[0]`, and the second pass splits that same key
    assert jnp.array_equal(batches[0], jax.random.randint(drawn_from, (4,), 0, 100))  # type: ignore[index]
    assert jnp.array_equal(splits[1], jax.random.split(drawn_from))  # type: ignore[index]


PARTIAL_KEY_IN_SCAN = """
from functools import partial
import jax
import jax.numpy as jnp

def env_step(carry, _, action_key, deterministic):
    if deterministic:
        return carry, carry
    noise = jax.random.normal(action_key, carry.shape)  # JIT502
    return carry + noise, noise

def rollout(x, key, deterministic):
    step = partial(env_step, action_key=key, deterministic=deterministic)
    return jax.lax.scan(step, x, None, 3)

def evaluate(x, key):
    return jax.lax.scan(partial(env_step, action_key=key, deterministic=True), x, None, 3)

_, NOISE = jax.jit(rollout, static_argnums=2)(jnp.zeros(2), jax.random.PRNGKey(0), False)
EVALUATED = evaluate(jnp.zeros(2), jax.random.PRNGKey(0))
"""


def test_a_key_bound_into_a_scan_body_by_partial_is_the_same_every_step() -> None:
    # jaxppo: `partial(_env_step_pre_partial, action_key=action_key, ...)` handed to
    # `lax.scan`: the bound key is the same on every step, so every step samples alike. A
    # partial that sets the body's flag so it draws nothing (`deterministic=True`) is left
    # alone.
    namespace = linted_and_run(PARTIAL_KEY_IN_SCAN, findings=True)
    noise = namespace["NOISE"]
    assert all(jnp.array_equal(noise[0], row) for row in noise)  # type: ignore[attr-defined]


SETATTR_IN_INIT = """
import jax
from types import SimpleNamespace

class Trainer:
    def __init__(self, args, key):
        self.key = key
        for k, v in vars(args).items():
            setattr(self, k, v)

    def get_n_k(self):
        n_key, k_key = jax.random.split(self.key, 2)  # JIT502
        return jax.random.randint(n_key, (self.batch_size,), 0, self.max_iters)

trainer = Trainer(SimpleNamespace(max_iters=15, batch_size=4), jax.random.PRNGKey(0))
DRAWS = [trainer.get_n_k() for epoch in range(3)]
"""


def test_a_key_only_the_constructor_binds_stays_one_key_despite_setattr_there() -> None:
    # ReAct_Jax's Trainer: `setattr(self, k, v)` for every argument runs in `__init__`,
    # once, as the object is made, so `self.key` is still bound only then: every epoch's
    # `get_n_k` splits the same key and draws the same numbers.
    namespace = linted_and_run(SETATTR_IN_INIT, findings=True)
    draws = namespace["DRAWS"]
    assert all(jnp.array_equal(draws[0], d) for d in draws)  # type: ignore[index,attr-defined]


CONFIGURED_AFTER_CONSTRUCTION = """
import equinox as eqx
import jax
import jax.numpy as jnp

class Loader:
    def __init__(self, data):
        self.data = data
        self.batch_size = 1
        self.scale = 1.0

    def get_batch(self, key):
        ix = jax.random.randint(key, (self.batch_size,), 0, 4)
        return self.data[ix] * self.scale  # JIT201

def train(data):
    loader = Loader(data)
    loader.batch_size = 2  # finishes making the loader: nothing has read it yet
    get = eqx.filter_jit(loader.get_batch)
    first = get(jax.random.PRNGKey(0))
    loader.scale = 10.0  # after a trace: the compiled batch keeps 1.0
    return first, get(jax.random.PRNGKey(0)), loader.get_batch(jax.random.PRNGKey(0))

FIRST, AGAIN, EAGER = train(jnp.arange(4.0))
"""


def test_a_write_that_finishes_making_an_object_is_seen_by_every_trace() -> None:
    # llm_study: `data_loader = TransformerDataLoader(encoding)`, then `data_loader.batch_size
    # = batch_size` before anything reads the loader: what every trace of its methods sees,
    # as if its constructor had set it. A write after a trace (`loader.scale`) is stale.
    namespace = linted_and_run(CONFIGURED_AFTER_CONSTRUCTION, findings=True)
    first, again, eager = (namespace[k] for k in ("FIRST", "AGAIN", "EAGER"))
    assert first.shape == (2,)  # type: ignore[attr-defined]
    assert jnp.array_equal(first, again)  # type: ignore[arg-type]
    assert jnp.array_equal(eager, 10.0 * first)  # type: ignore[operator]


SELF_HANDED_TO_A_MAPPED_FUNCTION = """
from functools import partial
import jax
import jax.numpy as jnp

class Pipeline:
    def _generate(self, x, guidance_scale):
        do_guidance = guidance_scale > 1.0
        if do_guidance:  # JIT101
            return x * guidance_scale
        return x

    def __call__(self, x, guidance_scale):
        return _p_generate(self, x, guidance_scale)

@partial(jax.jit, static_argnums=0)
def _p_generate(pipe, x, guidance_scale):
    return pipe._generate(x, guidance_scale)

Pipeline()(jnp.ones(2), jnp.float32(7.5))
"""


def test_a_method_reached_through_the_self_a_method_hands_to_a_jitted_function() -> None:
    # diffusers#2553: `_p_generate(self, prompt_ids, ..., guidance_scale, ...)` in the
    # pipeline's `__call__`, with `_p_generate` mapped and `pipe` static: `pipe` is that
    # pipeline, so `pipe._generate(...)` is followed with the traced scale.
    got, _ = reported(SELF_HANDED_TO_A_MAPPED_FUNCTION)
    assert got == marked(SELF_HANDED_TO_A_MAPPED_FUNCTION) != set()
    error, line = run(SELF_HANDED_TO_A_MAPPED_FUNCTION)
    assert isinstance(error, jax.errors.TracerBoolConversionError)
    assert (line, "JIT101") in got


USED_KEY_IN_THE_INITIAL_CARRY = """
import jax
import jax.numpy as jnp

def swarm(key, steps):
    init_x = jax.random.uniform(key, (4,))

    def body(state, _):
        key, x = state
        r = jax.random.uniform(key, (4,))  # JIT502
        key, _ = jax.random.split(key)  # JIT502
        return (key, x + r), r

    _, rs = jax.lax.scan(body, (key, init_x), None, steps)
    return init_x, rs

INIT, RS = swarm(jax.random.PRNGKey(0), 3)
"""


def test_a_used_key_handed_to_a_scan_in_its_initial_carry_is_drawn_again() -> None:
    # psox's particle swarm: `init_X = uniform(key, ...)`, then `lax.scan(body, [key,
    # init_X, ...])`, whose body unpacks `key, X, ... = state` and draws from `key` first:
    # step 0 draws exactly `init_X` again. (numpyro's HurdleProbs does the same through a
    # while loop; JAX's key-reuse checker raises there.)
    namespace = linted_and_run(USED_KEY_IN_THE_INITIAL_CARRY, findings=True)
    assert jnp.array_equal(namespace["INIT"], namespace["RS"][0])  # type: ignore[index]


KEY_INTO_COND_BRANCHES = """
import jax
import jax.numpy as jnp

def mutate(net, key):
    k1, k2 = jax.random.split(key)
    return net + jax.random.normal(k1, net.shape)

def add_node(net, key):
    flag = jax.random.uniform(key) < 0.5
    return jax.lax.cond(flag, lambda _: mutate(net, key), lambda _: net, operand=None)  # JIT502

def mutate_activation(net, key):
    def _mutate(val):
        k, n = val
        return mutate(n, k)

    def _skip(val):
        return val[1]

    flag = jax.random.uniform(key) < 0.5
    return jax.lax.cond(flag, _mutate, _skip, operand=(key, net))  # JIT502

def fresh(net, key):
    coin_key, key = jax.random.split(key)
    flag = jax.random.uniform(coin_key) < 0.5
    return jax.lax.cond(flag, lambda _: mutate(net, key), lambda _: net, operand=None)
"""


@pytest.mark.parametrize("name", ["add_node", "mutate_activation"])
def test_a_key_drawn_from_then_handed_to_a_cond_branch_is_drawn_again(name: str) -> None:
    # neat-jax's mutations: the coin `uniform(key) < rate` decides, then the branch the cond
    # runs (a lambda calling `_mutate_fn(net, key, ...)`, or a function given the key in its
    # operand) splits that same key: JAX's key-reuse checker raises KeyReuseError.
    namespace = linted_and_run(KEY_INTO_COND_BRANCHES, findings=True)
    with jax.debug_key_reuse(True):
        namespace["fresh"](jnp.zeros(2), jax.random.key(0))  # type: ignore[operator]
        with pytest.raises(jax.errors.KeyReuseError):
            namespace[name](jnp.zeros(2), jax.random.key(0))  # type: ignore[operator]


RETURNED_CLOSURE_JITS_A_LAMBDA = """
import jax
import jax.numpy as jnp

TRACES = []

class Calculator:
    def __init__(self, jit):
        self._jit = jit
        self._displacement, self._properties = self._initialize()

    def _initialize(self):
        def displacement(a, b):
            return a - b

        def compute(R):
            energy = lambda R: TRACES.append(1) or jnp.sum(R ** 2)
            if self._jit: energy = jax.jit(energy)  # JIT301
            return energy(R)

        return displacement, compute

    def calculate(self, R):
        return self._properties(R)

calc = Calculator(True)
for _ in range(3):
    calc.calculate(jnp.ones(3))
assert len(TRACES) == 3  # traced again on every calculate()
"""


def test_a_jit_in_a_closure_a_method_returns_and_the_object_calls_per_step() -> None:
    # gknet-benchmarks: `_initialize_potential` defines `compute_properties`, which jits
    # fresh lambdas (`energy = lambda ...`, then `if self._jit: energy = jit(energy)`), and
    # returns it; `__init__` stores it as `self._properties_fn`, and every `calculate()`
    # calls it, so every call traces again.
    got, _ = reported(RETURNED_CLOSURE_JITS_A_LAMBDA)
    assert got == marked(RETURNED_CLOSURE_JITS_A_LAMBDA) != set()
    error, _ = run(RETURNED_CLOSURE_JITS_A_LAMBDA)
    assert error is None


METHOD_DEFAULT_KEY = """
import jax
import numpyro
import numpyro.distributions as dist
from numpyro import infer

class BaseFitter:
    def sample(self, num_samples=20, rkey=jax.random.PRNGKey(3)):
        mcmc = infer.MCMC(infer.NUTS(self.model), num_warmup=20, num_samples=num_samples,
                          progress_bar=False)
        mcmc.run(rkey)  # JIT502
        return mcmc.get_samples()

class FitSingle(BaseFitter):
    def model(self):
        numpyro.sample("flux", dist.Normal(0.0, 1.0))

fitter = FitSingle()
FIRST = fitter.sample()
SECOND = fitter.sample()
"""


def test_a_method_default_key_left_out_twice_draws_alike() -> None:
    # pysersic#48: `def sample(self, ..., rkey=jax.random.PRNGKey(3))`, run twice without a
    # key on a fitter of a derived class: both runs return the same draws. The default
    # shows `rkey` is a key, however it is spelled, and `mcmc.run(rkey)` draws from it.
    namespace = linted_and_run(METHOD_DEFAULT_KEY, findings=True)
    first, second = namespace["FIRST"], namespace["SECOND"]
    assert jnp.array_equal(first["flux"], second["flux"])  # type: ignore[index]


CONSTRUCTED_IN_A_LOOP = """
import jax
import jax.numpy as jnp

TRACES = []

class Kernel:
    @staticmethod
    def build(sigma):
        @jax.jit  # JIT301
        def k_matrix(x):
            TRACES.append(1)
            return jnp.exp(-jnp.sum((x[:, None] - x[None]) ** 2, -1) / sigma)

        k_matrix(jnp.zeros((2, 1)))  # warm up
        return k_matrix

class SVM:
    def __init__(self, sigma):
        self.k_matrix = Kernel.build(sigma)

for pair in range(3):
    SVM(2.0)
assert len(TRACES) == 3  # one trace per SVM
"""


def test_a_constructor_run_in_a_loop_runs_the_static_methods_it_calls_repeatedly() -> None:
    # j-svm: every `SupportVectorMachine(...)` of a one-vs-one loop runs its `__init__`,
    # which calls `Kernel.build_fast_jit_function(...)`, a static method that defines and
    # jits its helpers: each SVM traces them again.
    error, _ = run(CONSTRUCTED_IN_A_LOOP)
    assert error is None
    got, _ = reported(CONSTRUCTED_IN_A_LOOP)
    assert got == marked(CONSTRUCTED_IN_A_LOOP) != set()


STORED_SEED_PER_ITEM = """
import jax

class OptionDataSet:
    def __init__(self, seed):
        self.seed = seed

    def __iter__(self):
        return self

    def __next__(self):
        batch = []
        for op in range(3):
            rng = jax.random.PRNGKey(self.seed)  # JIT502
            rng, key = jax.random.split(rng)
            batch.append(jax.random.normal(key, (2,)))
        return batch

BATCH = next(OptionDataSet(0))
"""


def test_a_key_made_per_item_from_a_seed_the_object_keeps_draws_alike() -> None:
    # Applied-Finance-Project's OptionDataSet: `rng = jax.random.PRNGKey(self.seed)` for
    # every sample of every batch, `self.seed` set once in `__init__`, then `rng, key =
    # split(rng)`: every sample is priced on the same paths.
    namespace = linted_and_run(STORED_SEED_PER_ITEM, findings=True)
    batch = namespace["BATCH"]
    assert all(jnp.array_equal(batch[0], b) for b in batch)  # type: ignore[index,attr-defined]


KEY_NAMED_FOR_ITS_USE = """
import jax

def rollout(rng_agent, steps):
    actions = []
    for _ in range(steps):
        rng_agent, key = jax.random.split(rng_agent)
        actions.append(jax.random.normal(key))
    return actions

def rollouts(rng_agent, n_rollouts):
    runs = []
    for _ in range(n_rollouts):
        runs.append(rollout(rng_agent, 3))  # JIT502
    return runs

RUNS = rollouts(jax.random.PRNGKey(0), 3)
"""


@pytest.mark.parametrize("name", ["rng_agent", "prng_env"])
def test_a_key_named_for_its_use_handed_to_a_helper_per_iteration_draws_alike(name: str) -> None:
    # ajents: `rollouts` hands the same `rng_agent` to `rollout` for every rollout, and
    # `rollout` splits it as its first step: every rollout takes the same actions. A name
    # `rng_<use>` is spelled like a key.
    source = KEY_NAMED_FOR_ITS_USE.replace("rng_agent", name)
    namespace = linted_and_run(source, findings=True)
    runs = namespace["RUNS"]
    assert all(jnp.array_equal(jnp.stack(runs[0]), jnp.stack(r)) for r in runs)  # type: ignore[attr-defined,index]


STORED_PER_CALL = """
import jax
import jax.numpy as jnp

TRACES = []

class SampledObs:
    def __init__(self, data):
        self._data = data

    def mean(self):
        self.jit_my_stuff()
        return self._mean_helper(self._data)

    def jit_my_stuff(self):
        self._mean_helper = jax.jit(lambda d: TRACES.append(1) or jnp.mean(d))  # JIT301

def statistics(obs):
    return obs.mean()

OBS = SampledObs(jnp.ones(3))
statistics(OBS)
statistics(OBS)
"""

STORED_ONCE = STORED_PER_CALL.replace(
    "        self._mean_helper = jax.jit(lambda d: TRACES.append(1) or jnp.mean(d))  # JIT301",
    "        if self.__dict__.get('_mean_helper') is None:\n"
    "            self._mean_helper = jax.jit(lambda d: TRACES.append(1) or jnp.mean(d))",
)


@pytest.mark.parametrize(("source", "traces"), [(STORED_PER_CALL, 2), (STORED_ONCE, 1)])
def test_a_jit_a_method_stores_on_self_per_call_traces_per_call(source: str, traces: int) -> None:
    # jVMC's SampledObs: `jit_my_stuff`, run by every statistic, stores new pmapped lambdas
    # on `self`, which the statistic then calls: each call traces them again. Stored only
    # under a test of the attribute, the first jit is kept and traced once.
    namespace = linted_and_run(source)
    assert len(namespace["TRACES"]) == traces  # type: ignore[arg-type]


INDEXED_STATIC = """
from functools import partial

import jax
import numpy as np

@partial(jax.jit, static_argnums=(2,))
def sample_development(key, state, recovery_probabilities):
    key, subkey = jax.random.split(key)
    recovered = jax.random.bernoulli(subkey, recovery_probabilities[state])
    return key, state + recovered

@partial(jax.jit, static_argnums=(2,))
def developing_step(key, state, recovery_probabilities):
    return sample_development(key, state, recovery_probabilities)  # JIT302

developing_step(jax.random.PRNGKey(0), np.zeros(3, int), np.array([0.5, 0.2]))  # JIT302
"""

REBOUND_STATIC = """
from functools import partial

import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnames=("bins",))
def histogram(x, bins):
    bins = jnp.linspace(0.0, 1.0, bins + 1)
    cut = jnp.argmax(x)
    return bins[:3] + bins[cut]

histogram(jnp.ones(4), bins=4)
"""


def test_a_static_parameter_indexed_with_a_traced_value_must_be_an_unhashable_array() -> None:
    # covid19-netsims#13: `recovery_probabilities[state]` in a function that makes it static:
    # only an array can be indexed by the traced `state`, and handing one to a static
    # position raises, at the outer call and, inside its trace, at the call it hands it on
    # to. A static parameter the function rebinds first (pmwd's `bins`) is not that value.
    error, _ = run(INDEXED_STATIC)
    assert isinstance(error, ValueError) and "Non-hashable static arguments" in str(error)
    got, _ = reported(INDEXED_STATIC)
    assert got == marked(INDEXED_STATIC) != set()
    linted_and_run(REBOUND_STATIC)


MEMBER_OF_A_MEMBER = """
from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

class Actor(nn.Module):
    @nn.compact
    def __call__(self, x):
        noise = np.random.randint(0, 100000)  # JIT204
        return nn.Dense(2)(x) + noise

class ActorCritic:
    def __init__(self):
        self.pi = Actor()

class SAC:
    def __init__(self, ac):
        self.ac = ac

    @partial(jax.jit, static_argnums=(0,))
    def act(self, params, x):
        return self.ac.pi.apply(params, x)

ac = ActorCritic()
sac = SAC(ac)
params = ac.pi.init(jax.random.key(0), jnp.ones(3))
FIRST = sac.act(params, jnp.ones(3))
SECOND = sac.act(params, jnp.ones(3))
"""


def test_a_module_reached_through_a_member_of_a_member_is_traced() -> None:
    # sac-walker: a jitted loss calls `self.ac.pi.apply(...)`, `ac` an ActorCritic whose
    # `pi` is a flax module: its `__call__` runs in the trace, and the NumPy draw there is
    # made once, at trace time (both calls return the same values).
    namespace = linted_and_run(MEMBER_OF_A_MEMBER, findings=True)
    assert jnp.array_equal(namespace["FIRST"], namespace["SECOND"])  # type: ignore[arg-type]


NUMPY_SAMPLER_TRACED_BOUND = """
import jax
import numpy as np

@jax.jit
def tree_uniform(tree, low, high):
    return jax.tree_util.tree_map(
        lambda x: np.random.uniform(low=low, high=high, size=x.shape),  # JIT204  # JIT402
        tree,
    )

try:
    tree_uniform({"w": np.ones(3)}, -1e-2, 1e-2)
except jax.errors.TracerArrayConversionError:
    RAISED = True
"""


def test_a_numpy_sampler_given_a_traced_bound_converts_it() -> None:
    # ymirlib's tree_uniform: `np.random.uniform(low=low, high=high, size=x.shape)` with
    # `low`/`high` traced: NumPy converts them, and JAX raises TracerArrayConversionError.
    namespace = linted_and_run(NUMPY_SAMPLER_TRACED_BOUND, findings=True)
    assert namespace["RAISED"] is True


FLAX_RNGS_THEN_SPLIT = """
import flax.linen as nn
import jax
import jax.numpy as jnp

class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dropout(0.5, deterministic=False)(nn.Dense(4)(x))

net = Net()
x = jnp.ones((2, 4))
params = net.init({"params": jax.random.key(1), "dropout": jax.random.key(2)}, x)

def loss(params, rng):
    first = net.apply(params, x, rngs={"dropout": rng}).sum()

    def body(i, val):
        total, rng = val
        rng, sub = jax.random.split(rng)
        return total + net.apply(params, x, rngs={"dropout": sub}).sum(), rng

    return jax.lax.fori_loop(0, 3, body, (first, rng))[0]

def twice(params, rng):
    a = net.apply(params, x, rngs={"dropout": rng})
    b = net.apply(params, x, rngs={"dropout": rng})  # JIT502
    return a, b

with jax.debug_key_reuse(True):
    jax.jit(loss)(params, jax.random.key(0))
A, B = twice(params, jax.random.key(3))
"""


def test_a_key_given_to_flax_rngs_then_split_is_not_reused() -> None:
    # point-cloud-galaxy-diffusion's elbo: `apply(..., rngs={"sample": rng})`, then `rng`
    # carried into a fori_loop whose body splits it. flax derives the stream's keys with
    # fold_in, independent of a split (JAX's key-reuse checker accepts it); the same key
    # given to flax twice derives the same dropout mask.
    namespace = linted_and_run(FLAX_RNGS_THEN_SPLIT, findings=True)
    assert jnp.array_equal(namespace["A"], namespace["B"])  # type: ignore[arg-type]


HANDED_TO_A_LOOP = """
import functools

import jax
import jax.numpy as jnp

TRACES = []

def loss(w, x, scale):
    TRACES.append(1)
    return jnp.sum(w * x) * scale

def train_step_jit(w, x):
    loss_fn = functools.partial(loss, scale=x.shape[0])
    loss_fn = jax.jit(jax.value_and_grad(loss_fn))  # JIT301
    return loss_fn(w, x)

def benchmark(train_step_fn, num_steps):
    for _ in range(num_steps):
        train_step_fn(jnp.ones(3), jnp.ones(3))

benchmark(train_step_jit, 3)
"""


def test_a_function_handed_to_a_loop_that_calls_it_runs_repeatedly() -> None:
    # jeometric's benchmark: `benchmark(train_step_jit, num_steps)` calls its parameter in
    # a loop, and train_step_jit jits a new `partial` on every call: one trace per step,
    # though every batch has the same shapes.
    namespace = linted_and_run(HANDED_TO_A_LOOP, findings=True)
    assert len(namespace["TRACES"]) == 3  # type: ignore[arg-type]


STORED_KEY_TO_A_JITTED_ATTRIBUTE = """
import jax
import jax.numpy as jnp

class Solver:
    def __init__(self):
        self.master_key = jax.random.PRNGKey(420)
        self.jit_step = jax.jit(self.step)

    def step(self, state, key):
        return state + jax.random.normal(key, state.shape)

    def compute_control_action(self, state):
        return self.jit_step(state, self.master_key)  # JIT502

solver = Solver()
ACTIONS = [solver.compute_control_action(jnp.zeros(2)) for _ in range(3)]
"""


def test_a_stored_key_handed_to_a_jitted_method_attribute_draws_alike() -> None:
    # sbmpc: `self.master_key = PRNGKey(420)` in `__init__`, handed at every control step
    # to `self.jit_compute_control_mppi`, bound there to `jax.jit(self.compute_control_mppi)`
    # whose MPPI sampling draws from it: every step samples the same noise.
    namespace = linted_and_run(STORED_KEY_TO_A_JITTED_ATTRIBUTE, findings=True)
    actions = namespace["ACTIONS"]
    assert all(jnp.array_equal(actions[0], a) for a in actions)  # type: ignore[attr-defined]


KEY_DRAWN_BY_TWO_METHODS = """
import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import Predictive

def model(x):
    numpyro.sample("y", dist.Normal(x, 1.0))

class Handler:
    def __init__(self, seed):
        self.rng_key, self.rng_key_ = jax.random.split(jax.random.PRNGKey(seed))

    def get_prior(self, x):
        predictive = Predictive(model, num_samples=2)
        return predictive(self.rng_key_, x)["y"]

    def get_posterior_predictive(self, x):
        predictive = Predictive(model, num_samples=2)
        return predictive(self.rng_key_, x + 1.0)["y"]  # JIT502

handler = Handler(0)
PRIOR = handler.get_prior(jnp.zeros(3))
POSTERIOR = handler.get_posterior_predictive(jnp.zeros(3))
"""


def test_a_stored_key_drawn_by_two_methods_gives_both_the_same_numbers() -> None:
    # numgp's NutsHandler: `self.rng_key_` split once in `__init__` and handed, never
    # advanced, to the prior predictive, to MCMC.run and to the posterior predictive: the
    # second method to draw from it gets the first one's numbers.
    namespace = linted_and_run(KEY_DRAWN_BY_TWO_METHODS, findings=True)
    prior, posterior = namespace["PRIOR"], namespace["POSTERIOR"]
    assert jnp.allclose(prior + 1.0, posterior)  # type: ignore[operator]


KEY_CLOSED_OVER_BY_A_VMAPPED_LAMBDA = """
import jax
import jax.numpy as jnp

def sample(key, means, covs):
    return jax.vmap(lambda mean, cov: jax.random.multivariate_normal(key, mean, cov))(  # JIT502
        means, covs
    )

def sample_fixed(key, means, covs):
    keys = jax.random.split(key, means.shape[0])
    return jax.vmap(lambda k, mean, cov: jax.random.multivariate_normal(k, mean, cov))(
        keys, means, covs
    )

MEANS, COVS = jnp.zeros((4, 2)), jnp.tile(jnp.eye(2), (4, 1, 1))
SAME = sample(jax.random.PRNGKey(0), MEANS, COVS)
FIXED = sample_fixed(jax.random.PRNGKey(0), MEANS, COVS)
"""


def test_a_key_a_vmapped_lambda_closes_over_draws_alike_per_element() -> None:
    # CoVO-MPC#19: the MPPI controller's `jax.vmap(lambda mean, cov: multivariate_normal(key,
    # mean, cov))` over the horizon: every step gets the same noise. The fix maps over
    # split keys.
    namespace = linted_and_run(KEY_CLOSED_OVER_BY_A_VMAPPED_LAMBDA, findings=True)
    same, fixed = namespace["SAME"], namespace["FIXED"]
    assert all(jnp.array_equal(same[0], row) for row in same)  # type: ignore[attr-defined,index]
    assert not jnp.array_equal(fixed[0], fixed[1])  # type: ignore[index]


HANDED_OUT_PER_OBJECT = """
import jax
import jax.numpy as jnp

TRACES = []

def update(scale):
    @jax.jit  # JIT301
    def _apply(x):
        TRACES.append(1)
        return x * scale

    return _apply

class Client:
    def __init__(self, scale):
        self.update = update(scale)

clients = []
for i in range(4):
    clients.append(Client(2.0))
OUTPUTS = [c.update(jnp.ones(3)) for c in clients]
"""


def test_a_jit_a_function_built_in_a_loop_hands_out_compiles_per_object() -> None:
    # ymir's `update(opt, loss)`, run by each client's constructor in the experiment's loop:
    # it returns a new jitted `_apply`, and every client's first step traces it again.
    namespace = linted_and_run(HANDED_OUT_PER_OBJECT, findings=True)
    assert len(namespace["TRACES"]) == 4  # type: ignore[arg-type]
    # Built in a sweep over a few configurations, each jitted function is another program.
    swept = HANDED_OUT_PER_OBJECT.replace("for i in range(4):", "for i in (1, 2, 3, 4):")
    swept = swept.replace("  # JIT301", "")
    got, _ = reported(swept)
    assert got == marked(swept) == set()


LAMBDA_NAMED_LIKE_A_FACTORY = """
import jax
import jax.numpy as jnp

TRACES = []

def _method():
    def f(n):
        @jax.jit
        def inner(ts):
            TRACES.append(1)
            return ts * n

        return inner

    return f

make = _method()
solve = make(2.0)

def evaluate(sizes):
    out = []
    for size in range(sizes):
        f = lambda: solve(jnp.ones(3))
        out.append(f())
    return out

OUTPUTS = evaluate(3)
"""


def test_a_local_lambda_named_like_a_function_is_not_that_function() -> None:
    # pof's benchmark: `f = lambda: method(ts)` then `f()` in the loop calls the lambda,
    # not the factory's inner `def f(ivp)`, which the script calls once: one trace.
    namespace = linted_and_run(LAMBDA_NAMED_LIKE_A_FACTORY)
    assert len(namespace["TRACES"]) == 1  # type: ignore[arg-type]


CACHED_PROPERTY_STEP = """
from functools import cached_property

import jax
import jax.numpy as jnp

class Learner:
    def __init__(self):
        self._buffer = jnp.zeros(2)
        self.scale = 1.0

    @property
    def buffer(self):
        return self._buffer

    @cached_property
    def _update(self):
        @jax.jit
        def fn(x):
            return x * self.scale + self.buffer  # JIT201

        return fn

    def step(self, x):
        out = self._update(x)
        self._buffer = out
        return out

    def decay(self):
        self.scale = 0.5

learner = Learner()
OUTPUTS = []
for epoch in range(2):
    OUTPUTS.append(learner.step(jnp.ones(2)))
    learner.decay()
"""


def test_a_jitted_closure_a_cached_property_makes_keeps_the_fields_of_its_first_trace() -> None:
    # captcha-numpyro's learner: `_update` is a cached_property holding a jit of a closure
    # over `self`, traced once; it reads `self.buffer_state` (a property returning the
    # `_buffer_state` the steps replace) and the schedule's scale, so later steps keep the
    # values of the first trace.
    namespace = linted_and_run(CACHED_PROPERTY_STEP, findings=True)
    first, second = namespace["OUTPUTS"]  # type: ignore[misc]
    assert jnp.array_equal(second, first)  # fresh reads would give 1 * 0.5 + 1 = 1.5
    # The property is the field it returns: read alone, it is still the stale read.
    through_property = CACHED_PROPERTY_STEP.replace(
        "x * self.scale + self.buffer", "x + self.buffer"
    )
    got, _ = reported(through_property)
    assert got == marked(through_property) != set()
    # Made per call (a plain method), each call traces anew and reads the fields as they are.
    plain = CACHED_PROPERTY_STEP.replace("    @cached_property\n", "    @property\n")
    plain = plain.replace("  # JIT201", "")
    got, _ = reported(plain)
    assert got == marked(plain) == set()


REDEFINED_JITTED_STEP = """
from functools import partial

import jax

def run_step(state, s):
    return state

@partial(jax.jit, static_argnames=["s"])
def run_step(state, s):
    return state + jax.random.uniform(s)

def run_episode(state, s):
    return run_step(state, s)  # JIT302

KEYS = {"episode": jax.random.PRNGKey(0)}
run_episode(1.0, KEYS["episode"])
"""


def test_a_function_redefined_under_jit_is_the_jitted_one_where_it_is_called() -> None:
    # Tershire's JAX study: a NumPy `run_step` first, then the jitted one with the key among
    # its `static_argnames`; the episode calls the second, and JAX raises at the call.
    error, _ = run(REDEFINED_JITTED_STEP)
    assert error is not None and "Non-hashable static arguments" in str(error)
    got, _ = reported(REDEFINED_JITTED_STEP)
    assert got == marked(REDEFINED_JITTED_STEP) != set()
    # A parameter named like no key is one when the function hands it to `jax.random`.
    renamed = REDEFINED_JITTED_STEP.replace("def run_step(state, s):\n    return state\n\n", "")
    error, _ = run(renamed)
    assert error is not None and "Non-hashable static arguments" in str(error)
    got, _ = reported(renamed)
    assert got == marked(renamed) != set()


MODULE_HANDED_TO_A_GRAD = """
import jax
import jax.numpy as jnp
from flax import nnx

randkey = jax.random.key(3)

class Noisy(nnx.Module):
    def __init__(self, rngs):
        self.lin = nnx.Linear(2, 2, rngs=rngs)

    def __call__(self, x):
        noise = jax.random.normal(randkey, x.shape)  # JIT502
        return self.lin(x + noise).mean(), noise

@nnx.jit
def train_step(model, batch):
    def loss_func(model, batch):
        return model(batch)

    grad_fn = nnx.value_and_grad(loss_func, has_aux=True)
    (loss, noise), grads = grad_fn(model, batch)
    return noise

model = Noisy(nnx.Rngs(0))
NOISES = [train_step(model, jnp.ones((3, 2))), train_step(model, jnp.full((3, 2), 2.0))]
"""


def test_a_module_handed_to_a_transformed_loss_is_called_there() -> None:
    # microdit_jax: the jitted step hands its model to `nnx.value_and_grad(loss_func)`,
    # whose `model(...)` runs the wrapper's `__call__`, drawing from a module-level key: the
    # same noise on every step, whatever the batch.
    namespace = linted_and_run(MODULE_HANDED_TO_A_GRAD, findings=True)
    first, second = namespace["NOISES"]  # type: ignore[misc]
    assert jnp.array_equal(first, second)


CONFIGURED = """
import jax
import jax.numpy as jnp

class Likelihood:
    def log_prob(self, x):
        return self.scale * jnp.sum(x)

lik = Likelihood()
lik.scale = 1.0
eager = lik.log_prob(jnp.ones(3))
lik.scale = 2.0
jitted = jax.jit(lik.log_prob)
first = jitted(jnp.ones(3))
"""


def test_fields_set_from_outside_before_the_first_jitted_call_are_what_the_trace_reads() -> None:
    # gwkokab's likelihood: `__main__` sets the object's fields, then jits its bound method.
    # The first call traces it with the values set last; nothing sets them after it, so
    # nothing is stale, even though an eager call read the object between two writes.
    namespace = linted_and_run(CONFIGURED)
    assert float(namespace["eager"]) == 3.0  # type: ignore[arg-type]
    assert float(namespace["first"]) == 6.0  # type: ignore[arg-type]
    # One more write after the first jitted call: the cached trace keeps 2.0.
    later = (
        CONFIGURED.replace(
            "        return self.scale * jnp.sum(x)",
            "        return self.scale * jnp.sum(x)  # JIT201",
        )
        + "lik.scale = 3.0\nsecond = jitted(jnp.ones(3))\n"
    )
    namespace = linted_and_run(later)
    assert float(namespace["second"]) == 6.0  # type: ignore[arg-type]  # not 9.0
    # A write in a function can run at any time: reported too.
    deferred = later.replace("lik.scale = 3.0\n", "def rescale():\n    lik.scale = 3.0\n")
    linted_and_run(deferred.replace("second = jitted(jnp.ones(3))\n", "rescale()\n"))


VMAPPED_SEED = """
import jax
import jax.numpy as jnp

def point(x, sigma=0.2):
    return x + sigma * jax.random.normal(jax.random.PRNGKey(0), shape=())  # JIT502

def curve(xs):
    return jax.vmap(lambda x: point(x))(xs)

noise = curve(jnp.linspace(0.0, 1.0, 5)) - jnp.linspace(0.0, 1.0, 5)
"""


def test_a_key_made_from_a_constant_seed_under_vmap_draws_alike_for_every_element() -> None:
    # drclab's noisy curve: `vmap` runs `point` once per element, and each run makes the
    # same key, so every element gets the same noise (JAX's key-reuse checker is silent:
    # each trace draws from its key once).
    namespace = linted_and_run(VMAPPED_SEED)
    noise = np.asarray(namespace["noise"])
    assert np.allclose(noise, noise[0], atol=1e-6) and abs(noise[0]) > 1e-3
    # Keys split per element give each its own draw, and nothing is reported.
    split = VMAPPED_SEED.replace("def point(x, sigma", "def point(x, key, sigma")
    split = split.replace("normal(jax.random.PRNGKey(0), shape=())  # JIT502", "normal(key, ())")
    split = split.replace(
        "jax.vmap(lambda x: point(x))(xs)",
        "jax.vmap(point)(xs, jax.random.split(jax.random.PRNGKey(0), xs.shape[0]))",
    )
    noise = np.asarray(linted_and_run(split)["noise"])
    assert len(set(np.round(noise, 6).tolist())) == noise.size


RESEEDED = """
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def initial(v):
    np.random.seed(17)
    return v + jnp.array(np.random.randn(3))

def eager(v):
    np.random.seed(17)
    return v + jnp.array(np.random.randn(3))

first, second = initial(jnp.zeros(3)), initial(jnp.zeros(3))
plain = eager(jnp.zeros(3))
"""


def test_numpy_draws_after_a_constant_seed_in_the_function_are_the_same_jitted_or_not() -> None:
    # nbody-jax's initial conditions: the traced function seeds NumPy's generator, then
    # draws. Each call reseeds, so eagerly every call draws the same numbers, which is what
    # the trace keeps as constants: nothing is frozen that would have changed.
    namespace = linted_and_run(RESEEDED)
    first, second, plain = (np.asarray(namespace[k]) for k in ("first", "second", "plain"))
    assert np.allclose(first, plain) and np.allclose(second, plain)
    # Without the seed the trace keeps its one draw while eager calls draw anew: reported.
    unseeded = RESEEDED.replace(
        "@jax.jit\ndef initial(v):\n    np.random.seed(17)\n"
        "    return v + jnp.array(np.random.randn(3))",
        "@jax.jit\ndef initial(v):\n    return v + jnp.array(np.random.randn(3))  # JIT204",
    )
    namespace = linted_and_run(unseeded)
    assert np.allclose(np.asarray(namespace["first"]), np.asarray(namespace["second"]))


UNREAD_CLOCK = """
import time

import jax

@jax.jit
def step(x):
    tic = time.perf_counter()
    return x * 2

@jax.jit
def stamped(x):
    now = time.time()  # JIT204
    return x + now

a, b = step(1.0), step(1.0)
c = stamped(0.0)
"""


def test_a_clock_read_nothing_reads_freezes_nothing() -> None:
    # jax#3794, dolfinx-materials: `tic = time.perf_counter()` in traced code whose print
    # was removed: the trace keeps a value nothing uses, and the results are the same.
    # A clock read the result depends on keeps its trace-time value on every call.
    namespace = linted_and_run(UNREAD_CLOCK)
    assert float(namespace["a"]) == float(namespace["b"]) == 2.0  # type: ignore[arg-type]
    stamped = namespace["stamped"]
    assert float(stamped(0.0)) == float(namespace["c"])  # type: ignore[operator]


HELPER_WRITES_ITS_ARGUMENT = """
from dataclasses import dataclass

import jax
import jax.numpy as jnp

@jax.tree_util.register_dataclass
@dataclass
class State:
    vel: jax.Array

def scale(state, s):
    state.vel = state.vel * s
    return state

@jax.jit
def direct(st, s):
    return scale(st, s)

doubled = direct(State(jnp.ones(2)), 2.0)
"""


def test_a_helper_writing_an_argument_from_an_outer_trace_leaks_the_tracer() -> None:
    # JaxDEM's thermostat: `scale_to_temperature(state, ...)` assigns `state.vel`. Called
    # on the jitted function's own argument, the write changes an object of this trace,
    # which jit rebuilds from the leaves on every call: nothing leaks.
    namespace = linted_and_run(HELPER_WRITES_ITS_ARGUMENT)
    assert np.allclose(np.asarray(namespace["doubled"].vel), 2.0)  # type: ignore[attr-defined]
    # Called from a branch `lax.cond` traces, with the state the jitted function closes
    # over, the write stores the branch's tracer on the outer object: the other branch
    # returns it, and JAX raises.
    branched = HELPER_WRITES_ITS_ARGUMENT.replace(
        "    state.vel = state.vel * s\n", "    state.vel = state.vel * s  # JIT202\n"
    ).replace(
        "doubled = direct(State(jnp.ones(2)), 2.0)\n",
        "@jax.jit\n"
        "def rescale(st, s):\n"
        "    return jax.lax.cond(s > 0, lambda _: scale(st, s), lambda _: st, None)\n",
    )
    namespace = linted_and_run(branched)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        namespace["rescale"](namespace["State"](jnp.ones(2)), 2.0)  # type: ignore[operator]


LOGS_A_SHAPE = """
import logging

import jax
import jax.numpy as jnp

logger = logging.getLogger("case")
counter = 0

@jax.jit
def clipped(g):
    logger.info("Total grad norm shape: {}".format(g.shape))
    logger.info(f"rank {g.ndim}")
    return jnp.clip(g, -1.0, 1.0)

@jax.jit
def counted(x):
    global counter
    counter += 1  # JIT202
    print("Called {} times".format(counter))  # JIT203
    return x + 1
"""


def test_a_log_formatting_a_shape_tells_it_once_per_trace_and_a_count_it_keeps_does_not(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    # DP-SGD's private gradient logs `"...shape: {}".format(total_grad_norm.shape)`: under
    # jit the message is made at trace time from a static shape, and that is what it says,
    # once per compilation: not reported, as `logger.info("%s", g.shape)` is not.
    namespace = linted_and_run(LOGS_A_SHAPE, findings=True)
    clipped = namespace["clipped"]
    with caplog.at_level(logging.INFO, logger="case"):
        for _ in range(3):
            clipped(jnp.ones((2, 3)))  # type: ignore[operator]
    assert [r.getMessage() for r in caplog.records] == ["Total grad norm shape: (2, 3)", "rank 2"]
    # A message formatting a global the function counts its calls in says "Called 1
    # times" once, for three calls: the count it shows is the trace's.
    counted = namespace["counted"]
    for _ in range(3):
        counted(1.0)  # type: ignore[operator]
    assert capsys.readouterr().out == "Called 1 times\n"


NNX_UNDER_JAX_JIT = """
import jax
import jax.numpy as jnp
import optax
from flax import nnx

class Counter(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.linear = nnx.Linear(2, 1, rngs=rngs)
        self.calls = nnx.Variable(jnp.array(0))

    def __call__(self, x):
        return self.linear(x)

model = Counter(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
x = jnp.ones((3, 2))

def loss_fn(m):
    return jnp.sum(m(x) ** 2)

@jax.jit
def lost_step(model: Counter, optimizer: nnx.Optimizer):
    grads = nnx.grad(loss_fn)(model)
    optimizer.update(model, grads)  # JIT202
    model.calls[...] += 1  # JIT202
    return loss_fn(model)

@jax.jit
def returned_step(model: Counter, optimizer: nnx.Optimizer):
    grads = nnx.grad(loss_fn)(model)
    optimizer.update(model, grads)
    return nnx.state((model, optimizer))

@nnx.jit
def nnx_step(model: Counter, optimizer: nnx.Optimizer):
    grads = nnx.grad(loss_fn)(model)
    optimizer.update(model, grads)
"""


def test_an_nnx_object_updated_in_place_under_jax_jit_keeps_its_state() -> None:
    # rl-blox's update_ppo before its fix: `jax.jit` flattens the nnx model and optimizer
    # it is given into arrays and traces copies rebuilt from them; `optimizer.update` and
    # `model.calls.value += 1` change those copies, and the caller's objects never change.
    namespace = linted_and_run(NNX_UNDER_JAX_JIT, findings=True)
    model, optimizer = namespace["model"], namespace["optimizer"]
    kernel = np.asarray(model.linear.kernel[...])  # type: ignore[attr-defined]
    namespace["lost_step"](model, optimizer)  # type: ignore[operator]
    assert np.array_equal(np.asarray(model.linear.kernel[...]), kernel)  # type: ignore[attr-defined]
    assert int(model.calls[...]) == 0 and int(optimizer.step[...]) == 0  # type: ignore[attr-defined]
    # Returned as state and applied outside, or under `nnx.jit`, the update reaches them.
    nnx = namespace["nnx"]
    nnx.update((model, optimizer), namespace["returned_step"](model, optimizer))  # type: ignore[attr-defined, operator]
    assert int(optimizer.step[...]) == 1  # type: ignore[attr-defined]
    namespace["nnx_step"](model, optimizer)  # type: ignore[operator]
    assert int(optimizer.step[...]) == 2  # type: ignore[attr-defined]
    assert not np.array_equal(np.asarray(model.linear.kernel[...]), kernel)  # type: ignore[attr-defined]


APPLIED_TWICE = """
import jax
import flax.linen as nn

class Generator(nn.Module):
    @nn.compact
    def __call__(self, z_rng):
        z = jax.random.normal(z_rng, (4, 2))
        return nn.Dense(2)(z)

key, init_key, z_key = jax.random.split(jax.random.key(0), 3)
params = Generator().init(init_key, z_key)
fake = Generator().apply(params, key)
again = Generator().apply(params, key)  # JIT502
"""


def test_a_flax_module_applied_twice_draws_twice_from_the_key_its_call_gets() -> None:
    # A GAN's generator draws its latents from the key `apply` hands its `__call__`, after
    # the variables `apply` keeps for itself: the second call with the same key is the
    # reuse, of the key, not of the variables (which are no key).
    got, result = reported(APPLIED_TWICE)
    assert got == marked(APPLIED_TWICE)
    assert "`key`" in result.findings[0].message and "`params`" not in result.findings[0].message
    with jax.debug_key_reuse(True):
        error, _ = run(APPLIED_TWICE)
    assert type(error).__name__ == "KeyReuseError", error
    # one apply draws once: the checker accepts it
    once = APPLIED_TWICE.replace("again = Generator().apply(params, key)  # JIT502\n", "")
    with jax.debug_key_reuse(True):
        error, _ = run(once)
    assert error is None, error


CALLED_AGAIN_ON_ONE_OBJECT = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
)

class Game:
    def __init__(self):
        self.state = jnp.zeros(3)

    def search(self, state):
        return jnp.tanh(state + 1.0)

    def ai_move(self):
        self.state = jax.jit(self.search)(self.state)  # JIT301

PER_MOVE = []
game = Game()
for_move = COMPILES.count("jit(search)")
game.ai_move()
PER_MOVE.append(COMPILES.count("jit(search)") - for_move)
for_move = COMPILES.count("jit(search)")
game.ai_move()
PER_MOVE.append(COMPILES.count("jit(search)") - for_move)
"""


def test_a_method_the_script_calls_twice_on_one_object_jits_its_bound_method_per_call() -> None:
    # pgx-classicenvs' Connect Four: the GUI calls `game.ai_move()` after every human move,
    # and each call jits `self.run_mcts` again, a new bound method: the same search on the
    # same object, compiled again on every move.
    namespace = linted_and_run(CALLED_AGAIN_ON_ONE_OBJECT, findings=True)
    assert namespace["PER_MOVE"] == [1, 1]
    # Called once on each of two objects, each jit is another object's program: as a
    # script calling a function with two configurations, not reported.
    head, _, tail = CALLED_AGAIN_ON_ONE_OBJECT.replace("  # JIT301", "").rpartition(
        "game.ai_move()"
    )
    two_objects = head + "Game().ai_move()" + tail
    assert two_objects.count("game.ai_move()") == 1
    got, _ = reported(two_objects)
    assert got == marked(two_objects) == set()


KEY_SET_UP_ONCE = """
import jax
import jax.numpy as jnp

class Game:
    def __init__(self):
        self.key = None
        self.state = jnp.zeros(3)

    def setup(self, seed):
        self.key, _ = jax.random.split(jax.random.key(seed))

    def run(self, key, state):
        key, sub = jax.random.split(key)
        return state + jax.random.normal(sub, state.shape)

    def ai_move(self):
        self.state = jax.jit(self.run)(self.key, self.state)  # JIT301  # JIT502

game = Game()
game.setup(0)
game.key = jax.random.key(1)
game.ai_move()
first = game.state
game.ai_move()
"""


def test_a_key_a_setup_method_binds_once_is_drawn_alike_by_each_call_of_a_method() -> None:
    # pgx-classicenvs' Connect Four: `setup_jit` binds `self.key` once, the script sets it
    # once more, and every `ai_move` hands that key to the jitted search: every move
    # draws the same numbers, and JAX's checker rejects the second move.
    namespace = linted_and_run(KEY_SET_UP_ONCE, findings=True)
    assert np.allclose(np.asarray(namespace["game"].state), 2 * np.asarray(namespace["first"]))  # type: ignore[attr-defined]
    with jax.debug_key_reuse(True):
        error, _ = run(KEY_SET_UP_ONCE)
    assert type(error).__name__ == "KeyReuseError", error
    # A script that sets the key anew before each move advances it: not reported.
    looped = KEY_SET_UP_ONCE.replace("  # JIT301  # JIT502", "  # JIT301").replace(
        "game.ai_move()\nfirst = game.state\ngame.ai_move()\n",
        "for seed in range(2):\n    game.key = jax.random.key(seed)\n    game.ai_move()\n",
    )
    got, _ = reported(looped)
    assert got == marked(looped) == {(18, "JIT301")}
    with jax.debug_key_reuse(True):
        error, _ = run(looped)
    assert error is None, error


SEEDED_ESTIMATOR = """
import jax
import jax.numpy as jnp

class KMeans:
    def __init__(self, n_init=3, seed=0):
        self.n_init = n_init
        self.seed = jax.random.PRNGKey(seed)

    def fit(self, X):
        keys = jax.random.split(self.seed, self.n_init)
        self.starts = jax.vmap(lambda k: jax.random.choice(k, X, (2,)))(keys)
        return self

km = KMeans()
first = km.fit(jnp.arange(10.0)).starts
second = km.fit(jnp.arange(10.0)).starts
"""


def test_a_key_kept_as_the_objects_seed_starts_every_fit_alike_on_purpose() -> None:
    # scib-metrics' KMeans keeps `self.seed` as scikit-learn keeps `random_state`: every
    # fit starts from the same draws, which is what a seed is for; not reported. A key
    # kept under another name, drawn alike by every fit, is.
    namespace = linted_and_run(SEEDED_ESTIMATOR)
    assert np.array_equal(np.asarray(namespace["first"]), np.asarray(namespace["second"]))
    renamed = SEEDED_ESTIMATOR.replace("self.seed", "self.rng").replace(
        "keys = jax.random.split(self.rng, self.n_init)",
        "keys = jax.random.split(self.rng, self.n_init)  # JIT502",
    )
    got, _ = reported(renamed)
    assert got == marked(renamed) != set()


STATIC_CALLBACK_FROM_A_FACTORY = """
from functools import partial

import jax
import jax.numpy as jnp

def pareto_mask(y):
    dominated = (jnp.expand_dims(y, 0) > jnp.expand_dims(y, 1)).any(axis=-1)
    return ~dominated

def ehvi(x, y):
    return x[pareto_mask(y)].sum()  # JIT403

def ucb(x, y, kappa):
    return x.sum() + kappa * y.sum()

def select_acq(name):
    if name == "ucb":
        return partial(ucb, kappa=0.1)
    return ehvi

@partial(jax.jit, static_argnums=(2,))
def suggest(x, y, acq):
    _acq = partial(acq, y=y)
    return _acq(x)

def optim(x, y, name):
    _acq = select_acq(name)
    return suggest(x, y, _acq)
"""


def test_a_function_a_factory_hands_a_jitted_function_as_a_static_argument_is_traced() -> None:
    # jax_mobo's `suggest_next`: `optim` hands it the acquisition `select_acq` returns, a
    # static argument; the jitted function calls it, so each acquisition the factory can
    # return is traced there: the expected-hypervolume one indexes with a traced mask.
    namespace = linted_and_run(STATIC_CALLBACK_FROM_A_FACTORY, findings=True)
    optim = namespace["optim"]
    x, y = jnp.arange(4.0), jnp.array([3.0, 1.0, 2.0, 0.5])
    assert float(optim(x, y, "ucb")) == pytest.approx(6.0 + 0.65)  # type: ignore[operator]
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        optim(x, y, "ehvi")  # type: ignore[operator]


KEY_PARAMETER_OVERWRITTEN = """
import jax
import jax.numpy as jnp

def sample_process(rate, key):
    n = rate.shape[0]
    key = jax.random.PRNGKey(2)  # JIT502
    key, sub = jax.random.split(key)
    return jax.random.exponential(sub, (n,)) / rate

rate = jnp.ones(3)
a = sample_process(rate, jax.random.PRNGKey(0))
b = sample_process(rate, jax.random.PRNGKey(1))
batch = jax.vmap(lambda k: sample_process(rate, k))(jax.random.split(jax.random.PRNGKey(3), 2))
"""


def test_a_key_parameter_rebound_to_a_constant_seed_ignores_the_callers_key() -> None:
    # A blog's birth-death sampler: `key = jax.random.PRNGKey(2)` before the parameter is
    # read, so two keys (and the two elements of a vmap) give one and the same draw.
    namespace = linted_and_run(KEY_PARAMETER_OVERWRITTEN, findings=True)
    assert np.array_equal(np.asarray(namespace["a"]), np.asarray(namespace["b"]))
    batch = np.asarray(namespace["batch"])
    assert np.array_equal(batch[0], batch[1])
    # A default filled in only when none is given reads the parameter first: not reported,
    # and two keys draw differently.
    defaulted = KEY_PARAMETER_OVERWRITTEN.replace(
        "    key = jax.random.PRNGKey(2)  # JIT502\n",
        "    if key is None:\n        key = jax.random.PRNGKey(2)\n",
    )
    namespace = linted_and_run(defaulted)
    assert not np.array_equal(np.asarray(namespace["a"]), np.asarray(namespace["b"]))


JIT_CHOSEN_BY_A_FLAG = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
)

def step(x, jit=True):
    def update(y):
        return jnp.tanh(y) * 2.0
    update = jax.jit(update) if jit else update  # JIT301
    return update(x)

PER_CALL = []
for i in range(3):
    before = COMPILES.count("jit(update)")
    step(jnp.ones(3) * i)
    PER_CALL.append(COMPILES.count("jit(update)") - before)
"""


def test_a_jit_chosen_by_a_flag_in_a_function_called_in_a_loop_compiles_per_call() -> None:
    # `sampling = jax.jit(sampling) if jit else sampling`: the conditional spelling of a jit
    # of a local function, made anew on every call of a function the script loops over.
    namespace = linted_and_run(JIT_CHOSEN_BY_A_FLAG, findings=True)
    assert namespace["PER_CALL"] == [1, 1, 1]


TRIANGULAR_UNROLL = """
import jax
import jax.numpy as jnp

NUM_PARTICLES = 50

@jax.jit
def pair_energy(coords):
    n = NUM_PARTICLES
    energy = 0.0
    for i in range(n):
        for j in range(i, n):  # JIT303
            energy += jnp.abs(coords[i] - coords[j])
    return energy

EQNS = len(pair_energy.trace(jnp.ones(50)).jaxpr.eqns)
"""


def test_a_loop_bounded_by_an_outer_loops_variable_unrolls_the_sum_of_its_trips() -> None:
    # A 50-boson VMC's pair sum: `for j in range(i, N)` in `for i in range(N)`, with `N`
    # a local bound once to a module constant, runs its body 50 * 51 / 2 = 1275 times.
    namespace = linted_and_run(TRIANGULAR_UNROLL, findings=True)
    inner = len(jax.make_jaxpr(lambda c: jnp.abs(c[0] - c[1]))(jnp.ones(2)).jaxpr.eqns)
    assert namespace["EQNS"] >= 1275 * inner  # type: ignore[operator]
    # Twenty particles pair up 210 times: short enough, not reported.
    small = (
        TRIANGULAR_UNROLL.replace("NUM_PARTICLES = 50", "NUM_PARTICLES = 20")
        .replace("  # JIT303", "")
        .replace("jnp.ones(50)", "jnp.ones(20)")
    )
    linted_and_run(small)


# A loss whose flax model draws dropout masks from the key given to `rngs=`.
FLAX_DROPOUT_LOSS = """
import jax
import jax.numpy as jnp
import flax.linen as nn

class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dropout(0.5, deterministic=False)(nn.Dense(3)(x))

model = MLP()

def loss(params, x, rng):
    return jnp.sum(model.apply(params, x, rngs={"dropout": rng}))
"""

KEY_REUSE_ACROSS_CALLS = {
    # Hubbard's Metropolis chain: `__init__` stores jits of two functions it defines;
    # `step` hands `self._key` to both, and both split it.
    "a-jitted-function-an-object-holds-draws-from-the-key-it-is-given": """
import jax
import jax.numpy as jnp

class Chain:
    def __init__(self, key):
        self._key = key

        def _propose(key, x):
            kstep, key = jax.random.split(key, 2)
            return x + jax.random.normal(kstep, x.shape)

        def _accept(key, x):
            key, kacc = jax.random.split(key, 2)
            return key, x * jax.random.uniform(kacc)

        self._propose = jax.jit(_propose)
        self._accept = jax.jit(_accept)

    def step(self, x):
        xp = self._propose(self._key, x)
        self._key, x = self._accept(self._key, xp)  # JIT502
        return x

Chain(jax.random.key(0)).step(jnp.ones(3))
""",
    "a-jitted-function-an-object-holds-given-a-fresh-key-each-time": """
import jax
import jax.numpy as jnp

class Chain:
    def __init__(self, key):
        self._key = key

        def _propose(key, x):
            kstep, key = jax.random.split(key, 2)
            return x + jax.random.normal(kstep, x.shape)

        self._propose = jax.jit(_propose)

    def step(self, x):
        self._key, sub = jax.random.split(self._key)
        x = self._propose(sub, x)
        self._key, sub = jax.random.split(self._key)
        return self._propose(sub, x)

chain = Chain(jax.random.key(0))
for _ in range(2):
    chain.step(jnp.ones(3))
""",
    # NeuralAnnealing's `_step`: it splits `self.key`, then draws from the half it keeps,
    # so the next call splits a used key; and `run`, after looping over `_step`, splits it
    # again.
    "a-method-drawing-from-the-key-it-keeps-leaves-it-used-for-its-next-call": """
import jax
import jax.numpy as jnp

class Annealer:
    def __init__(self):
        self.key = jax.random.key(0)

    def _step(self, x):
        self.key, sub = jax.random.split(self.key)  # JIT502
        return x + jax.random.normal(sub, x.shape) + jax.random.uniform(self.key, x.shape)

    def run(self, x):
        for _ in range(3):
            x = self._step(x)
        self.key, sub = jax.random.split(self.key)  # JIT502
        return x + jax.random.normal(sub, x.shape)

Annealer().run(jnp.ones(3))
""",
    # SlimeVolley's stand-in VAE: a classmethod factory (`StableVAE.create()` returning
    # `cls(...)`) builds the object whose method draws from the key it is given, and a
    # name bound to that method (`encode = vae.encode`) runs it in the loop.
    "a-classmethod-factory-builds-the-object-whose-method-draws-from-the-key": """
import jax
import jax.numpy as jnp

class VAE:
    def __init__(self, params):
        self.params = params

    @classmethod
    def create(cls):
        return cls(params=jnp.ones((3, 4)))

    def encode(self, key, images):
        mean = jnp.tanh(images @ self.params)
        return mean + jax.random.normal(key, mean.shape)

def main():
    vae = VAE.create()
    vae_rng = jax.random.key(42)
    encode = vae.encode
    for i in range(3):
        x = encode(vae_rng, jnp.ones((2, 3)))  # JIT502
    return x

main()
""",
    # xomx's BetaVAE: `__init__` calls `init_state`, which hands `self.rng` to the model's
    # initialisation (its forward pass draws from it) and keeps it; the first split in
    # `fit` splits that used key.
    "a-key-the-constructor-left-used-is-split-again-by-a-method": """
import jax
import jax.numpy as jnp

def reparameterize(rng, mean):
    return mean + jax.random.normal(rng, mean.shape)

class Model:
    def __init__(self, seed):
        self.rng = jax.random.key(seed)
        self.state = self.init_state()

    def init_state(self):
        self.rng, key = jax.random.split(self.rng)
        return reparameterize(self.rng, jax.random.normal(key, (3,)))

    def fit(self, steps):
        for _ in range(steps):
            self.rng, key = jax.random.split(self.rng)  # JIT502
            self.state = reparameterize(key, self.state)
        return self.state

Model(0).fit(2)
""",
    # fewbit's stax MNIST script: the jitted step hands `rng=rng` to a loss whose
    # `**kwargs` reach the model's apply function, a library call taking `rng=`; the loop
    # gives the step the same key on every batch.
    "a-key-passed-through-kwargs-to-a-library-call-is-drawn-from": """
import jax
import jax.numpy as jnp

def model_apply(params, x, rng=None):
    return x * params + jax.random.normal(rng, x.shape)

def make():
    return model_apply

def fit(params, xs):
    apply = make()
    rng = jax.random.key(0)

    def objective(p, x, **kwargs):
        return apply(p, x, **kwargs).sum()

    @jax.jit
    def step(p, x, rng):
        return objective(p, x, rng=rng)

    for x in xs:
        params = params - 0.1 * step(params, x, rng)  # JIT502
    return params

fit(1.0, [jnp.ones(3), jnp.ones(3)])
""",
    # picodo's `sample(key_decoding, *nnx.split(model), tokens)`: an argument before an
    # unpacking is bound for certain to its parameter.
    "a-key-passed-before-an-unpacking-is-drawn-from-by-the-function": """
import jax

def draw(key, a, b):
    return jax.random.normal(key, (2,)) * a + b

def run(key, parts):
    x = draw(key, *parts)
    y = draw(key, *parts)  # JIT502
    return x, y

run(jax.random.key(0), (1.0, 2.0))
""",
    # An MAE trainer's jitted `train_step`: the loss it differentiates is a lambda that
    # closes over the step's `key` and hands it to the masking; every batch gets the key.
    "a-lambda-closing-over-the-key-draws-from-it-where-it-is-called": """
import jax
import jax.numpy as jnp

def loss(params, x, key=None):
    return jnp.sum(params * x * jax.random.bernoulli(key, 0.5, x.shape))

@jax.jit
def train_step(params, x, key):
    loss_fn = lambda p: loss(p, x, key=key)
    value, grads = jax.value_and_grad(loss_fn)(params)
    return params - 0.1 * grads, value

params = jnp.ones(3)
key = jax.random.key(0)
for _ in range(2):
    params, value = train_step(params, jnp.ones(3), key)  # JIT502
""",
    # picodo-finetune's `benchmark_model`: the jitted sampler stores its key in the
    # sampling state that the `lax.while_loop` body splits, so it draws from the key it is
    # given; `key_decoding` holds a key however it is spelled (it is bound by `split`), and
    # every batch gets the same one.
    "a-key-stored-in-a-loop-carry-record-is-drawn-from-by-the-loop-body": """
from typing import NamedTuple
import jax
import jax.numpy as jnp

class SamplingState(NamedTuple):
    key: jax.Array
    step: int
    tokens: jax.Array

def _sample_step(state):
    key, key_sampling = jax.random.split(state.key)
    token = jax.random.randint(key_sampling, (), 0, 10)
    return SamplingState(key, state.step + 1, state.tokens.at[state.step].set(token))

@jax.jit
def sample(key, tokens):
    state = SamplingState(key=key, step=0, tokens=tokens)
    step_fn = lambda state: _sample_step(state)
    state = jax.lax.while_loop(lambda s: s.step < 4, step_fn, state)
    return state.tokens

def benchmark(key, batches):
    key_decoding, key_questions = jax.random.split(key)
    out = []
    for tokens in batches:
        out.append(sample(key_decoding, tokens))  # JIT502
    return out

benchmark(jax.random.key(0), [jnp.zeros(4, int), jnp.zeros(4, int)])
""",
    # DISCS' Hamming-ball sampler: the block-Gibbs step puts `rng` in the tuple it hands
    # `lax.fori_loop` as the carry, and the body (a function the step defines) unpacks
    # and splits it, after `categorical` drew the radius from the same key.
    "a-key-carried-in-a-tuple-into-a-fori-loop-whose-body-splits-it": """
import jax
import jax.numpy as jnp

def gibbs(rng, x):
    def loop_body(i, val):
        rng_key, x = val
        sub, next_key = jax.random.split(rng_key)
        return next_key, x.at[i].set(jax.random.uniform(sub))
    init_val = (rng, x)
    _, x = jax.lax.fori_loop(0, x.shape[0], loop_body, init_val)
    return x

def step(rng, x):
    r = jax.random.categorical(rng, jnp.zeros(3))
    return gibbs(rng, x) + r  # JIT502

step(jax.random.key(0), jnp.zeros(4))
""",
    # A loop over a non-empty constant range runs at least once: what it binds replaces
    # what came before it.
    # hands_on_jax's stochastic-models notebook: haiku's `init` splits the key for the
    # initializers (`hk.next_rng_key()`), so sampling dropout masks from it reuses it, also
    # through the `apply_fn` a train state keeps.
    "a-haiku-init-key-given-again-to-apply-is-reused": """
import jax
import jax.numpy as jnp
import haiku as hk

def make_forward(width):
    def _forward(x):
        return hk.dropout(hk.next_rng_key(), 0.1, hk.Linear(width)(x))

    return hk.transform(_forward)

class Trainer:
    def __init__(self, apply_fn, params):
        self.apply_fn = apply_fn
        self.params = params

net = make_forward(3)
rng = jax.random.key(42)
params = net.init(rng, jnp.ones((2, 3)))
trainer = Trainer(apply_fn=net.apply, params=params)
pred = trainer.apply_fn(trainer.params, rng, jnp.ones((2, 3)))  # JIT502
""",
    # flax's `init` folds its streams' names and paths into the key (`fold_in`), which
    # JAX's checker does not count as a use: drawing from the key afterwards is no reuse.
    "a-flax-init-key-drawn-from-afterwards-is-not-reused": """
import jax
import jax.numpy as jnp
import flax.linen as nn

key = jax.random.key(0)
model = nn.Dense(3)
params = model.init(key, jnp.ones((2, 3)))
noise = jax.random.normal(key, (3,))
""",
    # An ABC sampler (TheodoraChrysoula/sbi): the keys drawn from for the prior's samples
    # are handed again to the simulator, through lambdas `vmap` runs and functions the
    # caller passes in: a function handed a key draws from it.
    "keys-a-vmapped-lambda-hands-to-the-callers-functions-are-reused": """
import jax
import jax.numpy as jnp

def prior(n, key):
    return jax.random.uniform(key, (n,))

def simulator(theta, key):
    return theta + jax.random.normal(key)

def abc(simulate, sample_prior, n, key):
    keys = jax.random.split(key, n)
    thetas = jax.vmap(lambda k: sample_prior(1, k).squeeze())(keys)
    return jax.vmap(lambda theta, k: simulate(theta, k))(thetas, keys)  # JIT502

abc(simulator, prior, 8, jax.random.key(0))
""",
    # A model the caller passes in draws from the key only when told to train: evaluation
    # with `is_training=False` uses nothing up.
    "a-key-a-handed-model-gets-while-not-training-is-not-used": """
import jax
import jax.numpy as jnp

def model(x, key, is_training=True):
    if is_training:
        x = x * jax.random.bernoulli(key, 0.9, x.shape)
    return x

def evaluate(model, xs, key):
    return [model(x, key, is_training=False) for x in xs]

evaluate(model, [jnp.ones(3), jnp.zeros(3)], jax.random.key(0))
""",
    # A loss that hands its key only to flax's `rngs=` (dropout): flax folds the key in,
    # which uses nothing up, so splitting it afterwards is no reuse, as after a direct
    # `model.apply(..., rngs={"dropout": rng})`.
    "a-key-a-helper-only-gives-to-flax-rngs-is-split-afterwards": FLAX_DROPOUT_LOSS
    + """
def train(params, x, rng):
    value = loss(params, x, rng)
    rng, sub = jax.random.split(rng)
    return value + jax.random.normal(sub)

train(model.init(jax.random.key(1), jnp.ones((2, 3))), jnp.ones((2, 3)), jax.random.key(0))
""",
    # jaximus's sampler: a jitted function whose key defaults to a constant key hands it to
    # a `fori_loop` body in the carry; each call without a key draws from that one key, and
    # JAX's checker raises at the call (jit uses its arguments up where it is called).
    "a-jitted-default-key-carried-into-a-loop-body-is-reused-per-call": """
import jax
import jax.numpy as jnp

@jax.jit
def sample(x, key=jax.random.key(0)):
    def body(i, carry):
        x, key = carry
        key, sub = jax.random.split(key)
        return x + jax.random.normal(sub, x.shape), key

    return jax.lax.fori_loop(0, 3, body, (x, key))[0]

outs = []
for prompt in [jnp.zeros(2), jnp.ones(2)]:
    outs.append(sample(prompt))  # JIT502
""",
    # gymnax-blines' PPO policy: the key handed to a flax `apply_fn` after the observation
    # is an input of the module's `__call__`, which ignores it; drawing the action from the
    # key afterwards is its first use (haiku's `apply_fn(params, rng, x)` splits it).
    "a-key-a-handed-flax-apply-gets-as-an-input-is-not-drawn-from": """
import jax
import jax.numpy as jnp
import flax.linen as nn

class Policy(nn.Module):
    @nn.compact
    def __call__(self, obs, rng):
        return nn.Dense(2)(obs)

def policy(apply_fn, params, obs, rng):
    return apply_fn(params, obs, rng)

model = Policy()
key = jax.random.key(0)
params = model.init(jax.random.key(1), jnp.ones((1, 3)), jax.random.key(2))
logits = policy(model.apply, params, jnp.ones((1, 3)), key)
action = jax.random.categorical(key, logits)
""",
    # bnn-zoo's MC-dropout trainer: the batch loop runs in every epoch, so the key the next
    # epoch splits is the one the batch loop split last, not the one the permutation drew
    # from (reported once, where the batch loop splits it first, as JAX's checker does).
    "a-key-a-data-loop-splits-anew-is-not-the-key-before-the-loop": """
import jax
import jax.numpy as jnp

def fit(xs, epochs, key):
    for i in range(epochs):
        key, _ = jax.random.split(key)
        perms = jax.random.permutation(key, 4).reshape((2, 2))
        for perm in perms:
            key, _ = jax.random.split(key)  # JIT502
            xs = xs + perm.sum()
    return xs

fit(jnp.zeros(()), 2, jax.random.key(0))
""",
    "a-key-a-jitted-step-hands-to-a-flax-rngs-loss-is-split-afterwards": FLAX_DROPOUT_LOSS
    + """
def fit(params, x, rng, steps):
    grad_fn = jax.value_and_grad(loss)

    @jax.jit
    def step(params, rng):
        value, grads = grad_fn(params, x, rng=rng)
        return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)

    for _ in range(steps):
        rng, _ = jax.random.split(rng)
        params = step(params, rng)
    return params

fit(model.init(jax.random.key(1), jnp.ones((2, 3))), jnp.ones((2, 3)), jax.random.key(0), 2)
""",
    "a-key-a-constant-loop-rebinds-is-not-the-key-before-the-loop": """
import jax

key = jax.random.key(0)
x = jax.random.normal(key)
for i in range(3):
    key = jax.random.key(i + 1)
y = jax.random.normal(key)
""",
}


def _twin(case: str, *edits: tuple[str, str]) -> str:
    """The clean twin of a case: the same program with the key split (or drawn from the
    half split off), and no mark left."""
    source = KEY_REUSE_ACROSS_CALLS[case]
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new)
    assert "# JIT" not in source
    return source


KEY_REUSE_ACROSS_CALLS |= {
    "keys-split-again-for-the-simulator-are-fresh": _twin(
        "keys-a-vmapped-lambda-hands-to-the-callers-functions-are-reused",
        (
            "    return jax.vmap(lambda theta, k: simulate(theta, k))(thetas, keys)  # JIT502",
            "    sim_keys = jax.random.split(jax.random.fold_in(key, 1), n)\n"
            "    return jax.vmap(lambda theta, k: simulate(theta, k))(thetas, sim_keys)",
        ),
    ),
    "a-jitted-sampler-given-a-fresh-key-per-call-is-fresh": _twin(
        "a-jitted-default-key-carried-into-a-loop-body-is-reused-per-call",
        (
            "    outs.append(sample(prompt))  # JIT502",
            "    outs.append(sample(prompt, jax.random.key(len(outs) + 1)))",
        ),
    ),
    "a-haiku-init-key-split-before-apply-is-fresh": _twin(
        "a-haiku-init-key-given-again-to-apply-is-reused",
        (
            "params = net.init(rng, jnp.ones((2, 3)))",
            "rng, init_rng = jax.random.split(rng)\nparams = net.init(init_rng, jnp.ones((2, 3)))",
        ),
        ("  # JIT502", ""),
    ),
    "a-method-drawing-only-from-the-half-it-splits-off-leaves-the-kept-key-fresh": _twin(
        "a-method-drawing-from-the-key-it-keeps-leaves-it-used-for-its-next-call",
        (
            "self.key, sub = jax.random.split(self.key)  # JIT502\n"
            "        return x + jax.random.normal(sub, x.shape) + jax.random.uniform(self.key,",
            "self.key, sub, noise = jax.random.split(self.key, 3)\n"
            "        return x + jax.random.normal(sub, x.shape) + jax.random.uniform(noise,",
        ),
        ("  # JIT502", ""),
    ),
    "a-constructor-that-draws-from-a-split-off-key-leaves-the-kept-one-fresh": _twin(
        "a-key-the-constructor-left-used-is-split-again-by-a-method",
        (
            "self.rng, key = jax.random.split(self.rng)\n        return reparameterize(self.rng,",
            "self.rng, key, z_rng = jax.random.split(self.rng, 3)\n"
            "        return reparameterize(z_rng,",
        ),
        ("  # JIT502", ""),
    ),
    "a-key-passed-through-kwargs-split-per-step-is-fresh": _twin(
        "a-key-passed-through-kwargs-to-a-library-call-is-drawn-from",
        (
            "        params = params - 0.1 * step(params, x, rng)  # JIT502",
            "        rng, sub = jax.random.split(rng)\n"
            "        params = params - 0.1 * step(params, x, sub)",
        ),
    ),
    "a-lambda-closing-over-a-key-split-per-step-is-fresh": _twin(
        "a-lambda-closing-over-the-key-draws-from-it-where-it-is-called",
        (
            "    params, value = train_step(params, jnp.ones(3), key)  # JIT502",
            "    key, sub = jax.random.split(key)\n"
            "    params, value = train_step(params, jnp.ones(3), sub)",
        ),
    ),
    "a-key-stored-in-a-loop-carry-record-split-per-batch-is-fresh": _twin(
        "a-key-stored-in-a-loop-carry-record-is-drawn-from-by-the-loop-body",
        (
            "        out.append(sample(key_decoding, tokens))  # JIT502",
            "        key_decoding, key_batch = jax.random.split(key_decoding)\n"
            "        out.append(sample(key_batch, tokens))",
        ),
    ),
}


# jax-bayesian's train_fn: a transform of a helper called at once (`jax.grad(loss)(params,
# x, key)`) runs the helper on the key, in a scan body that hands the key back unchanged.
KEY_REUSE_ACROSS_CALLS["a-transform-of-a-helper-called-at-once-draws-from-the-key"] = """
import jax
import jax.numpy as jnp

def loss(params, x, rng):
    return jnp.sum((params * x + jax.random.normal(rng, x.shape)) ** 2)

def twice(params, x, rng):
    g = jax.grad(loss)(params, x, rng)
    return g + jax.grad(loss)(params, x, rng)  # JIT502

def body(carry, x):
    params, rng = carry
    g = jax.grad(loss)(params, x, rng)  # JIT502
    return (params - 0.1 * g, rng), None

twice(jnp.ones(3), jnp.ones(3), jax.random.key(0))
jax.lax.scan(body, (jnp.ones(3), jax.random.key(1)), jnp.ones((2, 3)))
"""
KEY_REUSE_ACROSS_CALLS["a-transform-of-a-helper-called-at-once-on-split-keys-is-fresh"] = _twin(
    "a-transform-of-a-helper-called-at-once-draws-from-the-key",
    (
        "    return g + jax.grad(loss)(params, x, rng)  # JIT502",
        "    return g + jax.grad(loss)(params, x, jax.random.fold_in(rng, 1))",
    ),
    (
        "    params, rng = carry\n    g = jax.grad(loss)(params, x, rng)  # JIT502",
        "    params, rng = carry\n    rng, sub = jax.random.split(rng)\n"
        "    g = jax.grad(loss)(params, x, sub)",
    ),
)


# pzdkn's NeRF and jax-sandbox's GPT-2 fine-tuning: a step draws from its state's key and
# hands the state back with that same key (`apply_gradients` keeps it, a `replace(rng=...)`
# whose result is thrown away changes nothing), and the loop passes it in again. JAX's
# checker raises at the draw of an eager step, at the call of a jitted one.
KEY_REUSE_ACROSS_CALLS["a-step-handing-its-state-back-with-the-key-it-drew-from"] = """
import jax
import jax.numpy as jnp
from flax import struct

@struct.dataclass
class State:
    params: jax.Array
    rng: jax.Array

    def apply_gradients(self, grads):
        return self.replace(params=self.params - 0.1 * grads)

def step(state, x):
    noise = jax.random.normal(state.rng, x.shape)  # JIT502
    state.replace(rng=jax.random.split(state.rng)[0])  # JIT502
    return state.apply_gradients(grads=noise * x)

@jax.jit
def jitted_step(state, x):
    noise = jax.random.normal(state.rng, x.shape)
    return state.replace(params=state.params + noise), jnp.sum(noise)

state = State(jnp.zeros(3), jax.random.key(0))
for _ in range(2):
    state = step(state, jnp.ones(3))
other = State(jnp.zeros(3), jax.random.key(1))
for _ in range(2):
    other, total = jitted_step(other, jnp.ones(3))  # JIT502
"""
KEY_REUSE_ACROSS_CALLS["a-step-storing-the-key-it-split-off-is-fresh"] = _twin(
    "a-step-handing-its-state-back-with-the-key-it-drew-from",
    (
        "    noise = jax.random.normal(state.rng, x.shape)  # JIT502\n"
        "    state.replace(rng=jax.random.split(state.rng)[0])  # JIT502\n"
        "    return state.apply_gradients(grads=noise * x)",
        "    rng, sub = jax.random.split(state.rng)\n"
        "    noise = jax.random.normal(sub, x.shape)\n"
        "    return state.apply_gradients(grads=noise * x).replace(rng=rng)",
    ),
    (
        "    noise = jax.random.normal(state.rng, x.shape)\n"
        "    return state.replace(params=state.params + noise), jnp.sum(noise)",
        "    noise = jax.random.normal(jax.random.fold_in(state.rng, 0), x.shape)\n"
        "    rng = jax.random.split(state.rng)[0]\n"
        "    return state.replace(params=state.params + noise, rng=rng), jnp.sum(noise)",
    ),
    (
        "    other, total = jitted_step(other, jnp.ones(3))  # JIT502",
        "    other, total = jitted_step(other, jnp.ones(3))",
    ),
)


# jax-gcn's stax model: stax's layers take `rng=` and ignore it, except `Dropout` (and the
# combinators that split it for their layers).
KEY_REUSE_ACROSS_CALLS["stax-layers-ignore-the-rng-they-are-given-but-dropout"] = """
import jax
import jax.numpy as jnp
from jax.example_libraries import stax

relu_init, relu_fun = stax.Relu
drop_init, drop_fun = stax.Dropout(0.5)

def forward(x, rng):
    x = relu_fun((), x, rng=rng)
    x = relu_fun((), x, rng=rng)
    return drop_fun((), x, rng=rng)

def twice(x, rng):
    x = drop_fun((), x, rng=rng)
    return drop_fun((), x, rng=rng)  # JIT502

forward(jnp.ones(4), jax.random.key(0))
twice(jnp.ones(4), jax.random.key(1))
"""
KEY_REUSE_ACROSS_CALLS["stax-dropout-given-split-keys-is-fresh"] = _twin(
    "stax-layers-ignore-the-rng-they-are-given-but-dropout",
    (
        "    return drop_fun((), x, rng=rng)  # JIT502",
        "    return drop_fun((), x, rng=jax.random.fold_in(rng, 1))",
    ),
)


@pytest.mark.parametrize("name", sorted(KEY_REUSE_ACROSS_CALLS))
def test_key_reuse_across_calls_linted_as_jax_checker_sees_it(name: str) -> None:
    source = KEY_REUSE_ACROSS_CALLS[name]
    expected = marked(source)
    got, _ = reported(source)
    assert got == expected
    with jax.debug_key_reuse(True):
        error, _ = run(source)
    if expected:
        assert type(error).__name__ == "KeyReuseError", error
    else:
        assert error is None, f"JAX's key-reuse checker rejected a clean case: {error!r}"


LAX_SWITCH_INSIDE_A_JITTED_LOCAL = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
)

def apply_activation(x, code):
    def do_tanh(x):
        return jnp.tanh(x)
    def do_relu(x):
        return jax.nn.relu(x)
    return jax.lax.switch(code, [do_tanh, do_relu], x)

def make_network(weights):
    @jax.jit  # JIT301
    def forward(x):
        return apply_activation(x @ weights, 1)
    return forward

for genome in range(3):
    net = make_network(jnp.ones((2, 2)) * genome)
    net(jnp.ones(2))
"""


def test_what_a_jitted_local_function_calls_runs_traced_not_eagerly() -> None:
    # SlimeVolley-NEAT's `genome_to_jax_network` jits a new `forward_fn` per genome (the
    # finding); the `lax.switch` over local functions in `apply_activation`, which only
    # that jitted function calls, is traced inside it and compiles nothing of its own.
    namespace = linted_and_run(LAX_SWITCH_INSIDE_A_JITTED_LOCAL, findings=True)
    compiled = namespace["COMPILES"]
    assert [n for n in compiled if "forward" in n] == ["jit(forward)"] * 3  # type: ignore[attr-defined]
    assert not [n for n in compiled if "switch" in n or "do_" in n], compiled  # type: ignore[attr-defined]


LOCAL_CLASS_NAMED_LIKE_A_MODULE = """
import jax
import jax.numpy as jnp

class math:
    # brax.math's formulas, kept under the module's name
    @staticmethod
    def rotate(v, q):
        return v * q[0]

@jax.jit
def orient(v, q):
    return math.rotate(v, q)

orient(jnp.ones(3), jnp.ones(4))
"""


def test_a_class_named_like_a_library_module_is_the_modules_own() -> None:
    # pupperv3-mjx's stand-in for `brax.math`: `math.rotate` of the module's own class,
    # not the standard library's `math`, which would need a Python float.
    linted_and_run(LOCAL_CLASS_NAMED_LIKE_A_MODULE)
    imported = LOCAL_CLASS_NAMED_LIKE_A_MODULE.replace(
        "class math:", "import math\n\nclass Rotations:"
    ).replace("    return math.rotate(v, q)", "    return math.floor(v[0])  # JIT401")
    got, _ = reported(imported)
    assert got == marked(imported) != set()


EAGER_LOOP_UNDER_DISABLE_JIT = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: COMPILES.append(kw.get("fun_name"))
    if event == "/jax/core/compile/backend_compile_duration" else None
)

def step(x):
    def body(i, v):
        return v + i
    return jax.lax.fori_loop(0, 3, body, x)

x = jnp.ones(2)
with jax.disable_jit():
    for _ in range(3):
        x = step(x)
"""


def test_lax_loops_under_disable_jit_run_as_python_and_compile_nothing() -> None:
    # DISCS' harness steps its sampler eagerly under `jax.disable_jit()`: the sampler's
    # `lax.fori_loop` over a local body runs as a Python loop there and compiles nothing,
    # where the same loop run eagerly compiles the body on every call (JIT301).
    namespace = linted_and_run(EAGER_LOOP_UNDER_DISABLE_JIT)
    assert not [n for n in namespace["COMPILES"] if "scan" in n or "while" in n]  # type: ignore[attr-defined]
    eager = EAGER_LOOP_UNDER_DISABLE_JIT.replace(
        "with jax.disable_jit():\n    for _ in range(3):\n        x = step(x)\n",
        "for _ in range(3):\n    x = step(x)\n",
    ).replace(
        "    return jax.lax.fori_loop(0, 3, body, x)",
        "    return jax.lax.fori_loop(0, 3, body, x)  # JIT301",
    )
    namespace = linted_and_run(eager, findings=True)
    assert namespace["COMPILES"].count("jit(scan)") == 3  # type: ignore[attr-defined]


DEEP_COPY_CONFIGURED = """
import copy
from functools import partial
from types import SimpleNamespace
import jax
import jax.numpy as jnp

class Inner:
    def __init__(self, config):
        self.size = config.sampler.size

class Sampler:
    def __init__(self, config):
        self.size = config.sampler.size
        config_inner = copy.deepcopy(config)
        config_inner.sampler.size = 1
        self.inner = Inner(config_inner)

    @partial(jax.jit, static_argnums=0)
    def step(self, x):
        return x * self.size + self.inner.size

sampler = Sampler(SimpleNamespace(sampler=SimpleNamespace(size=3)))
OUT = sampler.step(jnp.ones(2))
"""


def test_a_write_into_a_fresh_deep_copy_changes_no_static_self() -> None:
    # DISCS' Hamming-ball sampler deep-copies its config and sets the copy's
    # `sampler.block_size` for the block-Gibbs sampler it builds: a new object nothing
    # has read, not the `block_size` of any sampler a trace read (no JIT201).
    namespace = linted_and_run(DEEP_COPY_CONFIGURED)
    assert np.array_equal(np.asarray(namespace["OUT"]), np.full(2, 4.0))


TIMED_AGAIN_WITH_A_COMMENT = """
import jax

def simulate(key):
    return jax.random.normal(key, (3,))

key = jax.random.key(0)
first = simulate(
    key).block_until_ready()
first = simulate(  # timed again, after the compile
    key).block_until_ready()
"""


def test_a_timed_statement_written_again_is_the_same_however_it_is_commented() -> None:
    # QuantEcon's lecture times each implementation twice on one key (the second run
    # without the compile): the same numbers on purpose. A comment inside the repeated
    # call does not make it another statement.
    namespace = linted_and_run(TIMED_AGAIN_WITH_A_COMMENT)
    assert namespace["first"].shape == (3,)  # type: ignore[attr-defined]


# Outside any trace, `lax` control flow caches the trace of each function object it is
# given, as jit does (bnn-project's random-walk sampler adapts `step_size` between blocks
# of a `fori_loop` whose body closes over it: every block moves by the first step size).
EAGER_LAX_BODY_READS_A_REBOUND_NAME = """
import jax
import jax.numpy as jnp

def run(x, scale=1.0):
    def body(i, x):
        return x + scale  # JIT201

    for _ in range(3):
        x = jax.lax.fori_loop(0, 4, body, x)
        scale *= 2.0
    return x

def run_scan(x, scale=1.0):
    def body(c, _):
        return c + scale, None  # JIT201

    for _ in range(3):
        x, _ = jax.lax.scan(body, x, None, length=4)
        scale *= 2.0
    return x

def run_vmap(x, scale=1.0):
    def body(c):
        return c + scale  # vmap traces anew on every call: it reads the current value

    for _ in range(3):
        x = jax.vmap(body)(x)
        scale *= 2.0
    return x
"""


def test_an_eager_lax_body_keeps_the_value_it_closed_over_when_first_traced() -> None:
    namespace = linted_and_run(EAGER_LAX_BODY_READS_A_REBOUND_NAME, findings=True)
    run, run_scan, run_vmap = namespace["run"], namespace["run_scan"], namespace["run_vmap"]
    assert float(run(jnp.zeros(()))) == 12.0  # 4 * (1 + 1 + 1): the first trace's 1.0
    assert float(run_scan(jnp.zeros(()))) == 12.0  # not 4 * (1 + 2 + 4) = 28
    assert float(run_vmap(jnp.zeros(2))[0]) == 7.0  # 1 + 2 + 4


def test_an_eager_lax_body_made_in_the_loop_or_given_the_value_reads_it_fresh() -> None:
    source = (
        EAGER_LAX_BODY_READS_A_REBOUND_NAME.replace("  # JIT201", "")
        .replace(
            "    def body(i, x):\n        return x + scale\n\n    for _ in range(3):\n",
            "    for _ in range(3):\n        def body(i, x):\n            return x + scale\n\n",
        )
        .replace(
            "        x, _ = jax.lax.scan(body, x, None, length=4)",
            "        x, _ = jax.lax.scan(body, x, jnp.full(4, scale))",
        )
        .replace("        return c + scale, None", "        return c + _, None")
    )
    namespace = linted_and_run(source)
    run, run_scan = namespace["run"], namespace["run_scan"]
    assert float(run(jnp.zeros(()))) == 28.0
    assert float(run_scan(jnp.zeros(()))) == 28.0


OPTIMIZER_REBOUND_PER_PHASE = """
import jax
import jax.numpy as jnp
import optax

# A note that mentions `optimizer.update(grads, state)` changes nothing.


def train(params, schedule, x):
    @jax.jit
    def step(p, state):
        grads = jax.grad(lambda q: jnp.sum(q * x))(p)
        updates, state = optimizer.update(grads, state)  # JIT201
        return optax.apply_updates(p, updates), state

    moves = []
    for lr in schedule:
        optimizer = optax.sgd(learning_rate=lr)
        state = optimizer.init(params)
        new, state = step(params, state)
        moves.append(float(jnp.max(jnp.abs(new - params))))
        params = new
    return moves


tx = optax.sgd(0.1)
opt_state = tx.init(jnp.zeros(2))


@jax.jit
def module_step(p, s):
    updates, s = tx.update(jnp.ones(2), s)  # bound once: nothing changes it
    return optax.apply_updates(p, updates), s
"""


def test_a_result_kept_from_update_is_an_optimizers_call_not_a_container_mutation() -> None:
    """`updates, state = optimizer.update(...)` keeps a result, which a container's
    mutator (returning None) has not: the closed-over optimizer the loop rebinds is read,
    and the jitted step keeps the first phase's learning rate."""
    namespace = linted_and_run(OPTIMIZER_REBOUND_PER_PHASE, findings=True)
    train = namespace["train"]
    assert train(jnp.zeros(2), [0.5, 0.25], jnp.ones(2)) == [0.5, 0.5]  # not [0.5, 0.25]


PRUNED_DONATED_ARGUMENT = """
from functools import partial
import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnums=(0,))
def attack(image):
    return image + 0.1


@jax.jit
def train_step(params, image, image_adv):
    return params - jnp.mean(image_adv)  # `image` is never read: jit prunes it


@jax.jit
def test_step(params, image):
    return params + jnp.mean(image)


@partial(jax.jit, keep_unused=True)
def kept_step(params, image, image_adv):
    return params - jnp.mean(image_adv)


shift = jax.jit(lambda params, image: params + 1.0)  # `image` unread here too


def _scale(params, image):
    return params * 2.0


scale = jax.jit(_scale)  # and here


def run(params, image):
    image_adv = attack(image)
    params = train_step(params, image, image_adv)
    params = scale(shift(params, image), image)
    return test_step(params, image)  # JIT504


def run_kept(params, image):
    image_adv = attack(image)
    return kept_step(params, image, image_adv)  # JIT504
"""


@pytest.mark.parametrize("entry", ["run", "run_kept"])
def test_a_donated_array_passed_where_jit_prunes_the_argument_is_never_read(entry: str) -> None:
    namespace = linted_and_run(PRUNED_DONATED_ARGUMENT, findings=True)
    with pytest.raises(RuntimeError, match="deleted"):
        namespace[entry](jnp.zeros(()), jnp.ones(3))
    train_step, attack = namespace["train_step"], namespace["attack"]
    image = jnp.ones(3)
    image_adv = attack(image)
    assert image.is_deleted()
    assert float(train_step(jnp.zeros(()), image, image_adv)) == pytest.approx(-1.1)
    assert float(namespace["shift"](jnp.zeros(()), image)) == 1.0


JIT_OF_A_LOCAL_CALLED_IN_ITS_LOOP = """
import jax
import jax.numpy as jnp

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, *a, **k: COMPILES.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None
)


def simulate(x, steps=3):
    def step(x):
        return x * 0.5 + 1.0

    step = jax.jit(step)  # JIT301
    for _ in range(steps):
        x = step(x)
    return x


simulate(jnp.ones(2))
FIRST = len(COMPILES)
simulate(jnp.ones(2))
SECOND = len(COMPILES) - FIRST
"""


def test_a_local_jit_called_in_its_own_loop_compiles_again_when_the_script_runs_it_again() -> None:
    """The loop inside amortises one compile over its steps, but a second call of the
    function with the same configuration compiles the same function again."""
    namespace = linted_and_run(JIT_OF_A_LOCAL_CALLED_IN_ITS_LOOP, findings=True)
    assert namespace["SECOND"] == 1


TRAIN_STATE_WITH_A_NEW_OPTIMIZER_PER_PASS = """
import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState

COMPILES = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, *a, fun_name=None, **k: COMPILES.append(fun_name)
    if event == "/jax/core/compile/backend_compile_duration" else None
)


def create_train_state(lr):
    tx = optax.sgd(lr, momentum=0.9)
    return TrainState.create(apply_fn=None, params={"w": jnp.zeros(3)}, tx=tx)


@jax.jit
def update_model(state, grads):
    return state.apply_gradients(grads=grads)


def train(state, batches):
    for grads in batches:
        state = update_model(state, grads)  # JIT301
    return state


for client in range(3):
    train_state = create_train_state(0.1)
    train_state = train_state.replace(params={"w": jnp.ones(3)})
    train(train_state, [{"w": jnp.ones(3)}, {"w": jnp.ones(3)}])
"""


def test_a_train_state_made_with_a_new_optimizer_per_pass_compiles_its_steps_again() -> None:
    """The train state's `tx` is a static field; a new optax transformation per pass makes
    every pass's state a new cache key for the jitted step."""
    namespace = linted_and_run(TRAIN_STATE_WITH_A_NEW_OPTIMIZER_PER_PASS, findings=True)
    assert namespace["COMPILES"].count("jit(update_model)") == 3


def test_a_train_state_around_one_optimizer_compiles_its_steps_once() -> None:
    source = TRAIN_STATE_WITH_A_NEW_OPTIMIZER_PER_PASS.replace("  # JIT301", "").replace(
        "def create_train_state(lr):\n    tx = optax.sgd(lr, momentum=0.9)\n",
        "TX = optax.sgd(0.1, momentum=0.9)\n\n\ndef create_train_state(lr):\n    tx = TX\n",
    )
    namespace = linted_and_run(source)
    assert namespace["COMPILES"].count("jit(update_model)") == 1


SELF_KEY_WRITTEN_UNDER_A_SCAN = """
import jax
import jax.numpy as jnp


class Model:
    def run(self, x, n_steps):
        out, _ = jax.lax.scan(lambda c, i: (c * 0.5, None), x, jnp.arange(n_steps))
        return out


class Filter:
    def __init__(self, n_steps, model):
        self.n_steps = n_steps
        self.model = model
        self.key = jax.random.key(0)

    def step(self, x):
        self.key, sub = jax.random.split(self.key)  # JIT202
        x = self.model.run(x, self.n_steps)  # `self.n_steps` is still a Python int
        return x + jax.random.normal(sub, x.shape)

    def run(self, x0, n_total):
        def body(x, i):
            return self.step(x), None

        return jax.lax.scan(body, x0, jnp.arange(n_total))[0]


pf = Filter(4, Model())
OUT = pf.run(jnp.ones(3), 5)
LEAKED = isinstance(pf.key, jax.core.Tracer)
"""


def test_a_traced_value_stored_on_self_leaves_its_other_attributes_as_they_were() -> None:
    namespace = linted_and_run(SELF_KEY_WRITTEN_UNDER_A_SCAN, findings=True)
    assert namespace["LEAKED"] is True
    assert namespace["OUT"].shape == (3,)


ATTRIBUTE_BUILT_BY_A_METHOD = """
from functools import partial
import numpy as np
import jax
import jax.numpy as jnp


class Table:
    def __init__(self, n):
        self.n = n

    def draw(self, k):
        return np.random.randint(0, self.n, size=k)  # JIT204


class Loss:
    def __init__(self, n):
        self.table = self.make_table(n)

    def make_table(self, n):
        return Table(n)

    @partial(jax.jit, static_argnums=0)
    def negatives(self, x):
        return x[self.table.draw(4)]


loss = Loss(10)
FIRST = loss.negatives(jnp.arange(10.0))
SECOND = loss.negatives(jnp.arange(10.0))
"""


def test_an_attribute_a_method_builds_is_an_instance_of_the_class_it_returns() -> None:
    """`self.table = self.make_table(n)`, returning `Table(n)`: the jitted method's
    `self.table.draw(...)` runs Table's host sampling once, at trace time."""
    namespace = linted_and_run(ATTRIBUTE_BUILT_BY_A_METHOD, findings=True)
    assert (namespace["FIRST"] == namespace["SECOND"]).all()
