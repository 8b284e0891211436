# source: https://github.com/jax-ml/jax/issues/2833 (the example in the description)
# observed on jax 0.10.2 CPU: raises TracerBoolConversionError at `if a_bool`: jit keeps
#   a_bool static, but jax.remat (jax.checkpoint) traces every argument it is given unless
#   its own static_argnums names it. Added: `import jax` and print().
# gap: other
import jax

def f(a_bool, y):
  if a_bool:  # expect: JIT101
    return y + 1
  else:
    return y

print(jax.jit(jax.remat(f), static_argnums=0)(True, 1))
