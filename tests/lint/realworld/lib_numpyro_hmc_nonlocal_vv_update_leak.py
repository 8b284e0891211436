# source: https://github.com/pyro-ppl/numpyro/blob/d393f5a020eaf45865afb2fb66bc6fea25076d8f/numpyro/infer/hmc.py
#   (numpyro's functional `hmc` before https://github.com/pyro-ppl/numpyro/pull/1985, "Fix
#   tracer leak in hmc", which stops `_hmc_next` and `_nuts_next` from rebinding the
#   enclosing `vv_update` with `nonlocal`; part of numpyro#1981, "Tracking leaked tracers".
#   The `hmc` function is verbatim without its three docstrings; HMCState, _get_num_steps,
#   momentum_generator and the hmc_util helpers are imported from numpyro 0.22, where they
#   are unchanged; the model, `potential_fn_gen` and the __main__ block are added)
# observed on jax 0.10.2 CPU with numpyro 0.22: with `potential_fn_gen`, jitting
#   `sample_kernel` and passing the data as a traced model argument makes `_nuts_next`
#   (line 212) and `_hmc_next` (line 161) store a `velocity_verlet` update closing
#   over the traced data in the enclosing `hmc` scope, which outlives the trace:
#   `jax.checking_leaks()` raises "Leaked trace" for both algorithms, and afterwards the
#   closure cell of `vv_update` still holds the jit tracer of the data.
# gap: stale-state-attributes
from functools import partial
import math
import os

import jax
from jax import lax, random
import jax.numpy as jnp

from numpyro.infer.hmc import HMCState, _get_num_steps, momentum_generator
from numpyro.infer.hmc_util import (
    IntegratorState,
    build_tree,
    euclidean_kinetic_energy,
    find_reasonable_step_size,
    velocity_verlet,
    warmup_adapter,
)
from numpyro.infer.util import ParamInfo
from numpyro.util import cond, fori_loop, identity


def hmc(potential_fn=None, potential_fn_gen=None, kinetic_fn=None, algo="NUTS"):
    if kinetic_fn is None:
        kinetic_fn = euclidean_kinetic_energy
    vv_update = None
    max_treedepth = None
    wa_update = None
    wa_steps = None
    forward_mode_ad = False
    max_delta_energy = 1000.0
    fixed_num_steps = None
    if algo not in {"HMC", "NUTS"}:
        raise ValueError("`algo` must be one of `HMC` or `NUTS`.")

    def init_kernel(
        init_params,
        num_warmup,
        step_size=1.0,
        inverse_mass_matrix=None,
        adapt_step_size=True,
        adapt_mass_matrix=True,
        dense_mass=False,
        target_accept_prob=0.8,
        *,
        num_steps=None,
        trajectory_length=2 * math.pi,
        max_tree_depth=10,
        find_heuristic_step_size=False,
        forward_mode_differentiation=False,
        regularize_mass_matrix=True,
        model_args=(),
        model_kwargs=None,
        rng_key=None,
    ):
        rng_key = random.PRNGKey(0) if rng_key is None else rng_key
        step_size = lax.convert_element_type(step_size, jnp.result_type(float))
        if trajectory_length is not None:
            trajectory_length = lax.convert_element_type(
                trajectory_length, jnp.result_type(float)
            )
        nonlocal \
            wa_update, \
            max_treedepth, \
            vv_update, \
            wa_steps, \
            forward_mode_ad, \
            fixed_num_steps
        forward_mode_ad = forward_mode_differentiation
        wa_steps = num_warmup
        max_treedepth = (
            max_tree_depth
            if isinstance(max_tree_depth, tuple)
            else (max_tree_depth, max_tree_depth)
        )
        fixed_num_steps = num_steps
        if isinstance(init_params, ParamInfo):
            z, pe, z_grad = init_params
        else:
            z, pe, z_grad = init_params, None, None
        pe_fn = potential_fn
        if potential_fn_gen:
            if pe_fn is not None:
                raise ValueError(
                    "Only one of `potential_fn` or `potential_fn_gen` must be provided."
                )
            else:
                kwargs = {} if model_kwargs is None else model_kwargs
                pe_fn = potential_fn_gen(*model_args, **kwargs)

        find_reasonable_ss = None
        if find_heuristic_step_size:
            find_reasonable_ss = partial(
                find_reasonable_step_size, pe_fn, kinetic_fn, momentum_generator
            )

        wa_init, wa_update = warmup_adapter(
            num_warmup,
            adapt_step_size=adapt_step_size,
            adapt_mass_matrix=adapt_mass_matrix,
            dense_mass=dense_mass,
            target_accept_prob=target_accept_prob,
            find_reasonable_step_size=find_reasonable_ss,
            regularize_mass_matrix=regularize_mass_matrix,
        )

        rng_key_hmc, rng_key_wa, rng_key_momentum = random.split(rng_key, 3)
        z_info = IntegratorState(z=z, potential_energy=pe, z_grad=z_grad)
        wa_state = wa_init(
            z_info, rng_key_wa, step_size, inverse_mass_matrix=inverse_mass_matrix
        )
        r = momentum_generator(z, wa_state.mass_matrix_sqrt, rng_key_momentum)
        vv_init, vv_update = velocity_verlet(pe_fn, kinetic_fn, forward_mode_ad)
        vv_state = vv_init(z, r, potential_energy=pe, z_grad=z_grad)
        energy = vv_state.potential_energy + kinetic_fn(
            wa_state.inverse_mass_matrix, vv_state.r
        )
        zero_int = jnp.array(0, dtype=jnp.result_type(int))
        hmc_state = HMCState(
            zero_int,
            vv_state.z,
            vv_state.z_grad,
            vv_state.potential_energy,
            energy,
            None,
            trajectory_length,
            zero_int,
            jnp.zeros(()),
            jnp.zeros(()),
            jnp.array(False),
            wa_state,
            rng_key_hmc,
        )
        return hmc_state

    def _hmc_next(
        step_size,
        inverse_mass_matrix,
        vv_state,
        model_args,
        model_kwargs,
        rng_key,
        trajectory_length,
    ):
        if potential_fn_gen:
            nonlocal vv_update, forward_mode_ad
            pe_fn = potential_fn_gen(*model_args, **model_kwargs)
            _, vv_update = velocity_verlet(pe_fn, kinetic_fn, forward_mode_ad)  # expect: JIT202

        if fixed_num_steps is not None:
            num_steps = fixed_num_steps
        # no need to spend too many steps if the state z has 0 size (i.e. z is empty)
        elif len(inverse_mass_matrix) == 0:
            num_steps = 1
        else:
            num_steps = _get_num_steps(step_size, trajectory_length)

        if trajectory_length is not None:
            # makes sure trajectory length is constant, rather than step_size * num_steps
            step_size = trajectory_length / num_steps
        vv_state_new = fori_loop(
            0,
            num_steps,
            lambda i, val: vv_update(step_size, inverse_mass_matrix, val),
            vv_state,
        )
        energy_old = vv_state.potential_energy + kinetic_fn(
            inverse_mass_matrix, vv_state.r
        )
        energy_new = vv_state_new.potential_energy + kinetic_fn(
            inverse_mass_matrix, vv_state_new.r
        )
        delta_energy = energy_new - energy_old
        delta_energy = jnp.where(jnp.isnan(delta_energy), jnp.inf, delta_energy)
        accept_prob = jnp.clip(jnp.exp(-delta_energy), None, 1.0)
        diverging = delta_energy > max_delta_energy
        transition = random.bernoulli(rng_key, accept_prob)
        vv_state, energy = cond(
            transition,
            (vv_state_new, energy_new),
            identity,
            (vv_state, energy_old),
            identity,
        )
        return vv_state, energy, num_steps, accept_prob, diverging

    def _nuts_next(
        step_size,
        inverse_mass_matrix,
        vv_state,
        model_args,
        model_kwargs,
        rng_key,
        max_treedepth_current,
    ):
        if potential_fn_gen:
            nonlocal vv_update, forward_mode_ad
            pe_fn = potential_fn_gen(*model_args, **model_kwargs)
            _, vv_update = velocity_verlet(pe_fn, kinetic_fn, forward_mode_ad)  # expect: JIT202

        binary_tree = build_tree(
            vv_update,
            kinetic_fn,
            vv_state,
            inverse_mass_matrix,
            step_size,
            rng_key,
            max_delta_energy=max_delta_energy,
            max_tree_depth=(max_treedepth_current, max(max_treedepth)),
        )
        accept_prob = binary_tree.sum_accept_probs / binary_tree.num_proposals
        num_steps = binary_tree.num_proposals
        vv_state = IntegratorState(
            z=binary_tree.z_proposal,
            r=vv_state.r,
            potential_energy=binary_tree.z_proposal_pe,
            z_grad=binary_tree.z_proposal_grad,
        )
        return (
            vv_state,
            binary_tree.z_proposal_energy,
            num_steps,
            accept_prob,
            binary_tree.diverging,
        )

    _next = _nuts_next if algo == "NUTS" else _hmc_next

    def sample_kernel(hmc_state, model_args=(), model_kwargs=None):
        model_kwargs = {} if model_kwargs is None else model_kwargs
        rng_key, rng_key_momentum, rng_key_transition = random.split(
            hmc_state.rng_key, 3
        )
        r = (
            momentum_generator(
                hmc_state.z, hmc_state.adapt_state.mass_matrix_sqrt, rng_key_momentum
            )
            if hmc_state.r is None
            else hmc_state.r
        )
        vv_state = IntegratorState(
            hmc_state.z, r, hmc_state.potential_energy, hmc_state.z_grad
        )
        if algo == "HMC":
            hmc_length_args = (hmc_state.trajectory_length,)
        else:
            hmc_length_args = (
                jnp.where(hmc_state.i < wa_steps, max_treedepth[0], max_treedepth[1]),
            )
        vv_state, energy, num_steps, accept_prob, diverging = _next(
            hmc_state.adapt_state.step_size,
            hmc_state.adapt_state.inverse_mass_matrix,
            vv_state,
            model_args,
            model_kwargs,
            rng_key_transition,
            *hmc_length_args,
        )
        # not update adapt_state after warmup phase
        adapt_state = cond(
            hmc_state.i < wa_steps,
            (hmc_state.i, accept_prob, vv_state, hmc_state.adapt_state),
            lambda args: wa_update(*args),
            hmc_state.adapt_state,
            identity,
        )

        itr = hmc_state.i + 1
        n = jnp.where(hmc_state.i < wa_steps, itr, itr - wa_steps)
        mean_accept_prob = (
            hmc_state.mean_accept_prob + (accept_prob - hmc_state.mean_accept_prob) / n
        )

        r = vv_state.r if hmc_state.r is not None else None
        return HMCState(
            itr,
            vv_state.z,
            vv_state.z_grad,
            vv_state.potential_energy,
            energy,
            r,
            hmc_state.trajectory_length,
            num_steps,
            accept_prob,
            mean_accept_prob,
            diverging,
            adapt_state,
            rng_key,
        )

    # Make `init_kernel` and `sample_kernel` visible from the global scope once
    # `hmc` is called for sphinx doc generation.
    if "SPHINX_BUILD" in os.environ:
        hmc.init_kernel = init_kernel
        hmc.sample_kernel = sample_kernel

    return init_kernel, sample_kernel


def potential_fn_gen(data):
    # a Gaussian mean with a standard normal prior; the data is a model argument
    def potential_fn(z):
        return 0.5 * jnp.sum(z["mu"] ** 2) + 0.5 * jnp.sum((data - z["mu"]) ** 2)

    return potential_fn


def leaked_data(sample_kernel):
    # the value the enclosing `hmc` scope holds in `vv_update` after the jitted call
    for name, cell in zip(sample_kernel.__code__.co_freevars, sample_kernel.__closure__):
        if name == "_next":
            next_fn = cell.cell_contents
    cells = dict(zip(next_fn.__code__.co_freevars, next_fn.__closure__))
    update_fn = cells["vv_update"].cell_contents
    found = []

    def walk(fn, depth=0):
        for c in getattr(fn, "__closure__", None) or ():
            v = c.cell_contents
            if isinstance(v, jax.core.Tracer):
                found.append(v)
            elif callable(v) and depth < 4:
                walk(v, depth + 1)

    walk(update_fn)
    return found


def jit_and_check(sample_kernel, state, data):
    step = jax.jit(sample_kernel)
    try:
        with jax.checking_leaks():
            step(state, (data,))
        raise AssertionError("expected a leaked trace")
    except Exception as e:
        assert "Leaked trace" in str(e), str(e)[:300]
    step(state, (data,))
    return any(isinstance(t, jax.core.Tracer) for t in leaked_data(sample_kernel))


if __name__ == "__main__":
    data = jnp.array([0.5, 1.0, 1.5])

    init_nuts, sample_nuts = hmc(potential_fn_gen=potential_fn_gen, algo="NUTS")
    nuts_state = init_nuts(
        {"mu": jnp.zeros(())}, num_warmup=10, model_args=(data,), rng_key=random.PRNGKey(0)
    )
    # observed: line 212 (NUTS) rebinds `vv_update` in the enclosing scope to an update
    #   closing over the traced data: a leaked trace, and a tracer left in the closure
    assert jit_and_check(sample_nuts, nuts_state, data)

    init_hmc, sample_hmc = hmc(potential_fn_gen=potential_fn_gen, algo="HMC")
    hmc_state = init_hmc(
        {"mu": jnp.zeros(())}, num_warmup=10, model_args=(data,), rng_key=random.PRNGKey(1)
    )
    # observed: line 161 (HMC) does the same in `_hmc_next`
    assert jit_and_check(sample_hmc, hmc_state, data)
