import jax
import jax.numpy as jnp


class RunningStats:
    """Welford running mean/variance held in a registered pytree."""

    def __init__(self, mean, var, count):
        self.mean, self.var, self.count = mean, var, count

    @jax.jit
    def update(self, x):
        count = self.count + 1
        delta = x - self.mean
        mean = self.mean + delta / count
        if count > 1:  # expect: JIT101
            var = self.var + (delta * (x - mean) - self.var) / count
        else:
            var = jnp.zeros_like(self.var)
        return RunningStats(mean, var, count)


jax.tree_util.register_pytree_node(
    RunningStats,
    lambda s: ((s.mean, s.var, s.count), None),
    lambda _, c: RunningStats(*c),
)
