# source: https://jugheadjones10.github.io/kim-young-jin/ml/leaked_batch_tracer.html
#   (a blog post, "leaked batch tracer": the author's reproduction of a leak hit while
#   vmapping a PPO training function over learning rates; a custom pytree stands in for
#   flax's TrainState holding an optax schedule)
# observed on jax 0.10.2 CPU: jax.vmap(train_fn) returns a TrainState whose `fn` is the
#   closure learning_schedule, stored whole as the pytree's auxiliary data, so it is not
#   a leaf that vmap maps out: the returned object's closure holds the BatchTracer of `lr`
#   after vmap has returned, and calling out.fn() raises UnexpectedTracerError. Under
#   jax.checking_leaks() the same call raises "Leaked trace BatchTrace". The post's last
#   statement (the checking_leaks block) is moved into the __main__ block, inside a
#   try/except that checks the error; the rest is the post's code, re-indented (the page
#   lost its line breaks). Added: the __main__ block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
from jax import tree_util


class TrainState:
    def __init__(self, fn):
        self.fn = fn


tree_util.register_pytree_node(
    TrainState,
    lambda container: ((), container),
    lambda aux_data, children: aux_data,
)


def train_fn(lr: jax.Array):
    def learning_schedule():
        return lr * 10.0

    return TrainState(fn=learning_schedule)  # expect: JIT202


def train_fn_b(lr: jax.Array):
    return lr * 10.0


# An array of values to map over
input_values = jnp.array([1.0, 5.0, 10.0])

# vmap the creator function
vmapped_creator = jax.vmap(train_fn)

if __name__ == "__main__":
    # observed: line 35 stores a closure over the traced lr in the pytree's aux data:
    # it outlives vmap and still holds the BatchTracer
    out = vmapped_creator(input_values)
    leaked = out.fn.__closure__[0].cell_contents
    assert isinstance(leaked, jax.core.Tracer), type(leaked)
    try:
        out.fn()
    except jax.errors.UnexpectedTracerError:
        pass
    else:
        raise AssertionError("the leaked tracer was usable")
    try:
        with jax.checking_leaks():
            # 4. Now the `TypeError` is bypassed, and JAX's leak detection
            # finds the tracer inside the container, raising the intended error.
            vmapped_creator(input_values)
    except Exception as e:
        assert "Leaked trace" in str(e), e
    else:
        raise AssertionError("no leak reported")
