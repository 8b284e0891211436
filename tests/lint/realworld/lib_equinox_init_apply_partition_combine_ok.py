# source: https://github.com/patrick-kidger/equinox/blob/9336d820b2ef66b360fc6cb3611b3da5cefbb14d/docs/examples/init_apply.ipynb
# observed on jax 0.10.2 CPU (equinox 0.13.8): runs clean; `apply_fn` closes over the static
#   half of `eqx.partition(mlp, eqx.is_inexact_array)` (activation functions and sizes) and
#   takes the parameters as an argument, so `jax.jit(apply_fn)` traces once and sees new
#   parameters on every call. Added: the __main__ block, which runs the example's `main()`
#   and then calls `apply_fn` under `jax.jit` with two parameter sets.
# gap: exemption-vs-JAX
import equinox as eqx


def make_mlp(in_size, out_size, width_size, depth, *, key):
    mlp = eqx.nn.MLP(
        in_size, out_size, width_size, depth, key=key
    )  # insert your model here
    params, static = eqx.partition(mlp, eqx.is_inexact_array)

    def init_fn():
        return params

    def apply_fn(_params, x):
        model = eqx.combine(_params, static)
        return model(x)

    return init_fn, apply_fn

import jax.numpy as jnp
import jax.random as jrandom
import jax.tree_util as jtu


def main(in_size=2, seed=5678):
    key = jrandom.PRNGKey(seed)

    init_fn, apply_fn = make_mlp(
        in_size=in_size, out_size=1, width_size=8, depth=1, key=key
    )

    x = jnp.arange(in_size)  # sample data
    params = init_fn()
    y1 = apply_fn(params, x)
    params = jtu.tree_map(lambda p: p + 1, params)  # "stochastic gradient descent"
    y2 = apply_fn(params, x)
    assert y1 != y2


if __name__ == "__main__":
    import jax

    main()
    init_fn, apply_fn = make_mlp(2, 1, 8, 1, key=jrandom.PRNGKey(5678))
    jitted = jax.jit(apply_fn)
    params = init_fn()
    x = jnp.arange(2.0)
    y1 = jitted(params, x)
    y2 = jitted(jtu.tree_map(lambda p: p + 1, params), x)
    assert jnp.allclose(y1, apply_fn(params, x))
    assert not jnp.allclose(y1, y2)
    assert jitted._cache_size() == 1
