# source: https://github.com/patrick-kidger/equinox/blob/9336d820b2ef66b360fc6cb3611b3da5cefbb14d/docs/tricks.md
#   ("Improve compilation speed with scan-over-layers": the `TenMLPs` toy example)
# observed on jax 0.10.2 CPU (equinox 0.13.8): runs clean, eagerly and under
#   `eqx.filter_jit`: the ten MLPs are made by `eqx.filter_vmap` over split keys, and
#   `__call__` partitions them so that only arrays are scanned over while the activation
#   functions are closed over by `f` and recombined with `eqx.combine`; the jitted forward
#   pass matches the eager one. Added: the __main__ block, which calls the model under
#   `eqx.filter_jit`.
# gap: types
import equinox as eqx
import jax.lax as lax
import jax.random as jr

class TenMLPs(eqx.Module):
    mlps: eqx.nn.MLP
  
    def __init__(self, size, key):
        keys = jr.split(key, 10)
        make_mlp = lambda k: eqx.nn.MLP(size, size, size, 1, key=k)
        self.mlps = eqx.filter_vmap(make_mlp)(keys)
        # Store a single `eqx.nn.MLP` object, with each of its parameters (JAX
        # arrays) having an extra length-10 dimension at the start.
        #
        # This works because `make_mlp` is just a function returning a PyTree,
        # and `eqx.filter_vmap` operates on functions between PyTrees.
        #
        # `self.mlps` should not be called directly: it should only be
        # used inside a `vmap` or `scan`, to first unpeel the extra dimension.
  
    def __call__(self, x):
        dynamic_mlps, static_mlps = eqx.partition(self.mlps, eqx.is_array)
        # `dynamic_mlps` has all the parameters, with their extra length-10
        # dimension.
        # `static_mlps` has all the non-parameters, e.g. activation functions,
        # which are shared across all layers.
    
        def f(_x, _dynamic_mlp):
            mlp = eqx.combine(_dynamic_mlp, static_mlps)
            return mlp(_x), None
    
        out, _ = lax.scan(f, x, dynamic_mlps)
        return out

size = 3
key = jr.PRNGKey(0)
model_key, data_key = jr.split(key, 2)
model = TenMLPs(size, model_key)
x = jr.normal(data_key, (size,))
model(x)


if __name__ == "__main__":
    import jax.numpy as jnp

    @eqx.filter_jit
    def forward(model, x):
        return model(x)

    assert jnp.allclose(forward(model, x), model(x), atol=1e-6)
    assert jnp.allclose(forward(model, x + 1.0), model(x + 1.0), atol=1e-6)
