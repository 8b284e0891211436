# source: https://github.com/google-deepmind/optax/issues/412
# observed on jax 0.10.2 CPU (optax 0.2.8): jax.jit(opt.init)(params) raises
#   TracerBoolConversionError inside optax's _factored_dims
#   (`shape[...] < min_dim_size_to_factor`): inject_hyperparams makes every numeric
#   argument of adafactor a dynamic hyperparameter, min_dim_size_to_factor included, and
#   jit traces it. The error is caught in the __main__ block. Added: imports, params and
#   the __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import optax

opt = optax.inject_hyperparams(optax.adafactor)(learning_rate=0.1)  # expect: JIT401

if __name__ == "__main__":
    params = {"w": jnp.ones((256, 300))}
    try:
        jax.jit(opt.init)(params)
        raise AssertionError("expected a concretization error")
    except jax.errors.ConcretizationTypeError as e:
        # observed: line 13 leaves min_dim_size_to_factor dynamic; init fails under jit
        assert "min_dim_size_to_factor" in "".join(__import__("traceback").format_exception(e))
