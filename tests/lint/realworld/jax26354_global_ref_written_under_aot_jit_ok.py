# source: https://github.com/jax-ml/jax/issues/26354 (the reporter's repro, "Global mutable
#   arrays do not work with AOT"; `from jax._src.core import mutable_array` is gone, its current
#   spelling is `jax.new_ref`)
# observed on jax 0.10.2 CPU: runs clean and prints True: the lowered and compiled f writes 7
#   into the global ref when it runs (the sharding-layout error of the report was fixed), and
#   the ref holds 7 afterwards. A write to a ref is a real effect of the compiled program, not
#   a trace-time side effect. Added: the `__main__` assert.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

a = jnp.uint32(0)
a_ref = jax.new_ref(a)

def f(x):
    a_ref[()] = 7  # writing to a global mutable array
    return jnp.isfinite(x)

x = jnp.float32(4.)

lowered = jax.jit(f).lower(x)
compiled = lowered.compile()
print(compiled(x))


if __name__ == "__main__":
    assert int(a_ref[...]) == 7
    assert bool(compiled(jnp.float32(1.)))
