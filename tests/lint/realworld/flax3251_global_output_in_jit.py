# source: https://github.com/google/flax/issues/3251 (the second benchmark of the report)
# observed on jax 0.10.2 CPU: infer returns nothing and writes a tracer into the global
#   `output` while tracing; later calls do no visible work, hence the "faster" timing.
#   The report's model is not shown; a one-layer flax model stands in.
# gap: stale-state-attributes
import flax.linen as nn
import jax
import jax.numpy as jnp

model = nn.Dense(4)
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 3)))

import tqdm

input_shape = (1, 512, 512, 3)
output = None

@jax.jit
def infer(x):
    global output
    output = model.apply(params, x)  # expect: JIT202

import time

output = infer(jnp.ones(input_shape))
del output

s = time.time()
for i in tqdm.tqdm(range(1000)):
    output = infer(jnp.ones(input_shape))
    output = None
    #output = model.apply(params, jnp.ones(input_shape))
e = time.time()
print(1000/(e-s))

if __name__ == "__main__":
    infer(jnp.ones((2, 3)))  # a new shape: traced again
    # observed: line 21 leaves a tracer in the module global
    assert isinstance(output, jax.core.Tracer)
