# source: https://github.com/jax-ml/jax/issues/26568
# observed on jax 0.10.2 CPU (flax 0.12.8): both jitted functions run and agree: ten sets of
#   CNN variables, made by vmapping `model.init` over ten split keys, are applied to ten
#   input batches through `jax.lax.map` over (inputs, variables) and through
#   `jax.vmap(model.apply)`; the report is about their speed, not their results. The closed-over
#   `model` is an unbound linen module bound once at module level and never rebound. Changed:
#   the notebook's `%timeit` lines are plain calls; the batch is 8 instead of 256 to keep
#   the run short; the `__main__` block that compares the two results is added.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import flax.linen as nn
class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x=nn.Conv(64, 3)(x)
        x = nn.relu(x)
        x = nn.Dense(10)(x)
        return x
model = CNN()
shape=(32, 32,3)
x = jnp.empty((1, *shape))
vs = jax.vmap(lambda rng: model.init(rng, x))(jax.random.split(jax.random.PRNGKey(42), 10))
inputs = jax.random.uniform(jax.random.PRNGKey(42), (10, 8, *shape))
@jax.jit
def scan_apply(x, v):
    def apply(args):
        xa, va = args
        return model.apply(va, xa)
    return jax.lax.map(apply, (x, v))
@jax.jit
def vmap_apply(x, v):
    return jax.vmap(model.apply)(v, x)
scan_apply(inputs, vs)
vmap_apply(inputs, vs)
print('scan_apply')
scan_apply(inputs, vs)
print('vmap_apply')
vmap_apply(inputs, vs)


if __name__ == "__main__":
    a = scan_apply(inputs, vs)
    b = vmap_apply(inputs, vs)
    assert a.shape == (10, 8, 32, 32, 10), a.shape
    assert jnp.allclose(a, b, atol=1e-4)
    # each of the ten members has its own parameters, so their outputs differ
    assert not jnp.allclose(a[0], a[1])
