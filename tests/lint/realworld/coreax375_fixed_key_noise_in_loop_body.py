# source: https://github.com/gchq/coreax/issues/375 (SlicedScoreMatching's noise-conditional
#   loop body and train step at the commit the report describes,
#   https://github.com/gchq/coreax/blob/20ec718ab8b6ae3f0afd8eccc4a15cd388e48e2e/coreax/score_matching.py;
#   docstrings are shortened; the class keeps only these two methods, num_noise_models and a
#   stand-in `_loss` returning the network's output, registered with register_static so
#   @jit can take `self`; the __main__ block uses a stand-in state whose network is identity)
# observed on jax 0.10.2 CPU: the perturbation is drawn from random.PRNGKey(0) on every
#   noise level of every step, so all noise levels and all steps add the same noise (the
#   report: "This will generate the same set of random numbers on each function call").
# gap: other
from functools import partial
import types

import jax
from jax import jit
from jax import numpy as jnp
from jax import random
from jax.lax import fori_loop
from jax.typing import ArrayLike


@jax.tree_util.register_static
class SlicedScoreMatching:
    def __init__(self, num_noise_models: int = 2):
        self.num_noise_models = num_noise_models

    def _loss(self, score_network):
        return lambda x, random_vectors: score_network(x)

    def _noise_conditional_loop_body(
        self,
        i: int,
        obj: float,
        state,
        params: dict,
        x: ArrayLike,
        random_vectors: ArrayLike,
        sigmas: ArrayLike,
    ) -> float:
        r"""Sum objective function with noise perturbations."""
        # TODO: This will generate the same set of random numbers on each function call.
        #  We might want to replace this with random.PRNGKey(i) to get a unique set each
        #  time.
        # Perturb the inputs with Gaussian noise
        x_perturbed = x + sigmas[i] * random.normal(random.PRNGKey(0), x.shape)  # expect: JIT502
        obj = (
            obj
            + sigmas[i] ** 2
            * self._loss(lambda x_: state.apply_fn({"params": params}, x_))(
                x_perturbed, random_vectors
            ).mean()
        )
        return obj

    @jit
    def _noise_conditional_train_step(
        self,
        state,
        x: ArrayLike,
        random_vectors: ArrayLike,
        sigmas: ArrayLike,
    ):
        r"""Apply a single training step that updates model parameters using loss gradient."""

        def loss(params):
            body = partial(
                self._noise_conditional_loop_body,
                state=state,
                params=params,
                x=x,
                random_vectors=random_vectors,
                sigmas=sigmas,
            )
            return fori_loop(0, self.num_noise_models, body, 0.0)

        val, grads = jax.value_and_grad(loss)(state.params)
        state = state.apply_gradients(grads=grads)
        return state, val


if __name__ == "__main__":
    sm = SlicedScoreMatching(num_noise_models=2)
    state = types.SimpleNamespace(params={}, apply_fn=lambda variables, x: x)
    x = jnp.zeros((4, 3))
    sigmas = jnp.array([1.0, 2.0])
    body = jax.jit(lambda i: sm._noise_conditional_loop_body(i, 0.0, state, {}, x, None, sigmas))
    obj0, obj1 = float(body(0)), float(body(1))
    # observed: line 45 draws the same noise for every noise level: level 1 (sigma 2) gives
    # exactly 2**3 times level 0's objective
    assert obj1 == 8 * obj0, (obj0, obj1)
    assert float(body(0)) == obj0
