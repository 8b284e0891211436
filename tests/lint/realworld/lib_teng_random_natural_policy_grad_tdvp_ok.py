# source: https://github.com/pde-sim/teng/blob/58df8dcdca41656adac49b6815020b1e2232dffa/src/utils/random_policy_grad.py
#   (TENG, "Time-Evolving Natural Gradient for Solving PDEs With Deep Neural Nets Toward
#   Machine Precision", ICML 2024: a natural-gradient least-squares step on a random
#   subset of the parameters)
# observed on jax 0.10.2 CPU: runs clean. __call__ is jitted with the frozen dataclass
#   itself, the variational state's pure functions and the least-squares solver static;
#   the sampled parameter indices are traced and used to index the Jacobian and in
#   jnp.put. sample_params is jitted with the count static and threads the PRNG key
#   (split inside, the new key returned and stored), so each resampling draws a new
#   subset. After the first step, ten more steps (each resampling) compile nothing.
# gap: exemption-vs-JAX
# added: a stand-in for the repository's variational state (SimpleVarStateReal and its
#   pure functions: flatten_parameters, unflatten_parameters and evaluate of a flax
#   model, here a small flax.linen MLP on 2-D points, its parameters flattened with
#   ravel_pytree); inputs (a grid of 64 samples with equal quadrature weights, random
#   rewards); the __main__ block, which counts compilations.
from dataclasses import dataclass
from functools import partial
from typing import (
    Any,
    Tuple,
)

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import jax.random as jrnd
from jax.flatten_util import ravel_pytree

NN = Any
Sampler = Any
Shape = Tuple[int, ...]
Dtype = Any  # this could be a real type?
Array = Any
PyTreeDef = Any


@dataclass(frozen=True)
class RandomNaturalPolicyGradTDVPPure:
    """
    This is actually the mclanchlan's principle (or real dirac's principle)
    """
    nb_params_total: int

    @partial(jax.jit, static_argnums=(0, 2, 6))
    def __call__(self, state, var_state_pure, samples, sqrt_weights, rewards, ls_solver, params_to_take):
        """
        natural policy gradient with a subset of parameters
        """

        curr_params = var_state_pure.flatten_parameters(state['params'])

        # sampled_params = jnp.take(curr_params, params_to_take)

        # alternatively don't use the pmapped apply here, but manually put the data to different devices and copy state to different devices
        def net_apply_func(params, sample):
            params = var_state_pure.unflatten_parameters(params)
            new_state = flax.core.copy(state, add_or_replace={'params': params})
            value = var_state_pure.evaluate(new_state, sample[None, ...]).squeeze(0)
            return value

        jac = jax.vmap(jax.grad(net_apply_func), (None, 0))(curr_params, samples.squeeze(0))[..., params_to_take] * \
              sqrt_weights[0, ..., None]

        rewards = rewards * sqrt_weights

        update, res = jnp.linalg.lstsq(jac, rewards.squeeze(0))[:2]

        return jnp.put(jnp.zeros((self.nb_params_total,)), params_to_take, update, inplace=False), (res,)

    @partial(jax.jit, static_argnums=(0, 1))
    def sample_params(self, nb_params_to_take, rand_key):
        rand_key, sub_rand_key = jrnd.split(rand_key)
        return jrnd.choice(sub_rand_key, self.nb_params_total, shape=(nb_params_to_take,), replace=False), rand_key


class RandomNaturalPolicyGradTDVP:
    """
    This is actually the mclanchlan's principle (or real dirac's principle)
    """

    def __init__(self, var_state, ls_solver, nb_params_to_take=None, rand_seed=8848):
        self.var_state = var_state
        self.ls_solver = ls_solver
        self.rand_key = jax.random.PRNGKey(rand_seed)
        self.nb_params_total = var_state.count_parameters()
        if nb_params_to_take is None:
            self.nb_params_to_take = self.nb_params_total
        else:
            self.nb_params_to_take = min(nb_params_to_take, self.nb_params_total)
        self.pure_funcs = RandomNaturalPolicyGradTDVPPure(self.nb_params_total)
        self.params_to_take = None

    def sample_params(self):
        self.params_to_take, self.rand_key = self.pure_funcs.sample_params(self.nb_params_to_take, self.rand_key)
        # self.params_to_take = jnp.sort(self.params_to_take)
        return self.params_to_take

    def __call__(self, samples, sqrt_weights, rewards, *, var_state=None, resample_params=False):
        if resample_params:
            self.sample_params()
        if var_state is None:
            var_state = self.var_state
        return self.pure_funcs(var_state.state, var_state.pure_funcs, samples, sqrt_weights, rewards, self.ls_solver,
                               self.params_to_take)


# ---- stand-in for the repository's variational state
class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.tanh(nn.Dense(8)(x))
        return nn.Dense(1)(x).squeeze(-1)


class VarStatePure:
    def __init__(self, model, unravel):
        self.model = model
        self.unravel = unravel

    def flatten_parameters(self, params):
        return ravel_pytree(params)[0]

    def unflatten_parameters(self, params):
        return self.unravel(params)

    def evaluate(self, state, samples):
        return self.model.apply(state, samples)


class VarState:
    def __init__(self, model, key):
        self.state = model.init(key, jnp.zeros((1, 2)))
        flat, unravel = ravel_pytree(self.state['params'])
        self.pure_funcs = VarStatePure(model, unravel)

    def count_parameters(self):
        return ravel_pytree(self.state['params'])[0].size


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None)

    var_state = VarState(MLP(), jax.random.PRNGKey(0))
    tdvp = RandomNaturalPolicyGradTDVP(var_state, ls_solver="lstsq", nb_params_to_take=12)
    g = jnp.linspace(0., 1., 8, endpoint=False)
    samples = jnp.stack(jnp.meshgrid(g, g, indexing='ij'), axis=-1).reshape(1, 64, 2)
    sqrt_weights = jnp.ones((1, 64)) * jnp.sqrt(1. / 64)
    rewards = jax.random.normal(jax.random.PRNGKey(1), (1, 64))

    subsets = []
    update, (res,) = tdvp(samples, sqrt_weights, rewards, resample_params=True)
    new_compiles = 0
    for step in range(10):
        before = len(compiles)
        update, (res,) = tdvp(samples, sqrt_weights, rewards, resample_params=True)
        new_compiles += len(compiles) - before
        subsets.append(tuple(sorted(tdvp.params_to_take.tolist())))
        assert jnp.count_nonzero(update) <= 12 and jnp.all(jnp.isfinite(update))
    assert new_compiles == 0, new_compiles
    assert len(set(subsets)) > 1
