# source: https://github.com/google-deepmind/optax/issues/353 (the reporter's example)
# observed on jax 0.10.2 CPU (optax 0.2.8): "compiling" is printed once per call of train(),
#   three times in all: each train() builds a new optax.adam, a GradientTransformation of
#   fresh closures that hashes and compares by identity, so the static `optimizer` never
#   matches the cached one and train_step is traced and compiled again. Within one train()
#   the ten calls reuse the compilation.
# gap: per-call-recompile
from functools import partial
import jax
import jax.numpy as jnp
import optax

@partial(jax.jit, static_argnames=("optimizer",))
def train_step(optimizer, opt_state):
    print("compiling")  # tolerate: JIT203

def train():
    optimizer = optax.adam(1e-2)
    opt_state = optimizer.init({"foo": jnp.zeros((100, 100))})
    
    for _ in range(10):
        train_step(optimizer, opt_state)  # expect: JIT301

train()
train()
train()


if __name__ == "__main__":
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        train()
        train()
    # observed: line 22 passes a new optimizer per train() call as a static argument: two
    #   more calls of train() trace train_step two more times
    assert out.getvalue().count("compiling") == 2, out.getvalue()
