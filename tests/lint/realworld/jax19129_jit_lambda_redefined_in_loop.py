# source: https://github.com/jax-ml/jax/pull/19129 (the example in the description,
#   yash22.py)
# observed on jax 0.10.2 CPU: in EXAMPLE 3 each iteration jits a new lambda, so each
#   iteration traces and compiles again (the cache-miss explanation the PR adds says
#   "never seen function"). EXAMPLES 1-2 retrace for a new shape and a new kwargs
#   signature, as the example intends. Added: `import numpy as np` and the __main__ block.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def f(x, y):
  return jnp.sin(x) + y['hi']

print('=== EXAMPLE 0: new function ===')
f(1, {'hi': np.arange(3)})

print('=== EXAMPLE 1: new shape ===')
f(1, {'hi': np.arange(4)})

print('=== EXAMPLE 2: new kwargs signature ===')
f(1, y={'hi': np.arange(4)})

print('=== EXAMPLE 3: redefining function in a loop')
for _ in range(2):
  jax.jit(lambda x: 2 * x)(3)  # expect: JIT301


if __name__ == "__main__":
  import jax.monitoring

  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **_kw: compiles.append(event)
      if event == "/jax/core/compile/backend_compile_duration" else None
  )
  for _ in range(3):
    jax.jit(lambda x: 2 * x)(3)  # tolerate: JIT301
  # observed: line 27 traces and compiles a new lambda on each of these 3 iterations
  assert len(compiles) >= 3, compiles
