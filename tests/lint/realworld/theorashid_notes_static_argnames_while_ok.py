# source: https://theorashid.github.io/notes/jax.jit
#   (a user's notes on jax.jit: the static_argnames example; the notes' code has lost its
#   indentation, restored as the loop's meaning requires)
# observed on jax 0.10.2 CPU: runs clean and prints 30; n is static, so the Python `while`
#   compares plain ints and unrolls at trace time, and each new value of n is a new
#   compilation, as the notes say. Added: `import jax` and the __main__ block.
# gap: exemption-vs-JAX
import jax
from functools import partial
@partial(jax.jit, static_argnames=["n"])
def g_jit_decorated(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i
print(g_jit_decorated(10, 20))

if __name__ == "__main__":
    assert int(g_jit_decorated(10, 20)) == 30
    assert int(g_jit_decorated(10, n=5)) == 15
