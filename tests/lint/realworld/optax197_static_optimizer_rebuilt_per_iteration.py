# source: https://github.com/google-deepmind/optax/issues/197 (NeilGirdhar's example in the
#   thread, comment of 2021-11-19; the maintainer: "the optax recompilation happens because
#   JAX is seeing that you are giving it argument[s]" that are new each time)
# observed on jax 0.10.2 CPU (optax 0.2.8): "optax compiled 100 times": each iteration
#   builds a new `adam(0.05)`, a GradientTransformation of fresh closures that hashes by
#   identity, and hands it to `inference` as its static argument, so jit traces and compiles
#   again every iteration (the global counter is the example's deliberate trace counter).
#   Added: `State` is a `flax.struct.dataclass` standing in for `tjax.dataclass` (a pytree
#   dataclass; tjax is not installed). Left out: the imports of tjax and the second loop,
#   which runs the same code with tjax's own `adam`.
# gap: per-call-recompile
from typing import Any

import jax.numpy as jnp
from flax.struct import dataclass
from jax import grad, jit
from jax.lax import scan
from optax import adam


@dataclass
class State:
    parameters: float
    gt_state: Any

def loss(parameters):
    return jnp.square(parameters - 1.0)

def inference(gt: Any):
    global compiled_times
    compiled_times += 1  # tolerate: JIT202
    def do_one(state: State, _: None):
        gradient = grad(loss)(state.parameters)
        new_gradient, gt_state = gt.update(gradient, state.gt_state, state.parameters)
        parameters = state.parameters + new_gradient
        return State(parameters, gt_state), parameters

    state = State(0.0, gt.init(0.0))
    final_state, trajectory = scan(do_one, state, None, 100)
    return trajectory  #final_state.parameters

compiled_times = 0
for _ in range(100):
    gt1 = adam(0.05)
    jit(inference, static_argnums=0)(gt1)  # expect: JIT301
print(f"optax compiled {compiled_times} times")


if __name__ == "__main__":
    assert compiled_times == 100, compiled_times
    compiled_times = 0
    for _ in range(3):
        gt1 = adam(0.05)
        jit(inference, static_argnums=0)(gt1)  # tolerate: JIT301
    # observed: line 45 passes a new optimizer as the static argument on every iteration:
    #   three more iterations trace `inference` three more times
    assert compiled_times == 3, compiled_times
