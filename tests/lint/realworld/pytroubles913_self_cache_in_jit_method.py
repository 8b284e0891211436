# source: https://pytroubles.com/ru/ampposts/id913-jax-i-jit-tracerarrayconversionerror-i-kak-ispravit
#   (a Stack Overflow question retold: a jitted method stores an intermediate on self)
# observed on jax 0.10.2 CPU: `np.array(out1)` works, `np.array(box.cache)` raises
#   TracerArrayConversionError: the write to self.cache runs during tracing and leaves a
#   tracer on the object. Imports are added; the page's top-level program is moved under
#   `if __name__ == "__main__":`, with the failing conversion caught to check it.
# gap: stale-state-attributes
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def host_bootstrap():
    print("This code runs once at the beginning of the program.")
    return jnp.array([1.0, 2.0, 3.0])

class Box:

    @partial(jax.jit, static_argnums=0)
    def apply_jit(self, arr):
        print("This code runs once during the first trace.")  # tolerate: JIT203
        out = arr * 2
        self.cache = out  # expect: JIT202
        return out

if __name__ == "__main__":
    # Выполнение программы
    payload = host_bootstrap()
    box = Box()
    out1 = box.apply_jit(payload)  # Трассировка происходит здесь

    np.array(out1)
    try:
        np.array(box.cache)
        raise AssertionError("box.cache converted")
    except jax.errors.TracerArrayConversionError:
        pass
    # observed: line 25 leaves a tracer in box.cache, which np.array cannot convert
    assert isinstance(box.cache, jax.core.Tracer)
