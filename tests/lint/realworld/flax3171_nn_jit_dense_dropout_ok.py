# source: https://github.com/google/flax/issues/3171 (the reporter's workaround, in the
#   thread)
# observed on jax 0.10.2 CPU with flax 0.12.8: runs clean: nn.jit wraps the Dense layer
#   only, and `deterministic=not training` is evaluated on the Python bool passed to init.
# gap: other
import jax
import jax.numpy as jnp
import flax.linen as nn

class MyModel(nn.Module):
    num_neurons: int

    @nn.compact
    def __call__(self, x, training: bool):
        x = nn.jit(nn.Dense)(self.num_neurons)(x)
        x = nn.Dropout(rate=0.5, deterministic=not training)(x)
        return x

def main():
    root_key = jax.random.PRNGKey(seed=0)
    main_key, params_key, dropout_key = jax.random.split(key=root_key, num=3)
    my_model = MyModel(num_neurons=3)
    x = jnp.empty((3, 4, 4))
    variables = my_model.init(params_key, x, False)

if __name__ == "__main__":
    main()
    model = MyModel(num_neurons=3)
    variables = model.init(jax.random.PRNGKey(1), jnp.ones((3, 4, 4)), False)
    y = model.apply(variables, jnp.ones((3, 4, 4)), True,
                    rngs={"dropout": jax.random.PRNGKey(2)})
    assert y.shape == (3, 4, 3)
