# source: https://github.com/boingkiri/diffusion/blob/f201712472dbd799152cfc188284490a56a662de/utils/ema.py
# observed on jax 0.10.2 CPU: runs clean: the EMA update is pmapped once with the step passed as an
#   argument (in_axes=(0, None)), so each update uses the decay of its own step, and 40 updates at
#   different steps compile the pmapped function twice in all (for the replicated input state and
#   once more for the state the pmap returns), not per step. This is the commit "Fix ema bug"; its parent
#   (820f3131a08ea82d1b3aa2bcdf1f97fe2344ffa7) stored the step in self.step and read it inside the
#   pmapped function, where it is read once, at trace time.
# gap: stale-state-attributes
# Kept: utils/ema.py as written. Changed: jax.tree_map (removed from JAX) spelled
#   jax.tree_util.tree_map; the file's own __main__ (an endless loop printing decays) replaced.
#   Added: TrainState with a params_ema field from utils/jax_utils.py at the same commit, and a
#   __main__ block that replicates a small state on the local devices as the repository's
#   framework does (flax.jax_utils.replicate) and calls ema_update after every step as
#   diffusion_framework.fit does.
import flax
import flax.linen as nn
import jax
import jax.numpy as jnp

import copy

class EMA():
    def __init__(
        self, 
        # ema_params, 
        beta=0.999, 
        update_every=10,
        update_after_step=100,
        power=2/3,
        pmap=False):

        # self.ema_params = copy.deepcopy(ema_params)
        self.beta = beta
        self.update_every = update_every
        self.update_after_step = update_after_step
        self.power = power
        self.pmap = pmap

        def ema_update_pmap_fn(state, step):
            current_decay = self.get_current_decay(step)
            ema_updated_params = jax.tree_util.tree_map(
                lambda x, y: current_decay * x + (1 - current_decay) * y,
                state.params_ema, state.params)
            state = state.replace(params_ema = ema_updated_params)
            return state, current_decay
        
        # self.ema_update_pmap = jax.pmap(ema_update_pmap_fn, in_axes=(0, None))
        self.ema_update_pmap = jax.pmap(ema_update_pmap_fn, in_axes=(0, None))
        # self.ema_update_vmap = jax.vmap(ema_update_pmap_fn, in_axes=(0, None))
        # self.ema_update_pmap = jax.jit(ema_update_pmap_fn)

    def ema_update(self, state, step):
        if step <= self.update_after_step:
            return state, step
        if step % self.update_every != 0:
            return state, step
        new_state, current_decay = self.ema_update_pmap(state, step)
        # self.ema_params = ema_updated_state
        return new_state, current_decay
    
    def _clamp(self, value, min_value=None, max_value=None):
        # assert min_value is not None or max_value is not None
        if min_value is not None:
            value = jax.numpy.where(min_value > value, min_value, value)
        if max_value is not None:
            value = jax.numpy.where(max_value > value, value, max_value)
        return value

    def get_current_decay(self, step):
        effective_step = self._clamp(step - self.update_after_step - 1, min_value=0.)
        value = 1 - (1 + effective_step) ** -self.power
        value = self._clamp(value, 0.0, self.beta)
        result_value = jax.numpy.where(effective_step <= 0, 0, value)
        return result_value
        # return self.beta

    # def get_ema_params(self):
    #     return self.ema_params

from typing import Any
from flax.training import train_state
import optax
import numpy as np


class TrainState(train_state.TrainState):
  params_ema: Any = None


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)

    params = {"w": jnp.ones((3,)), "b": jnp.zeros(())}
    state = TrainState.create(apply_fn=None, params=params, params_ema=params, tx=optax.sgd(0.1))
    state = flax.jax_utils.replicate(state)
    ema_obj = EMA()
    ref = np.ones(3)
    decays = {}
    compiles.clear()
    for step in range(1, 501):
        # stand-in for the pmapped training update: move the parameters
        new_w = jnp.full((jax.local_device_count(), 3), float(step))
        state = state.replace(params={"w": new_w, "b": state.params["b"]})
        state, current_decay = ema_obj.ema_update(state, step)
        if step > ema_obj.update_after_step and step % ema_obj.update_every == 0:
            d = float(np.asarray(current_decay)[0])
            decays[step] = d
            assert np.isclose(d, float(ema_obj.get_current_decay(step))), (step, d)
            ref = d * ref + (1 - d) * step
            if step == 200:
                n_at_200 = sum(1 for f in compiles if f and ("ema_update_pmap_fn" in f or f == "jit(_fun)"))
    assert len(decays) == 40 and len(set(decays.values())) > 30
    assert np.allclose(np.asarray(state.params_ema["w"])[0], ref, rtol=1e-5)
    # under jax 0.10.2 pmap compiles its function under the name _fun
    n = sum(1 for f in compiles if f and ("ema_update_pmap_fn" in f or f == "jit(_fun)"))
    print("decays", decays[110], decays[500], "compiles of the pmapped update:", n_at_200, "by step 200,", n, "by step 500")
    # one compile for the replicated input state, at most one more once the state comes out of
    # the pmap itself; none for the 30 updates after step 200
    assert n_at_200 <= 2 and n == n_at_200, compiles
