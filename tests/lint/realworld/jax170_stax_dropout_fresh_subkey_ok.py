# source: https://github.com/jax-ml/jax/issues/170 (the maintainer's example of the stax
#   Dropout layer)
# observed on jax 0.10.2 CPU: runs clean: a fresh subkey is split off for every call, so
#   the dropout patterns differ. `jax.experimental.stax`/`minmax` are spelled
#   `jax.example_libraries.stax` (minmax, unused, dropped); `from __future__` dropped;
#   init_fun now takes a key first (`init_fun(random.PRNGKey(1), in_shape)`). Added: the
#   second call, the last print's closing (the excerpt ends mid-call) and the __main__ block.
# gap: other
import jax.numpy as np
from jax import jit, grad
from jax import random
from jax.example_libraries import stax
from jax.example_libraries.stax import Dense, Relu, Dropout, LogSoftmax

init_fun, apply_fun = stax.serial(
    Dense(512), Relu, Dropout(0.4, mode='train'),
    Dense(512), Relu, Dropout(0.4, mode='train'),
    Dense(3), LogSoftmax
)

## Initialize parameters, not committing to a batch shape
in_shape = (-1, 28 * 28)
out_shape, net_params = init_fun(random.PRNGKey(1), in_shape)

## Apply network to dummy inputs.

# Every time we want a new random dropout pattern, we split the prng key and
# pass a fresh subkey into the call
key = random.PRNGKey(0)
inputs = np.ones((10, 28 * 28))

key, subkey = random.split(key)
print(apply_fun(net_params, inputs, rng=subkey))

key, subkey = random.split(key)
print(apply_fun(net_params, inputs, rng=subkey))

if __name__ == "__main__":
    k1, k2 = random.split(key)
    a = apply_fun(net_params, inputs, rng=k1)
    b = apply_fun(net_params, inputs, rng=k2)
    assert not bool(np.allclose(a, b))
