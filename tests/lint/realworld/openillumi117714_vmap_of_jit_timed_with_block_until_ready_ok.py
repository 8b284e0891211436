# source: https://openillumi.com/?p=117714
#   (a Stack Overflow question retold: a function jitted and then vmapped runs slower
#   the second time; the code as the page quotes it, timed the way the answer says, with
#   .block_until_ready() on each result)
# observed on jax 0.10.2 CPU: runs clean: jax.vmap of the jitted my_function maps x's
#   rows and broadcasts y, the result has shape (shape[0],), and later calls compile
#   nothing new (no backend compile is reported by jax.monitoring). The question's shape (1_000_000,
#   1_000), an 8 GB float64 array, is reduced to (1_000, 100) so that the file runs
#   quickly; the timings only print. Added: the __main__ block.
# gap: other
from time import time
import jax
import numpy as np

@jax.jit
def my_function(x, y):
    # Matrix multiplication
    return x @ y

# Apply vmap to process matrices in batches
vectorized_function = jax.vmap(my_function, in_axes=(0, None))

shape = (1_000, 100)  # the question's (1_000_000, 1_000), reduced
x = np.ones(shape)
y = np.ones(shape[1])

# --- First execution (t_1) ---
start = time()
vectorized_function(x, y).block_until_ready()
t_1 = time() - start

# --- Second execution (t_2) ---
start = time()
vectorized_function(x, y).block_until_ready()
t_2 = time() - start

print(f'{t_1 = }\n{t_2 = }')

if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(name) if name.endswith("backend_compile_duration") else None)
    out = vectorized_function(x, y)
    assert compiles == [], compiles
    assert out.shape == (shape[0],)
    assert float(out[0]) == shape[1]
