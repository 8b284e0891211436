# source: https://github.com/jax-ml/jax/issues/31319 (jakevdp's minimal repro)
# observed on jax 0.10.2 CPU: runs clean: the second call of the jitted f hits the cache, so
#   jax.no_tracing(True) does not raise (when the issue was filed, in 2025, a jitted
#   function holding a pure_callback missed the fast path on every call). Added: the
#   __main__ block, which calls f three more times with tracing forbidden.
# gap: other
import jax

@jax.jit
def f(x):
  return jax.pure_callback(lambda x: x, x, x)

x = jax.numpy.arange(5.0)
f(x)
with jax.no_tracing(True):
  f(x)


if __name__ == "__main__":
    with jax.no_tracing(True):
        outs = [f(x) for _ in range(3)]
    assert all((out == x).all() for out in outs)
