# source: https://github.com/dunnolab/xland-minigrid/issues/42 (lines of the meta-task
#   training script quoted in the report; `config` is the smallest stand-in)
# observed on jax 0.10.2 CPU: ruleset_rng and reset_rng are the same keys: rng is split
#   twice with the same count.
# gap: other
from types import SimpleNamespace

import jax

config = SimpleNamespace(num_envs_per_device=4)
rng = jax.random.PRNGKey(0)

rng, _rng1, _rng2 = jax.random.split(rng, num=3)
ruleset_rng = jax.random.split(rng, num=config.num_envs_per_device)
reset_rng = jax.random.split(rng, num=config.num_envs_per_device)  # expect: JIT502

if __name__ == "__main__":
    # observed: line 15 consumes rng a second time: the two key batches are equal
    assert (ruleset_rng == reset_rng).all()
