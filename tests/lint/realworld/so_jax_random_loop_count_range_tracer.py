# source: https://openillumi.com/en/en-jax-jit-dynamic-loop-error-fix (Stack Overflow question "How to loop a random number of times in jax with jit compilation", retold; same article as https://openillumi.com/?p=117793 and ja https://openillumi.com/?p=117787)
# observed on jax 0.10.2 CPU: TypeError "Only integer scalar arrays can be converted to a scalar index" raised by range() on the traced randint draw at the labelled line (the asker, on an older JAX, got TracerIntegerConversionError there; a shape-() draw gives that error on 0.10.2 too)
# gap: types
# (added: imports, the module-level `key`, the loop body `start += 1` and the __main__ call; the retelling elides the body after the range() header)
import jax


key = jax.random.PRNGKey(0)


@jax.jit
def do_stuff(start):
    # use the JAX random number generator to decide how many times to loop
    for _ in range(jax.random.randint(key, (1,), 1, 10)):  # expect: JIT104
        start += 1
    return start


if __name__ == "__main__":
    print(do_stuff(0))
