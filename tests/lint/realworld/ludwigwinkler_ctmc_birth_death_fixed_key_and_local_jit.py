# source: https://github.com/ludwigwinkler/ludwigwinkler.github.io/blob/63f0ee0e981ed5eef924eed2296679b080ad2a76/blogposts/_posts/2023-01-09-ContTimeMarkovChain.md
#   (a blog post, "Continuous Time Markov Chains in Jax": birth-death population processes.
#   Kept: the imports, `sample_exponential`, the first CTMC sampler `sample_process` with its
#   vmapped call, and the jitted sampler `fast_matrix_birth_death_process`, as written.
#   Changed: the docstring of `sample_exponential` opened with ''' and closed with ```, a
#   syntax error, now ''' on both sides; `tqdm` is replaced by a pass-through stand-in.
#   Left out: the plotting cells and the unjitted `matrix_birth_death_process`. Added: the
#   __main__ block, which runs the blog's vmapped `sample_process` call with two keys and
#   T = 20 (the blog: one key, T = 100) and calls the jitted sampler twice.)
# observed on jax 0.10.2 CPU: `sample_process` ignores the key it is given and rebinds `key`
#   to jax.random.PRNGKey(2), so every vmapped sample (and every call) draws the very same
#   trajectory: two different keys give identical event times and states.
#   `fast_matrix_birth_death_process` wraps its inner `sampling` in a fresh `jax.jit` on each
#   call, so each call traces and compiles it again (two calls, two compilations of
#   `sampling`; the blog calls it once plain and then under vmap twice).
# gap: other
import jax
import jax.numpy as jnp


def tqdm(x):  # stand-in for tqdm.notebook.tqdm
    return x


def sample_exponential(lam, key):
    '''Reparameterization for exponential distribution'''
    return - 1 / lam * jnp.log(jax.random.uniform(key))


la = jnp.array([0.1, 1, 2.]).reshape(-1,1)
mu = jnp.array([0.1, 1, 2.]).reshape(-1,1) - 0.1 * la # slightly smaller da

def sample_process( la, mu, T, key):

	num_processes = jnp.size(la) # 3 processes since we have three birth rates λ
	concat_weights = jnp.concatenate([la, mu], axis=0) # [la_1, la_2, la_3, mu_1, mu_2, mu_3]

	traj = jnp.zeros((1,jnp.size(la),)) # [step=1, F=3]
	t = jnp.zeros((1,)) # [step=1]

	key = jax.random.PRNGKey(2)  # expect: JIT502
	active_process_idxs = [] # collecting active process samplings

	while t[-1]< T:
		key, process_key, time_key = jax.random.split(key, 3)
		''' sampling process index from [la_1, la_2, la_3, mu_1, mu_2, mu_3]'''
		active_process = jax.random.choice(process_key, a=jnp.size(concat_weights), p=concat_weights.squeeze())
		active_process_idxs += [active_process]
		
		if active_process < num_processes: # [0, num_processes -1]
			# birth process
			rate = la[active_process]
			state_change = jax.nn.one_hot(jnp.array([active_process]), num_classes=num_processes)
		else:
			# death process
			rate = mu[active_process - num_processes]
			state_change = -jax.nn.one_hot(jnp.array([active_process - num_processes]), num_classes=num_processes)

		traj = jnp.concatenate([traj, traj[-1:] + state_change]) # do increment
		holding_time = sample_exponential(rate, time_key) # sample holding time where nothing happens
		t = jnp.concatenate([t, t[-1]+holding_time])

	return t, traj, active_process_idxs


def fast_matrix_birth_death_process(key, la, mu, jit=True):

    def sampling(t, idx, next_event, traj, la, mu, key):
        '''Some prepration for sampling'''
        num_processes = jnp.size(la)
        rates = jnp.stack([mu, la], axis=-1)
        '''
        vmap-able and jit-able control flow in shape of jax.numpy.where
        If current time t has progressed further than last event time, time to act!
        '''

        mask = jnp.where(t >= next_event[idx-1], jnp.ones((1,)), jnp.zeros((1,)))

        '''Split keys for sampling: process selection key, birth or death selection key, holding time key'''
        key, process_key, birth_death_key, time_key = jax.random.split(key, 4)

        '''Sampling the active process, whether birth or death, and holding time until next event'''
        active_process_idx = jax.random.categorical(key=process_key, logits=la + mu)
        birth_death_idx = jax.random.categorical(key=birth_death_key, logits=rates[active_process_idx])
        holding_time = sample_exponential(lam=jnp.sum(la+mu), key=time_key)
        
        '''Rescale increment from {0,1} to {-1, +1}'''
        increment = 2 * birth_death_idx - 1
        update = increment * jax.nn.one_hot(x=active_process_idx, num_classes=num_processes)

        '''
        Only adds when mask is one, if idx=0, then idx-1 wraps around to final time step which is zeros anyway
        If mask=0, it simply copies the event time from last step, but if mask=1, sampling is kicked off and the next holding time is added to current time
        '''
        traj = traj.at[idx].set(traj[idx-1] + mask.squeeze() * update.squeeze())
        next_event = next_event.at[idx].set(next_event[idx - 1] + mask.squeeze() * holding_time.squeeze())
        return next_event, traj, key

    '''Fixing time index'''
    T = 100
    steps = T * 100
    
    '''Allocating arrays to make life easier for JIT compiler, but shouldn't make a huge difference in this case'''
    traj = jnp.zeros((steps, la.size))  # [T, F]*0
    next_event = jnp.zeros((steps, 1))  # [T, 1]*0
    
    '''Single function transformation makes things go vroooom'''
    sampling = jax.jit(sampling) if jit else sampling  # expect: JIT301

    for idx, t_ in enumerate(tqdm(jnp.linspace(0, T, steps))):
        next_event, traj, key = sampling(t_, idx, next_event, traj, la, mu, key)

    t = jnp.linspace(0, T, steps).reshape(-1, 1)
    return t, traj


if __name__ == "__main__":
    # the blog's vmapped call of sample_process, with two sample keys instead of one
    key = jax.random.PRNGKey(1)
    num_samples = 2
    key, *subkey = jax.random.split(key, 1+num_samples)
    subkey = jnp.stack(subkey, axis=0)
    T = 20
    t, traj, active_process_idxs = jax.vmap(lambda key: sample_process(la, mu, T, key))(subkey)
    # observed: line 41 both vmapped samples (different keys) are one and the same trajectory
    assert t.shape[0] == 2 and t.shape[1] > 10
    assert jnp.array_equal(t[0], t[1]) and jnp.array_equal(traj[0], traj[1])
    t2, traj2, _ = sample_process(la, mu, T, jax.random.PRNGKey(12345))
    assert jnp.array_equal(t2, t[0]) and jnp.array_equal(traj2, traj[0])

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    la2 = jnp.array([0.1, 0.1, 0.1])*10
    mu2 = jnp.round(la2 - 0.01 * la2, 2)
    fast_matrix_birth_death_process(jax.random.PRNGKey(3), la2, mu2)
    n_first = len(compiles)
    fast_matrix_birth_death_process(jax.random.PRNGKey(4), la2, mu2)
    n_second = len(compiles) - n_first
    # observed: line 108 the second call compiles again: its one compilation is the new jit of
    # `sampling` (the first call's count adds the eager ops compiled once)
    assert n_first >= 1 and n_second >= 1, (n_first, n_second)
