# source: https://github.com/jax-ml/jax/issues/3974 (the call that works in the report: a
#   Python int in the static position)
# observed on jax 0.10.2 CPU: runs clean: `if n > 1` tests a static Python int while
#   tracing. The IPython session is written as a script; added: the check in __main__.
# gap: exemption-vs-JAX
import jax
import jax.numpy as np

def foo(n):
    if n > 1:
        return np.ones(1)
    return np.zeros(1)

if __name__ == "__main__":
    assert jax.jit(foo, static_argnums=(0,))(1).tolist() == [0.0]
    assert jax.jit(foo, static_argnums=(0,))(2).tolist() == [1.0]
