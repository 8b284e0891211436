# source: https://github.com/aghilanai/jax-course/blob/73934a4540a1887bd0fae851936dd72a1f234644/ep02/solution.ipynb
#   (a JAX course, Episode 2 "jit": the cells "Why you can't `jit` everything", "`static_argnames`
#   and the decorator factory" and "Print inside `jit` fires at trace time")
# observed on jax 0.10.2 CPU: jax.jit(f)(jnp.array(10)) raises TracerBoolConversionError at
#   `if x > 0` and jax.jit(g)(10, 20) raises it at `while i < n`, both caught by the
#   notebook's try/except; the fixes (x static in f_jit, n static in g_jit) run, and
#   noisy_square prints once per traced shape, as the cell's title says it will.
# gap: other
# added: nothing but the __main__ block; the cells are kept in notebook order.
import jax
import jax.numpy as jnp
import jax.random as jr
from jax import make_jaxpr


def f(x):
    # tracer<int32, shape=(10)>, dtype, shape
    if x > 0:  # expect: JIT101
        return x
    return 2 * x


def g(x, n):
    # tracer<int32, shape=(1)>, dtype, shape
    #tracer<int32, shape=(1)>, dtype, shape
    i = 0
    while i < n:  # expect: JIT102
        i += 1
    return x + i


for label, fn, args in [
    ("if x > 0", lambda: jax.jit(f)(jnp.array(10)), [jnp.array(10)]),
    ("while i < n", lambda: jax.jit(g)(10, 20), [10, 20]),
]:
    try:
        fn()
    except jax.errors.TracerBoolConversionError as e:
        print(f"{label}: TracerBoolConversionError")


f_jit = jax.jit(f, static_argnums=0)
print("f_jit(10):", f_jit(10))

g_jit = jax.jit(g, static_argnames=["n"])
print("g_jit(10, 20):", g_jit(10, n=20))


def g(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i



print("g_jit_decorated(10, 20):", jax.jit(g, static_argnames=["n"])(10, 20))


print("--- outside jit ---")


@jax.jit
def noisy_square(x):
    print("inside jitted function, x.shape =", x.shape)  # tolerate: JIT203
    return x ** 2


v = jnp.ones((3,))
print("run 1:")

noisy_square(v)
print("run 2 (same shape):")
noisy_square(v)


print("run 3 (new shape):")
noisy_square(jnp.ones((5,)))


if __name__ == "__main__":
    import traceback

    def failing_line(thunk):
        try:
            thunk()
        except jax.errors.TracerBoolConversionError as e:
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            return frames[-1].lineno
        raise AssertionError("no error")

    # observed: line 18 raises TracerBoolConversionError under jax.jit(f)
    assert failing_line(lambda: jax.jit(f)(jnp.array(10))) == 18
    # observed: line 27 raises TracerBoolConversionError under jax.jit(g) of the first g
    # (g_jit wraps that first g; the name g was rebound since)
    assert failing_line(lambda: jax.jit(g_jit.__wrapped__)(10, 20)) == 27
    assert int(f_jit(10)) == 10 and int(f_jit(-3)) == -6
    assert int(g_jit(10, n=20)) == 30
    assert int(jax.jit(g, static_argnames=["n"])(10, 20)) == 30
