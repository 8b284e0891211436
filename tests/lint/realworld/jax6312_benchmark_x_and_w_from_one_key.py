# source: https://github.com/jax-ml/jax/issues/6312 (the reporter's benchmark script in the
#   description; `sys.argv` is set to the flags of the timing the thread discusses,
#   `--vmap True --jit True`, in place of the command line; `import sys` added)
# observed on jax 0.10.2 CPU: the inputs x and the weights w are both drawn from `key`, so
#   x is exactly the first 256 rows of w (correlation 1.0); jax_debug_key_reuse with typed
#   keys reports the second draw. The jit use itself is sound: `func = jit(predict)` is
#   built once, before the loop, and the jitted predict inside `vmap(func, ...)` is traced
#   and compiled once and reused on every later iteration (no compilation in the
#   `__main__` loop below).
# gap: other
import sys
sys.argv[1:] = ["--vmap", "True", "--jit", "True"]

import ast
import jax.numpy as jnp
from jax import jit, random, vmap
import time

def parse_args():
    import argparse
    parser = argparse.ArgumentParser(description='Jax batching performance test')
    parser.add_argument("--vmap", default=False, type=ast.literal_eval, help="Whether using vmap for vectorization")
    parser.add_argument("--jit", default=False, type=ast.literal_eval, help="Whether do jit for function")
    parser.add_argument('--T', default=1000, type=int, help='Run times')
    args = parser.parse_args()
    return args

args = parse_args()

def predict(w, x):
    #print(x.ndim)
    outputs = jnp.matmul(x, w)
    return outputs

func = jit(predict) if args.jit else predict

key = random.PRNGKey(0)
x = random.normal(key, (256,512))
w = random.normal(key, (512,512))  # expect: JIT502

start = time.time()
for _ in range(args.T):
    if args.vmap:
        vmap(func, in_axes=(None, 0))(w, x)
    else:
        func(w, x)
stop = time.time()

print("avg time: %f us" % ((stop - start) * 1e6 / args.T))


if __name__ == "__main__":
    import jax
    import numpy as np

    compiles = []

    def _count(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    # observed: line 39 draws w from the key x was drawn from: x is w's first 256 rows
    assert np.array_equal(np.asarray(x), np.asarray(w)[:256])

    jax.monitoring.register_event_duration_secs_listener(_count)
    for _ in range(5):
        out = vmap(func, in_axes=(None, 0))(w, x)
    assert compiles == [], compiles
    assert np.allclose(out, np.asarray(x) @ np.asarray(w), rtol=1e-4, atol=1e-3)
