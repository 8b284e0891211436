# source: https://github.com/patrick-kidger/equinox/issues/559 (the reporter's ensembling
#   snippet; the maintainer: "The code you've written for ensembling is correct", the equal
#   outputs come from the one-neuron ReLU MLP)
# observed on jax 0.10.2 CPU (equinox 0.13.8): runs and prints a (2, 5, 1) array; the
#   ensemble keys are split from `rng` after `rng` was already consumed to draw the inputs
#   `x` (the same two calls on a typed key raise KeyReuseError under
#   jax.debug_key_reuse). Added: the imports (`nn` is `equinox.nn`) and the __main__ block.
# gap: other
import jax
import equinox as eqx
import equinox.nn as nn

rng = jax.random.PRNGKey(42)
x = jax.random.normal(rng, shape=(5, 2))

@eqx.filter_vmap
def make_ensemble(key):
    return nn.MLP(2,1, 1,1, key=key)

mlp_ensemble = make_ensemble(jax.random.split(rng, 2))  # expect: JIT502

@eqx.filter_vmap(in_axes=dict(model=eqx.if_array(0), x=None))
@eqx.filter_vmap(in_axes=(None, 0))
def evaluate_ensemble(model, x):
    return model(x)

evaluate_ensemble(mlp_ensemble, x) # output should be (2, 5, 1)


if __name__ == "__main__":
    assert evaluate_ensemble(mlp_ensemble, x).shape == (2, 5, 1)
    reused = False
    with jax.debug_key_reuse(True):
        key = jax.random.key(42)
        jax.random.normal(key, shape=(5, 2))
        try:
            jax.random.split(key, 2)  # tolerate: JIT502
        except jax.errors.KeyReuseError:
            reused = True
    # observed: line 20 splits the key that the draw of x above it already consumed
    #   (KeyReuseError under jax.debug_key_reuse with a typed key)
    assert reused
