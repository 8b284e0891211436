# source: https://github.com/patrick-kidger/equinox/blob/9336d820b2ef66b360fc6cb3611b3da5cefbb14d/docs/faq.md
#   ("How to use (non-array) modules as inputs to scan/cond/while etc.?": the fixed `rollout`)
# observed on jax 0.10.2 CPU with equinox 0.13.8: `rollout` partitions the MLP into its
#   arrays (the scan carry) and its static part (the activation functions, closed over by
#   `step` and recombined there), so `jax.lax.scan` runs clean, also inside
#   `eqx.filter_jit`; the FAQ's first version, which carries the whole MLP, raises
#   TypeError (a custom_jvp activation is not a valid JAX type). `mlp = eqx.nn.MLP(...)`
#   is given sizes and a key; the `__main__` block follows the FAQ's call.
# gap: types
import jax
import equinox as eqx


def rollout(mlp, xs):
    arr, static = eqx.partition(mlp, eqx.is_array)
    def step(carry, x):
        mlp = eqx.combine(carry, static)
        val = mlp(x)
        carry, _ = eqx.partition(mlp, eqx.is_array)
        return carry, [val]

    _, scan_out = jax.lax.scan(
        step,
        arr,
        xs
    )
    return scan_out


if __name__ == "__main__":
    key = jax.random.PRNGKey(0)
    mlp = eqx.nn.MLP(3, 1, 4, 1, key=key)
    key, subkey = jax.random.split(key)  # tolerate: JIT502
    vals = rollout(mlp, jax.random.normal(key=subkey, shape=(200, 3)))
    assert vals[0].shape == (200, 1)
    vals_jit = eqx.filter_jit(rollout)(mlp, jax.random.normal(key=subkey, shape=(200, 3)))  # tolerate: JIT502
    assert vals_jit[0].shape == (200, 1)
