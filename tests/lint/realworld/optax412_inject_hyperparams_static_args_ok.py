# source: https://github.com/google-deepmind/optax/issues/412 (the workaround in the
#   description: min_dim_size_to_factor named in static_args)
# observed on jax 0.10.2 CPU (optax 0.2.8): runs clean; jax.jit(opt.init) and
#   jax.jit(opt.update) trace only the learning rate. Added: imports, params and the
#   __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import optax

opt = optax.inject_hyperparams(optax.adafactor, static_args=("min_dim_size_to_factor",))(learning_rate=0.1)

if __name__ == "__main__":
    params = {"w": jnp.ones((256, 300))}
    state = jax.jit(opt.init)(params)
    updates, state = jax.jit(opt.update)(params, state, params)
    print(updates["w"].shape)
