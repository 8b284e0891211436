# source: https://github.com/jax-ml/jax/issues/8962
# observed on jax 0.10.2 CPU: the eager call returns 1.0; the jitted call raises jax.errors.ConcretizationTypeError ("Abstract tracer value encountered ... This occurred in the item() method of jax.Array") at the `return x.item()` line
# gap: other
# (added: a `if __name__ == "__main__":` block around the two calls the user typed at the REPL)
import jax


def test(x):
    return x.item()  # expect: JIT401


if __name__ == "__main__":
    print(test(jax.numpy.ones(1)))
    # 1.0
    print(jax.jit(test)(jax.numpy.ones(1)))
