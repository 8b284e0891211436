# source: https://github.com/jax-ml/jax/issues/1172 (the reporter's timing script, quoted in
#   https://github.com/jax-ml/jax/pull/1175 "improve prng compile times with loop rolling")
# observed on jax 0.10.2 CPU: runs clean; each i is a new value of the static argument, so
#   `jit(f, static_argnums=(1,))` compiles once per i, which is what the script times (the
#   Python loop over range(i) in f unrolls i splits, i being a Python int). jax.jit of the
#   module-level f inside the loop hits the same cache entry for a repeated i. Changes:
#   `from jax.config import config` -> `from jax import config`; the driver loop is put under
#   `if __name__ == "__main__":`.
# gap: per-call-recompile
from jax import jit, random
from jax import config; config.update("jax_platform_name", "cpu")
import time

def f(key, i):
    for _ in range(i):
        _, key = random.split(key)
    return key

if __name__ == "__main__":
    for i in range(17):
        t = time.time()
        key = jit(f, static_argnums=(1,))(random.PRNGKey(0), i).copy()
        print("split {} times takes {}".format(i, time.time() - t))
