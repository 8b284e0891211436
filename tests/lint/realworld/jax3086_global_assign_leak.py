# source: https://github.com/jax-ml/jax/issues/3086
# observed on jax 0.10.2 CPU: after f(7) the global x holds a leaked tracer (with
#   jax_check_tracer_leaks on, the call raises instead).
# gap: stale-state-attributes
import jax

x = None

@jax.jit
def f(y):
    global x
    x = y  # expect: JIT202
    return y + 2

f(7)

if __name__ == "__main__":
    # observed: line 12 stores a tracer in module state
    assert isinstance(x, jax.core.Tracer)
