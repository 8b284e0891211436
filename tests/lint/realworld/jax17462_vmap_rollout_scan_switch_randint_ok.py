# source: https://github.com/jax-ml/jax/issues/17462
# observed on jax 0.10.2 CPU: runs clean: rollout splits its key into one key per step and
#   scans over them, each step draws its action with randint from its own key and hands the
#   traced action to lax.switch over lambdas that close over the state; jit of vmap of
#   rollout gives each of the 50 environments its own trajectory (the report was about
#   speed, not correctness).
#   Added: the stored copy of the report stops inside `return jax.lax.scan(_`; it is
#   completed as `jax.lax.scan(_body_fn, state, action_keys)` (the carry, the body and the
#   keys the function builds), and the __main__ block (jit of vmap over split keys) stands
#   in for the timing harness.
# gap: other
import jax
import jax.numpy as jnp
import time
import numpy as np
from flax import struct

TIMESTEPS = 10_000
NUM_ENVS = 50


class State(struct.PyTreeNode):
    obs: jax.Array


def step(state, action):
    options = (
        lambda: state.obs + jnp.array((0, 1, 7)),
        lambda: state.obs + jnp.array((5, 0, 1)),
        lambda: state.obs + jnp.array((0, 1, 2)),
        lambda: state.obs + jnp.array((4, 0, 3)),
        lambda: state.obs + jnp.array((0, 3, 4)),
    )
    obs = jax.lax.switch(action, options)
    
    return state.replace(obs=obs)


def rollout(key):
    action_keys = jax.random.split(key, TIMESTEPS)

    def _body_fn(state, key):
        action = jax.random.randint(key, shape=(), minval=0, maxval=5)
        # action = jnp.asarray(np.random.randint(0, 5))  # with this vmap will work okay, linear scaling
        state = step(state, action)
        return state, None

    state = State(obs=jnp.array((0, 0, 0)))
    
    return jax.lax.scan(_body_fn, state, action_keys)


if __name__ == "__main__":
    keys = jax.random.split(jax.random.PRNGKey(0), NUM_ENVS)
    final_state, _ = jax.jit(jax.vmap(rollout))(keys)
    obs = final_state.obs
    assert obs.shape == (NUM_ENVS, 3)
    # each step adds between 3 and 8 in total, whichever option is drawn
    totals = obs.sum(axis=1)
    assert bool(jnp.all((totals >= 3 * TIMESTEPS) & (totals <= 8 * TIMESTEPS)))
    # the environments drew different actions
    assert len({tuple(int(v) for v in row) for row in obs}) > 1
    # vmap gives the same trajectory as a single rollout
    single, _ = jax.jit(rollout)(keys[3])
    assert bool(jnp.all(single.obs == obs[3]))
