# source: https://github.com/google/flax/issues/3946
# observed on jax 0.10.2 CPU: with flax 0.12.8, `model.init(rng_key, input_example, True)`
#   raises TracerBoolConversionError at `not train`: nn.remat's static_argnums counts `self`
#   as argument 0 (flax#2457), so (1,) does not mark `train` (args[2] in the error), which is
#   traced by the checkpoint, where `not train` needs a Python bool.
#   `input_example`, which the report leaves undefined, is a stand-in of ones.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import flax.linen as nn

class MLP(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        x = nn.BatchNorm(use_running_average=not train)(x)  # expect: JIT103
        x = nn.Dense(512)(x)
        x = nn.relu(x)
        x = nn.Dense(512)(x)
        x = nn.relu(x)
        x = nn.Dense(1)(x)
        return x

# Works fine with this line commented out
MLP = nn.remat(MLP, static_argnums=(1,))

model = MLP()
rng_key = jax.random.PRNGKey(42)
input_example = jnp.ones((4, 3))
variables = model.init(rng_key, input_example, True)
