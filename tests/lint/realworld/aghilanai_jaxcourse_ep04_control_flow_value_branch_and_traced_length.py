# source: https://github.com/aghilanai/jax-course/blob/73934a4540a1887bd0fae851936dd72a1f234644/ep04/solution.ipynb
#   (a JAX course, Episode 4 "control flow": all code cells, in notebook order)
# observed on jax 0.10.2 CPU: the notebook's try/excepts catch three tracing errors: the
#   jitted f(2) raises TracerBoolConversionError at `if x < 3`, the jitted g(2) raises it at
#   `(x > 0) and (x < 3)`, and jit(example_fun)(10, 4) raises TypeError at
#   `jnp.ones((length,))` (length is traced); the fixes around them run (branches on
#   x.shape, `n` and `length` static, lax.cond/while_loop/fori_loop, jnp.logical_and).
#   The jitted f with two prints shows tracers once, which is what its cell sets out to show.
#   python_check_positive_even(x) raises ValueError on an array outside jit (caught; no tracer
#   involved). grad of the Python `if` version runs.
# gap: flow-sensitive
# added: the __main__ block, which re-raises the three errors and checks their lines.
from functools import partial

import jax
import jax.numpy as jnp
from jax import grad, jit, lax


import time

def time_once(f, *args):
    start = time.perf_counter()
    f(*args)
    end = time.perf_counter()
    diff = end - start
    return print(f"Time taken: {diff:.2f} seconds")


@jit
def f(x):
    # Tracer<Int32>, .dtype, .shape
    for i in range(3):  # compile-time constant — always 3 trips
        x = 2 * x
    return x


time_once(f, 3) # TRACE + COMPILE + EXECUTE
"""
GLOBAL JIT CACHE
key = (f, (x: int<32>), value = compiled function
"""

time_once(f, 4)


@jit
def g(x):
    # Tracer<float32, 3>, .dtype, .shape
    y = 0.0
    for i in range(x.shape[0]):  # trip count from shape, not value
        y = y + x[i]
    return y

time_once(g, jnp.array([1.0, 2.0, 3.0])) # TRACE + COMPILE + EXECUTE
time_once(g, jnp.array([4.0, 5.0, 6.0]))


@jit
def f(x):
    # Tracer<Int32>
    if x < 3:  # expect: JIT101
        return 3.0 * x ** 2
    else:
        return -4 * x


try:
    f(2)
except jax.errors.TracerBoolConversionError as e:
    print("TracerBoolConversionError:", e)


@jit
def g(x):
    # Tracer<Int32> (.dtype, .shape)
    return (x > 0) and (x < 3)  # expect: JIT103


try:
    g(2)
except jax.errors.TracerBoolConversionError as e:
    print("TracerBoolConversionError:", e)


from jax import make_jaxpr


def f(x):
    if x.shape[0] < 3:  # shape is concrete at trace time
        return 3.0 * jnp.sum(x ** 2)
    else:
        return -4.0 * jnp.sum(x)


print("shape (2,):")
print(make_jaxpr(f)(jnp.array([1.0, 2.0]))) # compiled binary only 1 path

print("shape (4,):")
print(make_jaxpr(f)(jnp.array([1.0, 2.0, 3.0, 4.0])))


def sum_first_n(x, n):
    # x: Tracer(float32[3]), 
    # n: int<32> WHICH HAS A SHAPE, DTYPE + VALUE
    y = 0.0
    for i in range(n):
        y = y + x[i]


    return y


sum_first_n_jit = jit(sum_first_n, static_argnames="n")


# print(sum_first_n_jit(jnp.array([2.0, 3.0, 4.0]), 2))
time_once(sum_first_n_jit, jnp.array([2.0, 3.0, 4.0]), 2)
time_once(sum_first_n_jit, jnp.array([2.0, 3.0, 4.0]), 3)
time_once(sum_first_n_jit, jnp.array([2.0, 3.0, 4.0]), 2)


def example_fun(length, val):
    # length: Tracer(int<32>), val: Tracer(float32)
    return jnp.ones((length,)) * val  # expect: JIT404


print(example_fun(5, 4))


bad_example_jit = jit(example_fun)

try:
    bad_example_jit(10, 4)
except TypeError as e:
    print("TypeError:", e)


good_example_jit = jit(example_fun, static_argnames="length")
print(good_example_jit(10, 4))
print(good_example_jit(5, 4))  # recompiles — new output shape


@jit
def f(x):
    print("x:", x)  # tolerate: JIT203
    y = 2 * x
    print("y:", y)  # tolerate: JIT203
    return y


f(2)


operand = jnp.array([0.0])

def f(x):
    return x + 1

def g(x):
    return x - 1

print(lax.cond(True, f, g, operand)) # true --> apply arg1 (f) --> 1
print(lax.cond(False, f, g, operand)) # false --> apply arg2 (g) --> -1


init_val = (-5, 0) # (value, trip_count)

def cond_fun(x):
    return x[0] < 10

def body_fun(x):
    return x[0] + 2, x[1] + 1

lax.while_loop(cond_fun, body_fun, init_val)


init_val = 0
def body_fun(i, x):
    return x + i

print(lax.fori_loop(0, 10, body_fun, init_val)) # can also scan


def python_check_positive_even(x):
    is_even = x % 2 == 0
    return is_even and (x > 0)


@jit
def jax_check_positive_even(x):
    is_even = x % 2 == 0
    return jnp.logical_and(is_even, x > 0)


print(python_check_positive_even(24))
print(jax_check_positive_even(24))


x = jnp.array([-1, 2, 5])
print(jax_check_positive_even(x))


try:
    python_check_positive_even(x)
except ValueError as e:
    print("ValueError:", e)


def f(x):
    if x < 3:
        return 3.0 * x ** 2
    else:
        return -4 * x


print(grad(f)(2.0))
print(grad(f)(4.0))


@jit
def abs_scaled(x):
    return lax.cond(x < 0, lambda v: -2.0 * v, lambda v: 2.0 * v, x)


print("cond:", abs_scaled(-3.0), abs_scaled(3.0))
print("shapes:", good_example_jit(3, 1.0).shape, good_example_jit(7, 1.0).shape)
print("fori:", lax.fori_loop(0, 5, lambda i, a: a + i, 0))
print("while:", lax.while_loop(lambda s: s < 5, lambda s: s + 1, 0))
print("logical:", jax_check_positive_even(jnp.array([2, 4, -2])))


if __name__ == "__main__":
    import traceback

    def failing_line(thunk, exc):
        try:
            thunk()
        except exc as e:
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            return frames[-1].lineno
        raise AssertionError("no error")

    import ast

    def defined_at(name, line):
        # the notebook rebinds f and g: rebuild the definition whose body holds `line` from
        # this file's own source, keeping its line numbers (decorator included)
        with open(__file__) as fh:
            tree = ast.parse(fh.read())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name and node.lineno <= line <= node.end_lineno:
                ns = dict(globals())
                exec(compile(ast.Module([node], type_ignores=[]), __file__, "exec"), ns)
                return ns[name]
        raise LookupError(name)

    # observed: line 62 raises TracerBoolConversionError under jit (the second f; f is rebound since)
    assert failing_line(lambda: defined_at("f", 62)(2), jax.errors.TracerBoolConversionError) == 62
    # observed: line 77 raises TracerBoolConversionError under jit at the `and`
    assert failing_line(lambda: defined_at("g", 77)(2), jax.errors.TracerBoolConversionError) == 77
    # observed: line 125 raises TypeError under jit(example_fun): the shape is a tracer
    assert failing_line(lambda: jit(example_fun)(10, 4), TypeError) == 125
    assert good_example_jit(10, 4).shape == (10,)
