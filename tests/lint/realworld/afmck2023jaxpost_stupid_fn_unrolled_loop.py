# source: https://github.com/vvvm23/vvvm23.github.io/blob/df758ee5428be3732205edbe0efded2f57b2e8aa/content/posts/2023-05-22-jax-post/index.md (blog post "Jax Post" by Alexander McKinney, afmck.in/posts/2023-05-22-jax-post, sections "Enter jax.jit" and "Conditionals and Loops in Compiled Functions": stupid_fn and its jax.lax.fori_loop rewrite less_stupid_fn)
# observed on jax 0.10.2 CPU: the Python loop is unrolled while tracing: the jaxpr of stupid_fn has 1001 equations (copy + 1000 mul) against 2 for less_stupid_fn (copy + one scan/while), as in the post's truncated jaxpr output
# gap: other
# (added: the imports and the post's earlier key/x cell; the IPython %time/%timeit magics replaced by plain calls; the post's fori_loop keywords start=/stop= (not fori_loop's parameter names, a TypeError) written lower=/upper=; the notebook output lines after `===` dropped; the equation counts checked in __main__)
import jax
import jax.numpy as jnp

seed = 0x123456789 # some integer seed. In hexadecimal just to be ✨✨
key = jax.random.PRNGKey(seed) # create the initial key
key, w_key, b_key, x_key = jax.random.split(key, 4)
x = jax.random.normal(x_key, (4,))


def stupid_fn(x):
  y = jnp.copy(x)
  for _ in range(1000):  # expect: JIT303
    x = x * x
  return y

print("`stupid_fn` time")
stupid_fn(x)

print("`jit_stupid_fn` first call")
jit_stupid_fn = jax.jit(stupid_fn)
jit_stupid_fn(x)

print("`jit_stupid_fn` time")
jit_stupid_fn(x)


def less_stupid_fn(x):
    y = jnp.copy(x)
    x = jax.lax.fori_loop(lower=0, upper=1000, body_fun=lambda i, x: x * x, init_val=x)
    return y


if __name__ == "__main__":
    # observed: line 16 the 1000-iteration Python loop is unrolled into 1000 mul equations of the traced jaxpr
    unrolled = jax.make_jaxpr(stupid_fn)(jnp.array([1.1, -1.1])).jaxpr
    rolled = jax.make_jaxpr(less_stupid_fn)(jnp.array([1.1, -1.1])).jaxpr
    n_mul = sum(e.primitive.name == "mul" for e in unrolled.eqns)
    print("stupid_fn eqns:", len(unrolled.eqns), "less_stupid_fn eqns:", len(rolled.eqns))
    assert n_mul == 1000, n_mul
    assert len(rolled.eqns) <= 3, rolled
    assert (jit_stupid_fn(x) == x).all()
    print("OK: stupid_fn traces 1000 unrolled multiplications, less_stupid_fn one loop primitive")
