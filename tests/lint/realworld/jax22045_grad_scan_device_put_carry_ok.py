# source: https://github.com/jax-ml/jax/issues/22045
# observed on jax 0.10.2 CPU: runs clean and prints 10.0. On jax 0.4.30 jax.grad of this
#   scan raised "TypeError: body_fun output and input must have identical types" because
#   jax.device_put((0, x)) gave the carry an int component whose cotangent type is float0.
#   The issue (labelled bug) is closed, and the same carry of an int and a float differentiates
#   through the scan here.
#   Added: nothing but the print.
# gap: exemption-vs-JAX
import jax

def f(ix, t):
    return ix, ix[1] + t

def scan_f(x):
    ix = jax.device_put((0, x))
    _, xs = jax.lax.scan(f, ix, jax.numpy.arange(10))
    return xs.sum()

print(jax.grad(scan_f)(1.))
