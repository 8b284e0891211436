import jax.numpy as jnp
import numpy as np


class ReplayBuffer:
    def __init__(self, capacity, dim):
        self.obs = jnp.zeros((capacity, dim))
        self.host_obs = np.zeros((capacity, dim), np.float32)
        self.ptr = 0

    def add(self, o):
        self.obs = self.obs.at[self.ptr].set(o)
        self.host_obs[self.ptr] = np.asarray(o)
        self.ptr += 1

    def add_bad(self, o):
        buf = jnp.asarray(self.host_obs)
        buf[self.ptr] = o  # expect: JIT501
        self.obs = buf
