# source: https://github.com/jax-ml/jax/issues/17319
# observed on jax 0.10.2 CPU: runs clean: jax.debug.print prints on every call (the
#   reporter's surprise was float32 rounding of time.time(), not the jit). Fewer sleeps.
# gap: exemption-vs-JAX
import jax
import time


@jax.jit
def print_t(t):
    jax.debug.print("t {t}", t=t)
    return t


if __name__ == "__main__":
    print("Testing with fixed values")
    for i in range(5):
        print_t(i)
    print("Testing with time.time()")
    for _ in range(2):
        t = time.time()
        print("outside of jit", t)
        print_t(t)
        time.sleep(0.01)
    print("Testing with time.monotonic()")
    for _ in range(2):
        print_t(time.monotonic())
        time.sleep(0.01)
    jax.effects_barrier()
