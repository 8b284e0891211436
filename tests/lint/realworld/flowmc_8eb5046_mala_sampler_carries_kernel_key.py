# source: https://github.com/kazewong/flowMC/blob/8eb5046cef1ba86492b37c88ac29a3a1a0beeca4/src/flowMC/sampler/MALA.py
#   (the MALA local sampler of flowMC, the normalizing-flow MCMC sampler written for
#   gravitational-wave inference, before commit bf2b797 restructured it; the
#   `_, key = jax.random.split(key)` step lived on until the 2024 rewrite)
# observed on jax 0.10.2 CPU: each step of mh_update_sol2 splits the carried key, hands the
#   second half to mala_kernel, which splits it into the proposal and the accept keys, and
#   carries that same key on: the next step splits it again, so split(key) runs twice on
#   one key and the next step's key is exactly the key the previous step drew its accept
#   uniform from (mala_sampler also returns that consumed key to its caller). Run step by
#   step under jax.disable_jit with jax_debug_key_reuse and a typed key, the second step
#   raises KeyReuseError at its `_, key = jax.random.split(key)`. Kept as flowMC wrote
#   mala_kernel, mala_kernel_vec and mala_sampler. Added: progress_bar_scan is a stand-in
#   that returns the loop body unchanged (flowMC's tqdm bar uses the removed
#   jax.experimental.host_callback), the dual-moon target of example/dualmoon.py, and the
#   __main__ block. The __main__ block's mala_sampler(key0, ...) after splitting key0 reuses it (line 149, tolerated; JAX's checker names it at the scan it runs).
# gap: other
import jax
import jax.numpy as jnp
from jax import grad
from jax.scipy.special import logsumexp


def progress_bar_scan(num_samples, message=None):
    # stand-in for flowMC.utils.progressBar.progress_bar_scan: no progress bar
    def _decorator(func):
        return func
    return _decorator


def mala_kernel(rng_key, logpdf, d_logpdf, position, log_prob, dt=0.1):

    """
    Metropolis-adjusted Langevin algorithm kernel.
    This function make a proposal and accept/reject it.

    Args:
        rng_key (n_chains, 2): random key
        logpdf (function) : log-density function
        d_logpdf (function): gradient of log-density function
        position (n_chains, n_dim): current position
        log_prob (n_chains, ): log-probability of the current position
        dt (float): step size of the MALA step

    Returns:
        position (n_chains, n_dim): the new poisiton of the chain
        log_prob (n_chains, ): the log-probability of the new position
        do_accept (n_chains, ): whether to accept the new position

    """
    key1, key2 = jax.random.split(rng_key)
    proposal = position + dt * d_logpdf(position)
    proposal += dt * jnp.sqrt(2/dt) * jax.random.normal(key1, shape=position.shape)
    ratio = logpdf(proposal) - logpdf(position)
    ratio -= ((position - proposal - dt * d_logpdf(proposal)) ** 2 / (4 * dt)).sum()
    ratio += ((proposal - position - dt * d_logpdf(position)) ** 2 / (4 * dt)).sum()
    proposal_log_prob = logpdf(proposal)

    log_uniform = jnp.log(jax.random.uniform(key2))
    do_accept = log_uniform < ratio

    position = jnp.where(do_accept, proposal, position)
    log_prob = jnp.where(do_accept, proposal_log_prob, log_prob)
    return position, log_prob, do_accept

mala_kernel_vec = jax.vmap(mala_kernel, in_axes=(0, None, None, 0, 0, None))

def mala_sampler(rng_key, n_steps, logpdf, d_logpdf, initial_position, dt=1e-5):

    """
    Metropolis-adjusted Langevin algorithm sampler.
    This function do n step with the MALA kernel.

    Args:
        rng_key (n_chains, 2): random key for the sampler 
        n_steps (int): number of local steps 
        logpdf (function): log-density function
        d_logpdf (function): gradient of log-density function
        initial_position (n_chains, n_dim): initial position of the chain
        dt (float): step size of the MALA step

    Returns:
        rng_key (n_chains, 2): random key for the sampler after the sampling
        all_positions (n_chains, n_steps, n_dim): all the positions of the chain
        log_probs (n_chains, ): log probability at the end of the chain
        acceptance: acceptance rate of the chain 
    """

    @progress_bar_scan(n_steps, message="Running MALA sampler")
    def mh_update_sol2(i, state):
        key, positions, log_prob, acceptance = state
        _, key = jax.random.split(key)
        new_position, new_log_prob, do_accept = mala_kernel(key, logpdf,  # expect: JIT502
                                                               d_logpdf,
                                                               positions[i-1],
                                                               log_prob[i-1],
                                                               dt)
        positions = positions.at[i].set(new_position)
        log_prob = log_prob.at[i].set(new_log_prob)
        acceptance = acceptance.at[i].set(do_accept)
        return (key, positions, log_prob, acceptance)


    logp = logpdf(initial_position)
     # local sampler are vmapped outside, so the chain dimension is 1
    acceptance = jnp.zeros((n_steps,))
    all_positions = jnp.zeros((n_steps,)+initial_position.shape) + initial_position
    all_logp = jnp.zeros((n_steps,)) + logp
    initial_state = (rng_key,all_positions, all_logp, acceptance)
    rng_key, all_positions, all_logp, acceptance = jax.lax.fori_loop(1, n_steps, 
                                                   mh_update_sol2, 
                                                   initial_state)
    
    
    return rng_key, all_positions, all_logp, acceptance

def dual_moon_pe(x):
    """
    Term 2 and 3 separate the distribution and smear it along the first and second dimension
    """
    term1 = 0.5 * ((jnp.linalg.norm(x) - 2) / 0.1) ** 2
    term2 = -0.5 * ((x[:1] + jnp.array([-3.0, 3.0])) / 0.8) ** 2
    term3 = -0.5 * ((x[1:2] + jnp.array([-3.0, 3.0])) / 0.6) ** 2
    return -(term1 - logsumexp(term2) - logsumexp(term3))


d_dual_moon = jax.grad(dual_moon_pe)


if __name__ == "__main__":
    import traceback

    n_chains, n_dim, n_local_steps = 10, 5, 20
    rng_keys = jax.random.split(jax.random.PRNGKey(42), n_chains)
    initial_position = jax.random.normal(jax.random.PRNGKey(1), shape=(n_chains, n_dim))
    # as example/dualmoon.py runs it: vmapped over the chains
    run_mcmc = jax.vmap(mala_sampler, in_axes=(0, None, None, None, 0, None), out_axes=0)
    rng_out, chains, log_prob, acceptance = run_mcmc(rng_keys, n_local_steps, dual_moon_pe,
                                                     d_dual_moon, initial_position, 0.01)
    print(chains.shape, acceptance.mean())

    # observed: line 92 hands mala_kernel the key that the loop carries on: the key of
    # step 2 equals the key mala_kernel drew step 1's accept uniform from, and under
    # jax_debug_key_reuse the next split of that key is refused
    key0 = jax.random.PRNGKey(0)
    key_step1 = jax.random.split(key0)[1]
    accept_key_step1 = jax.random.split(key_step1)[1]   # mala_kernel's key2 in step 1
    key_step2 = jax.random.split(key_step1)[1]           # the next step's `_, key = split(key)`  # tolerate: JIT502
    assert (accept_key_step1 == key_step2).all()
    rng_one, _, _, _ = mala_sampler(key0, 2, dual_moon_pe, d_dual_moon, initial_position[0], 0.01)  # tolerate: JIT502
    assert (rng_one == key_step1).all()  # the sampler returns the key mala_kernel consumed

    jax.config.update("jax_debug_key_reuse", True)
    try:
        with jax.disable_jit():
            mala_sampler(jax.random.key(0), 3, dual_moon_pe, d_dual_moon, initial_position[0], 0.01)
    except Exception as err:
        tb = traceback.extract_tb(err.__traceback__)
        lines = [f.lineno for f in tb if f.filename == __file__]
        print(type(err).__name__, "at line", lines[-1])
        assert type(err).__name__ == "KeyReuseError" and lines[-1] == 91
    else:
        raise AssertionError("no KeyReuseError")
