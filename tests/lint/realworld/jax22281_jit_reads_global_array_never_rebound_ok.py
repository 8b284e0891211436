# source: https://github.com/jax-ml/jax/issues/22281
# observed on jax 0.10.2 CPU: runs clean and prints x + 1: fn1 reads the module-level
#   array x, which nothing rebinds or mutates, so the constant baked into the compiled
#   program stays right. Changed to run here: x is (1600, 1600) instead of the report's
#   (16000, 16000), and the persistent compilation cache goes to a temporary directory
#   instead of "jax-cache" in the working directory. Added: `import tempfile` and the
#   __main__ block, which calls fn1 again with another value.
# gap: stale-state-attributes
import os
import tempfile

os.environ["JAX_DEBUG_LOG_MODULES"] = "jax._src.compiler,jax._src.lru_cache"
os.environ["JAX_PLATFORMS"] = "cpu"

import jax

jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp())
jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_explain_cache_misses", True)

import jax.numpy as jnp

x = jnp.ones((1600, 1600))


@jax.jit
def fn1(y):
    return x + y


with jax.log_compiles():
    print(fn1(jnp.array(1.0)))


if __name__ == "__main__":
    assert float(fn1(jnp.array(2.0))[0, 0]) == 3.0
    assert float(fn1(jnp.array(1.0)).sum()) == 2.0 * 1600 * 1600
