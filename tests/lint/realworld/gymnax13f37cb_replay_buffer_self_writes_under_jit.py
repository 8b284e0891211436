# source: https://github.com/RobertTLange/gymnax/commit/13f37cbba91109f8e79daf7470ad60f79bef5e75
#   (gymnax/rollouts/replay_buffer.py at the parent commit; 13f37cb, "Fix jitted replay buffer
#   sampling", rewrites the class as init_buffer/push_to_buffer/sample_from_buffer on a dict,
#   its notes saying "There was some leakage of untraced vars coming from self")
# observed on jax 0.10.2 CPU: `push` is jitted with `self` static, so its writes to `self` run
#   only while it is traced: the seven buffers and `total_transitions` are left holding
#   tracers of that trace, and `buffer_pointer` is advanced once, to 1, however often push is
#   called (the second push hits the cache and stores nothing). `sample` then reads the
#   leaked `self.total_transitions` and raises ConcretizationTypeError at `jnp.arange` (a
#   tracer "of the function push" given as `stop`); its
#   reads of the buffers would be frozen at its first trace as well (not reached).
#   Kept verbatim: ReplayBuffer. Current spelling: `jax.ops.index_update(x,
#   jax.ops.index[i, :], v)` (removed) is `x.at[i, :].set(v)`, one statement a line.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
from jax import jit
from functools import partial


class ReplayBuffer(object):
    """A JAX-based replay buffer. JIT-through sampling and storage calls. """
    def __init__(self, state_template, obs_template, action_template,
                 capacity):
        """ Initialize jnp arrays based on shape of obs and capacity. """
        # Get shape of obs, state, action from template arrays
        self.state_shape = list(state_template.shape)
        self.obs_shape = list(obs_template.shape)
        self.action_shape = list(action_template.shape)

        # Initialize buffers for s_t, s_t_1, o_t, o_t_1, a_t, r_t_1, done_t
        self.state_buffer = jnp.zeros([capacity] + self.state_shape)
        self.next_state_buffer = jnp.zeros([capacity] + self.state_shape)
        self.obs_buffer = jnp.zeros([capacity] + self.obs_shape)
        self.next_obs_buffer = jnp.zeros([capacity] + self.obs_shape)
        self.action_buffer = jnp.zeros([capacity] + self.action_shape)
        self.reward_buffer =jnp.zeros(capacity)
        self.done_buffer = jnp.zeros(capacity)

        # Use pointer in buffer to overwrite entries once buffer runs over
        self.capacity = capacity
        self.buffer_pointer = 0
        self.total_transitions = 0

    @partial(jit, static_argnums=(0,))
    def push(self, state, next_state, obs, next_obs, action, reward, done):
        """ Store transition tuple data at step pointer location. """
        self.state_buffer = self.state_buffer.at[self.buffer_pointer, :].set(state)  # expect: JIT202  # tolerate: JIT201
        self.next_state_buffer = self.next_state_buffer.at[self.buffer_pointer, :].set(next_state)  # expect: JIT202  # tolerate: JIT201
        self.obs_buffer = self.obs_buffer.at[self.buffer_pointer, :].set(obs)  # expect: JIT202  # tolerate: JIT201
        self.next_obs_buffer = self.next_obs_buffer.at[self.buffer_pointer, :].set(next_obs)  # expect: JIT202  # tolerate: JIT201
        self.action_buffer = self.action_buffer.at[self.buffer_pointer, :].set(action)  # expect: JIT202  # tolerate: JIT201
        self.reward_buffer = self.reward_buffer.at[self.buffer_pointer].set(reward)  # expect: JIT202  # tolerate: JIT201
        self.done_buffer = self.done_buffer.at[self.buffer_pointer].set(done)  # expect: JIT202  # tolerate: JIT201

        # Update the buffer pointer, reset once capacity is full - overwrite
        self.buffer_pointer += 1  # expect: JIT202  # tolerate: JIT201
        self.total_transitions = jnp.minimum(self.total_transitions + 1,  # expect: JIT202  # tolerate: JIT201
                                             self.capacity)
        self.buffer_pointer = self.buffer_pointer % self.capacity  # expect: JIT202  # tolerate: JIT201

    @partial(jit, static_argnums=(0, 2,))
    def sample(self, key, batch_size):
        """ Sample a batch from buffer: (o_t, o_t_1, a_t, r_t_1, done_t) """
        valid_idx = jnp.arange(start=0, stop=self.total_transitions, step=1)  # expect: JIT201
        sample_idx = jax.random.choice(key, valid_idx, shape=(batch_size, ),
                                       replace=False)
        obs_batch = jnp.take(self.obs_buffer, sample_idx, axis=0)  # tolerate: JIT201
        next_obs_batch = jnp.take(self.next_obs_buffer, sample_idx, axis=0)  # tolerate: JIT201
        action_batch = jnp.take(self.action_buffer, sample_idx, axis=0)  # tolerate: JIT201
        reward_batch = jnp.take(self.reward_buffer, sample_idx, axis=0)  # tolerate: JIT201
        done_batch = jnp.take(self.done_buffer, sample_idx, axis=0)  # tolerate: JIT201
        return obs_batch, next_obs_batch, action_batch, reward_batch, done_batch


if __name__ == "__main__":
    import traceback

    buffer = ReplayBuffer(jnp.zeros(4), jnp.zeros(4), jnp.zeros(1), capacity=8)
    for t in range(3):
        x = jnp.full(4, float(t + 1))
        buffer.push(x, x + 1, x, x + 1, jnp.ones(1), 1.0, 0.0)

    # observed: line 48, line 49, line 50, line 51, line 52, line 53, line 54 and line 58 leave tracers of push's trace on the buffer object
    for name in ("state_buffer", "next_state_buffer", "obs_buffer", "next_obs_buffer",
                 "action_buffer", "reward_buffer", "done_buffer", "total_transitions"):
        assert isinstance(getattr(buffer, name), jax.core.Tracer), name
    # observed: line 57 and line 60 advance the pointer once, at trace time: three pushes leave it at 1
    assert buffer.buffer_pointer == 1

    # observed: line 65 reads the leaked total_transitions through the static self
    try:
        buffer.sample(jax.random.PRNGKey(0), 2)
    except jax.errors.ConcretizationTypeError as e:
        frames = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        assert frames[-1] == 65, frames
        assert "while tracing the function push" in str(e), e
    else:
        raise AssertionError("sample ran")
