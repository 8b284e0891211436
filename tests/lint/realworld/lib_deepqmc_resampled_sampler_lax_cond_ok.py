# source: https://github.com/deepqmc/deepqmc/commit/e5f368bcc3e53e06d3248e870839c93c585ce8e4
#   (src/deepqmc/jax/sampling.py at the commit "revert to cond to make sampling jitable":
#   MetropolisSampler, DecorrSampler, ResampledSampler, chain and equilibrate verbatim.
#   Added: check_overflow, split_dict and multinomial_resampling copied from deepqmc/jax/utils.py
#   and pairwise_self_distance from deepqmc/jax/physics.py of the same commit, the Psi
#   namedtuple of deepqmc/jax/types.py, a PRNGSequence stand-in for haiku's hk.PRNGSequence
#   (haiku is not installed), a Gaussian stand-in wave function and Hamiltonian, and the
#   __main__ block that equilibrates a chained Resampled-Decorr-Metropolis sampler)
# observed on jax 0.10.2 CPU: runs under jit; the resampling branch is a lax.cond on the
#   traced step counter, and the decorrelation steps are a lax.scan over split keys.
# gap: types
import logging
from collections import namedtuple
from functools import partial
from statistics import mean, stdev

import jax
import jax.numpy as jnp
from jax import lax
from jax.random import uniform

__all__ = ()

log = logging.getLogger(__name__)

Psi = namedtuple('Psi', 'sign log')


def multinomial_resampling(rng, weights, n_samples=None):
    n = len(weights)
    n_samples = n_samples or n
    weights_normalized = weights / jnp.sum(weights)
    i, j = jnp.triu_indices(n)
    weights_cum = jnp.zeros((n, n)).at[i, j].set(weights_normalized[j]).sum(axis=-1)
    return n - 1 - (uniform(rng, (n_samples,))[:, None] > weights_cum).sum(axis=-1)


def split_dict(dct, cond):
    included, excluded = {}, {}
    for k, v in dct.items():
        (included if cond(k) else excluded)[k] = v
    return included, excluded


def check_overflow(state_callback, func):
    def wrapper(rng, smpl_state, *args, **kwargs):
        while True:
            smpl_state, *other = func(
                rng, smpl_state_prev := smpl_state, *args, **kwargs
            )
            if state_callback:
                wf_state, overflow = state_callback(smpl_state['wf'])
                if overflow:
                    smpl_state = {**smpl_state_prev, 'wf': wf_state}
                    continue
            return smpl_state, *other

    return wrapper


def pairwise_self_distance(coords, full=False):
    i, j = jnp.triu_indices(coords.shape[-2], k=1)
    diffs = coords[..., :, None, :] - coords[..., None, :, :]
    dists = jnp.linalg.norm(diffs[..., i, j, :], axis=-1)
    if full:
        dists = (
            jnp.zeros(diffs.shape[:-1])
            .at[..., i, j]
            .set(dists)
            .at[..., j, i]
            .set(dists)
        )
    return dists


class PRNGSequence:  # stand-in for haiku's hk.PRNGSequence
    def __init__(self, rng):
        self._rng = rng

    def __iter__(self):
        return self

    def __next__(self):
        self._rng, rng = jax.random.split(self._rng)
        return rng


class MetropolisSampler:
    WALKER_STATE = ['r', 'psi', 'age']

    def __init__(self, hamil, *, tau, target_acceptance=0.57, max_age=None):
        self.hamil = hamil
        self.initial_tau = tau
        self.target_acceptance = target_acceptance
        self.max_age = max_age

    def _update(self, state, wf):
        psi, wf_state = jax.vmap(wf)(state['wf'], state['r'])
        state = {**state, 'psi': psi, 'wf': wf_state}
        return state

    def init(self, rng, wf, wf_state, n, state_callback=None):
        state = {
            'r': self.hamil.init_sample(rng, n),
            'age': jnp.zeros(n, jnp.int32),
            'tau': jnp.array(self.initial_tau),
            'wf': wf_state,
        }

        @partial(check_overflow, state_callback)
        def update(rng, state, wf):
            return (self._update(state, wf),)

        (state,) = update(None, state, wf)
        return state

    def _proposal(self, state, rng):
        r = state['r']
        return r + state['tau'] * jax.random.normal(rng, r.shape)

    def _acc_log_prob(self, state, prop):
        return 2 * (prop['psi'].log - state['psi'].log)

    def sample(self, rng, state, wf):
        rng_prop, rng_acc = jax.random.split(rng)
        prop = {
            'r': self._proposal(state, rng_prop),
            'age': jnp.zeros_like(state['age']),
            **{k: v for k, v in state.items() if k not in self.WALKER_STATE},
        }
        prop = self._update(prop, wf)
        log_prob = self._acc_log_prob(state, prop)
        accepted = log_prob > jnp.log(jax.random.uniform(rng_acc, log_prob.shape))
        if self.max_age:
            accepted = accepted | (state['age'] >= self.max_age)
        acceptance = accepted.astype(int).sum() / accepted.shape[0]
        if self.target_acceptance:
            prop['tau'] /= self.target_acceptance / jnp.max(
                jnp.stack([acceptance, jnp.array(0.05)])
            )
        state = {**state, 'age': state['age'] + 1}
        (prop, other), (state, _) = (
            split_dict(d, lambda k: k in self.WALKER_STATE) for d in (prop, state)
        )
        state = {
            **jax.tree_util.tree_map(
                lambda xp, x: jax.vmap(jnp.where)(accepted, xp, x), prop, state
            ),
            **other,
        }
        stats = {
            'sampling/acceptance': acceptance,
            'sampling/tau': state['tau'],
            'sampling/age/mean': jnp.mean(state['age']),
            'sampling/age/max': jnp.max(state['age']),
            'sampling/log_psi/mean': jnp.mean(state['psi'].log),
            'sampling/log_psi/std': jnp.std(state['psi'].log),
            'sampling/dists/mean': jnp.mean(pairwise_self_distance(state['r'])),
        }
        return state, state['r'], stats


class DecorrSampler:
    def __init__(self, length):
        self.length = length

    def sample(self, rng, state, wf):
        sample = super().sample  # lax cannot parse super()
        state, stats = lax.scan(
            lambda state, rng: sample(rng, state, wf)[::2],
            state,
            jax.random.split(rng, self.length),
        )
        stats = {k: v[-1] for k, v in stats.items()}
        return state, state['r'], stats


class ResampledSampler:
    def __init__(self, frequency):
        self.frequency = frequency

    def init(self, *args):
        state = super().init(*args)
        state = {
            **state,
            'step': jnp.array(0),
            'log_weight': jnp.zeros_like(state['psi'].log),
        }
        return state

    def resample_walkers(self, rng_re, state):
        idx = multinomial_resampling(rng_re, jnp.exp(state['log_weight']))
        state, other = split_dict(state, lambda k: k in self.WALKER_STATE)
        state = {
            **jax.tree_util.tree_map(lambda x: x[idx], state),
            **other,
            'step': jnp.array(0),
            'log_weight': jnp.zeros_like(other['log_weight']),
        }
        return state

    def sample(self, rng, state, wf):
        rng_re, rng_smpl = jax.random.split(rng)
        state, _, stats = super().sample(rng_smpl, state, wf)
        state['log_weight'] -= 2 * state['psi'].log
        state = self._update(state, wf)
        state['log_weight'] += 2 * state['psi'].log
        state['step'] += 1
        weight = jnp.exp(state['log_weight'])
        ess = jnp.sum(weight) ** 2 / jnp.sum(weight**2)
        stats['sampling/effective sample size'] = ess
        state = jax.lax.cond(
            state['step'] > self.frequency,
            self.resample_walkers,
            lambda rng, state: state,
            rng_re,
            state,
        )
        return state, state['r'], stats


def chain(*samplers):
    name = 'Sampler'
    bases = tuple(map(type, samplers))
    for base in bases:
        name = name.replace('Sampler', base.__name__)
    chained = type(name, bases, {'__init__': lambda self: None})()
    for sampler in samplers:
        chained.__dict__.update(sampler.__dict__)
    return chained


def equilibrate(
    rng,
    wf,
    sampler,
    state,
    criterion,
    steps,
    state_callback=None,
    *,
    block_size,
    n_blocks=5,
):
    criterion = jax.jit(criterion)

    @partial(check_overflow, state_callback)
    @jax.jit
    def sample_wf(rng, state):
        return sampler.sample(rng, state, wf)

    buffer_size = block_size * n_blocks
    buffer = []
    for step, rng in zip(steps, PRNGSequence(rng)):
        state, r, stats = sample_wf(rng, state)
        yield step, state, stats
        buffer = [*buffer[-buffer_size + 1 :], criterion(r).item()]
        if len(buffer) < buffer_size:
            continue
        b1, b2 = buffer[:block_size], buffer[-block_size:]
        if abs(mean(b1) - mean(b2)) < min(stdev(b1), stdev(b2)):
            break


class GaussianHamiltonian:  # stand-in: 2 electrons around the origin
    def init_sample(self, rng, n):
        return jax.random.normal(rng, (n, 2, 3))


def gaussian_wf(wf_state, r):  # stand-in wave function, log|psi| = -|r|^2 / 2
    return Psi(jnp.array(1.0), -0.5 * jnp.sum(r**2)), wf_state


if __name__ == "__main__":
    n = 16
    hamil = GaussianHamiltonian()
    sampler = chain(
        ResampledSampler(10), DecorrSampler(4), MetropolisSampler(hamil, tau=0.1)
    )
    rng_init, rng_eq = jax.random.split(jax.random.PRNGKey(0))
    state = sampler.init(rng_init, gaussian_wf, jnp.zeros(n), n)
    criterion = lambda r: jnp.mean(pairwise_self_distance(r))
    steps = 0
    for step, state, stats in equilibrate(
        rng_eq, gaussian_wf, sampler, state, criterion, range(30), block_size=5
    ):
        steps += 1
    assert steps > 11 and int(state['step']) <= 10
    print(step, stats['sampling/effective sample size'])
