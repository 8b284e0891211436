# source: https://github.com/infer-actively/pymdp/issues/430
# observed on jax 0.10.2 CPU: under vmap and jit, as Agent.sample_action calls it, the
#   stochastic branch gives every control factor a draw from the one rng_key: with two
#   3-action factors and a flat posterior over the 9 policies, the two factors pick the
#   same action for all 2000 keys of the batch (independent draws would agree about a
#   third of the time). get_marginals and sample_action are pymdp/control.py at commit
#   f2f6441159977e65e48759e1ababe03e39752b4b (the lines the issue quotes); log_stable and
#   MINVAL are pymdp/maths.py there, without the sparse-array branch of log_stable
#   (docstrings cut to their first line).
#   Added: the imports they need and the __main__ block, which builds the policies and
#   calls sample_action the way pymdp's Agent.sample_action does
#   (vmap(partial(control.sample_action, policy_arr, num_controls, action_selection=...))).
# gap: other
import itertools
from functools import partial
from typing import Sequence

import jax
import jax.numpy as jnp
import jax.tree_util as jtu
from jax import random as jr
from jax import vmap
from jaxtyping import Array

MINVAL = jnp.finfo(float).eps


def log_stable(x):
    return jnp.log(jnp.clip(x, min=MINVAL))


def get_marginals(q_pi: Array, policies: Array, num_controls: Sequence[int]) -> list[Array]:
    """
    Computes the marginal posterior(s) over actions by integrating their posterior probability under the policies that they appear within.
    """
    num_factors = len(num_controls)    

    action_marginals = []
    for factor_i in range(num_factors):
        actions = jnp.arange(num_controls[factor_i])[:, None]
        action_marginals.append(jnp.where(actions==policies[:, 0, factor_i], q_pi, 0).sum(-1))
    
    return action_marginals

def sample_action(
    policies: Array,
    num_controls: Sequence[int],
    q_pi: Array,
    action_selection: str = "deterministic",
    alpha: float = 16.0,
    rng_key: Array | None = None,
) -> Array:
    """
    Samples an action from posterior marginals, one action per control factor.
    """

    marginal = get_marginals(q_pi, policies, num_controls)
    
    if action_selection == 'deterministic':
        selected_policy = jtu.tree_map(lambda x: jnp.argmax(x, -1), marginal)
    elif action_selection == 'stochastic':
        logits = lambda x: alpha * log_stable(x)
        selected_policy = jtu.tree_map(lambda x: jr.categorical(rng_key, logits(x)), marginal)  # expect: JIT502
    else:
        raise NotImplementedError

    return jnp.array(selected_policy)


if __name__ == "__main__":
    num_controls = [3, 3]
    policy_arr = jnp.array(list(itertools.product(range(3), range(3))))[:, None, :]  # (9, 1, 2)
    batch = 2000
    q_pi = jnp.full((batch, policy_arr.shape[0]), 1.0 / policy_arr.shape[0])
    alpha = jnp.full((batch,), 16.0)  # Agent keeps one alpha per batch element
    keys = jr.split(jr.PRNGKey(0), batch)

    sample = partial(sample_action, policy_arr, num_controls, action_selection="stochastic")
    actions = jax.jit(lambda q, a, k: vmap(sample)(q, alpha=a, rng_key=k))(q_pi, alpha, keys)
    print(actions[:5])
    # observed: line 63 draws both factors' actions from one rng_key: they are equal for
    # every key of the batch
    assert actions.shape == (batch, 2)
    assert bool((actions[:, 0] == actions[:, 1]).all())
    assert len(set(actions[:, 0].tolist())) == 3  # the draws themselves do vary across keys
