# source: https://openillumi.com/?p=117787 (Stack Overflow question "How to loop a random number of times in jax with jit compilation", retold; the recommended fix: draw the count outside jit and pass it as a static argument; English version https://openillumi.com/en/en-jax-jit-dynamic-loop-error-fix)
# observed on jax 0.10.2 CPU: runs clean; each distinct count compiles once, repeated counts hit the cache
# gap: static-hashability
# (added: imports, `key`, the loop body `start += 1` (elided in the retelling as "# ... (Python's range() can be used)"), the __main__ block;
#  changed: `int(jax.random.randint(key, (1,), 1, 10))` -> `int(jax.random.randint(key, (1,), 1, 10)[0])`, since jax 0.10.2 refuses int() of a shape-(1,) array)
from functools import partial

import jax


key = jax.random.PRNGKey(0)


@partial(jax.jit, static_argnums=(1,))
def do_stuff(start, num_iters):
    for _ in range(num_iters):
        start += 1
    return start


num_iters = int(jax.random.randint(key, (1,), 1, 10)[0])


if __name__ == "__main__":
    out = do_stuff(0, num_iters)
    assert int(out) == num_iters, (out, num_iters)
    print(num_iters, out)
