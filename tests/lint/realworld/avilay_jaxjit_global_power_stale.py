# source: https://github.com/avilay/learn-ai-act-1/blob/0cc7bc7c0794b0328002af4607388358c1518992/learn-jax/jaxjit.ipynb
#   (a learner's notebook on jit: the `power` global read by `powerof`, set to 5 and then
#   10 around calls of jit(powerof); the notebook's outputs show 32, then 32 again, then
#   1024 for a float array)
# observed on jax 0.10.2 CPU: jit(powerof)(2) traces powerof with power == 5 and caches the
#   program under powerof itself, so after `power = 10` a fresh jit(powerof)(2) still
#   returns 32 (the plain call returns 1024); only an argument of another shape retraces
#   and reads 10. Added: the __main__ block, which repeats the notebook's calls.
# gap: stale-state-attributes
import jax
import numpy as np
import jax.numpy as jnp
from jax import random, jit, lax, vmap, pmap, grad, value_and_grad

power = 5

def powerof(x):
    return x ** power  # expect: JIT201

powerof(2)

power = 10
powerof(2)

power = 5
jit(powerof)(2)

power = 10
jit(powerof)(2)

power = 10
jit(powerof)(jnp.array([2., 2.]))


if __name__ == "__main__":
    # observed: line 18 is read once per trace: with power == 10 the scalar call still
    # gives 2 ** 5 from the trace taken when power was 5
    assert powerof(2) == 1024
    assert int(jit(powerof)(2)) == 32
    assert jit(powerof)(jnp.array([2., 2.])).tolist() == [1024.0, 1024.0]
