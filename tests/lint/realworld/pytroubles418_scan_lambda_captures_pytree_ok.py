# source: https://pytroubles.com/en/ampposts/id418-jax-jit-scan-and-pytrees-avoiding-recompilation-with-lambda-captures-and-stable-cache-keys
#   (the question's program)
# observed on jax 0.10.2 CPU: runs clean: `cfg` is a registered pytree whose array `vec`
#   is a leaf and whose `scale` is static aux data, so the lambda closing over the traced
#   cfg inside the jitted function is fine; a new ConfigBox with another `vec` and the same
#   `scale` reuses the trace, and only a new `scale` traces again. The page's last line,
#   cut off in the stored copy after `run_scan_ji`, is completed as `run_scan_jit(cfg1)`.
#   Added: the trace counter in __main__ (through jax.monitoring).
# gap: per-call-recompile
import jax
import jax.numpy as jnp
from jax import tree_util

class ConfigBox:
    def __init__(self, vec, scale):
        self.vec = vec
        self.scale = scale

    def step_fn(self, st, inp):
        s = st
        y = inp
        nxt = (self.vec + s + jnp.ones(self.scale)) * y
        return nxt

    def _tree_flatten(self):
        leaves = (self.vec,)
        meta = {'scale': self.scale}
        return (leaves, meta)

    @classmethod
    def _tree_unflatten(cls, meta, leaves):
        return cls(*leaves, **meta)


tree_util.register_pytree_node(
    ConfigBox,
    ConfigBox._tree_flatten,
    ConfigBox._tree_unflatten,
)

def step_wrapper(cfg, st, inp):
    s = st
    y = inp
    s_next = cfg.step_fn(s, y)
    return s_next, [s_next]

@jax.jit
def run_scan_jit(cfg):
    body = lambda st, inp: step_wrapper(cfg, st, inp)
    st0 = jnp.array([0., 1.])
    seq = jnp.array([1., 2., 3.])
    last, out = jax.lax.scan(body, st0, seq)
    return last, out

if __name__ == "__main__":
    cfg1 = ConfigBox(jnp.array([1., 2.]), 2)
    last_state, outputs = run_scan_jit(cfg1)

    import jax.monitoring

    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: traces.append(event)
        if event == "/jax/core/compile/jaxpr_trace_duration" else None
    )
    cfg2 = ConfigBox(jnp.array([5., 6.]), 2)
    last2, _ = run_scan_jit(cfg2)
    assert traces == [], traces
    assert not jnp.allclose(last2, last_state)
