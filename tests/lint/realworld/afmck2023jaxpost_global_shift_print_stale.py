# source: https://github.com/vvvm23/vvvm23.github.io/blob/df758ee5428be3732205edbe0efded2f57b2e8aa/content/posts/2023-05-22-jax-post/index.md (blog post "Jax Post" by Alexander McKinney, afmck.in/posts/2023-05-22-jax-post, section "Functional Purity and Side Effects": three cells showing a global float, a print and a global array under jax.jit)
# observed on jax 0.10.2 CPU: as in the post's output, jit_fn(x2) after `shift = 1.0` returns [-1 -2 -1] (the traced shift -1.0) instead of [1 0 1]; the print runs only when a new input shape is traced; after `b = jnp.array([0,0,0])` jit_fn(x) still returns [2 4 6]
# gap: flow-sensitive
# (added: the imports; `shift_jit_fn = jit_fn` and `print_fn, print_jit_fn = fn, jit_fn` after the first two cells so the __main__ checks can reach the functions the later cells rebind; the notebook output lines after `===` dropped)
import contextlib
import io

import jax
import jax.numpy as jnp

shift = -1.0
x1 = jnp.array([0, 1, 2])
x2 = jnp.array([0, -1, 0])
x3 = jnp.array([0, 1, 2, 3])
def fn(x):
  return x + shift  # expect: JIT201

print(fn(x1))

shift = 1.0
print(fn(x2))
print(fn(x3))

shift = -1.0
jit_fn = jax.jit(fn)

print(jit_fn(x1))

shift = 1.0
print(jit_fn(x2))

print(jit_fn(x3))
shift_jit_fn = jit_fn


def fn(x):
  print("called identity function")  # expect: JIT203
  return x

jit_fn = jax.jit(fn)

print("called `jit_fn(0.5)`")
_ = jit_fn(0.5)
print("called `jit_fn(1.0)`")
_ = jit_fn(1.0)
print("called `jit_fn([-1, 1])`")
_ = jit_fn(jnp.array([-1, 1]))
print_fn, print_jit_fn = fn, jit_fn


b = jnp.array([1,2,3])

def fn(x):
  return x + b  # expect: JIT201

jit_fn = jax.jit(fn)

x = jnp.array([1,2,3])
print(jit_fn(x))

b = jnp.array([0,0,0])
print(jit_fn(x))


if __name__ == "__main__":
    # observed: line 16 shift is 1.0 now, but the compiled fn for int32[3] keeps the traced -1.0: [-1 -2 -1] instead of [1 0 1]
    assert shift == 1.0
    stale = shift_jit_fn(x2)
    assert (stale == jnp.array([-1, -2, -1])).all(), stale
    assert (x2 + shift == jnp.array([1, 0, 1])).all()

    # observed: line 37 the print runs on the eager call and on each trace, not on a cached call
    def captured(f, arg):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            f(arg)
        return buf.getvalue().count("called identity function")
    assert captured(print_fn, 2.0) == 1
    assert captured(print_jit_fn, 2.0) == 0  # float32[] already traced by jit_fn(0.5)
    assert captured(print_jit_fn, jnp.zeros(3)) == 1  # a new shape is traced again

    # observed: line 54 b is zeros now, the compiled fn keeps the traced [1 2 3]: [2 4 6] instead of [1 2 3]
    assert (b == 0).all()
    out = jit_fn(x)
    assert (out == jnp.array([2, 4, 6])).all(), out
    assert (fn(x) == x).all()
    print("OK: stale shift, print once per trace, stale global array b")
