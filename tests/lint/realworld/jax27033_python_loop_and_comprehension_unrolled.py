# source: https://github.com/jax-ml/jax/issues/27033
# observed on jax 0.10.2 CPU: with size=10_000 the Python `for` loop of f_for_loop and the
#   list comprehension of f_comprehension run at trace time, so each jitted program holds
#   10000 copies of the loop body (10000 multiplications in the traced program); their first
#   calls take about 11 s each to trace and compile where f_lax_fori's takes 0.09 s. The
#   report's timing loop is kept; the line that prints the second timing, cut off in the
#   stored copy of the report, is completed like the first. Added: the __main__ block.
# gap: other
import time
from functools import partial
import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("size",))
def f_for_loop(x: float, size: int) -> jax.Array:
    out = x + jnp.zeros(size)
    for i in range(size):  # expect: JIT303
        out = out + i * jnp.arange(size)
    return out


@partial(jax.jit, static_argnames=("size",))
def f_lax_fori(x, size):

    def body(ind, carry_on):
        return carry_on + ind * jnp.arange(size)

    return jax.lax.fori_loop(0, size, body, x + jnp.zeros(size))


@partial(jax.jit, static_argnames=("size",))
def f_comprehension(x, size):
    out = x + jnp.zeros(size)
    return out + sum([i * jnp.arange(size) for i in range(size)])  # expect: JIT303


for x, size in [(1, 100), (1, 10_000)]:
    print(f"*** {size=} *** ")
    for func in [f_for_loop, f_lax_fori, f_comprehension]:
        print(f"---{func.__name__}---")
        t0 = time.time()
        func(x, size).block_until_ready()
        print(f"1st:\t{time.time() - t0:.2e}")

        t0 = time.time()
        func(x, size).block_until_ready()
        print(f"2nd:\t{time.time() - t0:.2e}")


if __name__ == "__main__":
    def n_mul(fn):
        jaxpr = jax.make_jaxpr(fn.__wrapped__, static_argnums=1)(1, 10_000)
        return sum(eqn.primitive.name == "mul" for eqn in jaxpr.eqns)

    # observed: line 18 unrolls into 10000 multiplications in the traced program
    assert n_mul(f_for_loop) == 10_000, n_mul(f_for_loop)
    # observed: line 35 (the comprehension) unrolls the same way
    assert n_mul(f_comprehension) == 10_000, n_mul(f_comprehension)
    # the fori_loop version keeps one loop body
    assert n_mul(f_lax_fori) == 0
