# source: https://github.com/google/flax/issues/4436
# observed on jax 0.10.2 CPU: with flax 0.12.8, `nnx.fori_loop` over a tuple of two different
#   models runs clean and returns them unchanged. When reported (December 2024) it raised
#   ValueError (body input and output "differ" in reference structure); the code itself has no
#   jit bug. Added: a `__main__` block that also runs the loop under `nnx.jit` and compares the
#   kernels.
# gap: exemption-vs-JAX
import jax
from flax import nnx

model = nnx.Linear(2, 2, rngs=nnx.Rngs(jax.random.PRNGKey(0)))
model2 = nnx.Linear(2, 2, rngs=nnx.Rngs(jax.random.PRNGKey(1)))

def f(i, x):
    return x

nnx.fori_loop(0, 10, f, (model, model2))


if __name__ == "__main__":
    @nnx.jit
    def run(m1, m2):
        return nnx.fori_loop(0, 10, f, (m1, m2))

    out1, out2 = run(model, model2)
    assert (out1.kernel.value == model.kernel.value).all()
    assert (out2.kernel.value == model2.kernel.value).all()
