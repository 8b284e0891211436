# source: https://github.com/google-deepmind/mctx/blob/e9d249eb0ed5c455a48f7ce5f0476ea5ece9b63a/mctx/_src/seq_halving.py
#   (tag v0.0.71, the whole module without its license header; `chex` is not installed, so
#   a two-line stand-in gives chex.assert_equal_shape; the __main__ block calls the module
#   the way gumbel_muzero_root_action_selection in action_selection.py does, under jit with
#   num_simulations and max_num_considered_actions bound by functools.partial)
# observed on jax 0.10.2 CPU: runs clean: the Python while loop, max() and range() in
#   get_sequence_of_considered_visits see only the two Python ints, and the table they build
#   is indexed with traced counts as a JAX array.
# gap: exemption-vs-JAX
import functools

import jax


class chex:  # stand-in for the chex package
  @staticmethod
  def assert_equal_shape(arrays):
    assert len({a.shape for a in arrays}) == 1, [a.shape for a in arrays]


"""Functions for Sequential Halving."""

import math

import jax.numpy as jnp


def score_considered(considered_visit, gumbel, logits, normalized_qvalues,
                     visit_counts):
  """Returns a score usable for an argmax."""
  # We allow to visit a child, if it is the only considered child.
  low_logit = -1e9
  logits = logits - jnp.max(logits, keepdims=True, axis=-1)
  penalty = jnp.where(
      visit_counts == considered_visit,
      0, -jnp.inf)
  chex.assert_equal_shape([gumbel, logits, normalized_qvalues, penalty])
  return jnp.maximum(low_logit, gumbel + logits + normalized_qvalues) + penalty


def get_sequence_of_considered_visits(max_num_considered_actions,
                                      num_simulations):
  """Returns a sequence of visit counts considered by Sequential Halving.

  Sequential Halving is a "pure exploration" algorithm for bandits, introduced
  in "Almost Optimal Exploration in Multi-Armed Bandits":
  http://proceedings.mlr.press/v28/karnin13.pdf

  The visit counts allows to implement Sequential Halving by selecting the best
  action from the actions with the currently considered visit count.

  Args:
   max_num_considered_actions: The maximum number of considered actions.
     The `max_num_considered_actions` can be smaller than the number of
     actions.
   num_simulations: The total simulation budget.

  Returns:
    A tuple with visit counts. Length `num_simulations`.
  """
  if max_num_considered_actions <= 1:
    return tuple(range(num_simulations))
  log2max = int(math.ceil(math.log2(max_num_considered_actions)))
  sequence = []
  visits = [0] * max_num_considered_actions
  num_considered = max_num_considered_actions
  while len(sequence) < num_simulations:
    num_extra_visits = max(1, int(num_simulations / (log2max * num_considered)))
    for _ in range(num_extra_visits):
      sequence.extend(visits[:num_considered])
      for i in range(num_considered):
        visits[i] += 1
    # Halving the number of considered actions.
    num_considered = max(2, num_considered // 2)
  return tuple(sequence[:num_simulations])


def get_table_of_considered_visits(max_num_considered_actions, num_simulations):
  """Returns a table of sequences of visit counts.

  Args:
   max_num_considered_actions: The maximum number of considered actions.
     The `max_num_considered_actions` can be smaller than the number of
     actions.
   num_simulations: The total simulation budget.

  Returns:
    A tuple of sequences of visit counts.
    Shape [max_num_considered_actions + 1, num_simulations].
  """
  return tuple(
      get_sequence_of_considered_visits(m, num_simulations)
      for m in range(max_num_considered_actions + 1))



if __name__ == "__main__":

  @functools.partial(jax.jit, static_argnames=("num_simulations", "max_num_considered_actions"))
  def root_action(visit_counts, gumbel, prior_logits, completed_qvalues, invalid_actions,
                  *, num_simulations, max_num_considered_actions):
    # as in mctx/_src/action_selection.py, gumbel_muzero_root_action_selection
    table = jnp.array(get_table_of_considered_visits(
        max_num_considered_actions, num_simulations))
    num_valid_actions = jnp.sum(1 - invalid_actions, axis=-1).astype(jnp.int32)
    num_considered = jnp.minimum(max_num_considered_actions, num_valid_actions)
    simulation_index = jnp.sum(visit_counts, -1)
    considered_visit = table[num_considered, simulation_index]
    to_argmax = score_considered(
        considered_visit, gumbel, prior_logits, completed_qvalues, visit_counts)
    return jnp.argmax(jnp.where(invalid_actions, -jnp.inf, to_argmax))

  visit_counts = jnp.array([1, 1, 0, 0])
  action = root_action(visit_counts, jnp.zeros(4), jnp.array([0.1, 0.2, 0.3, 0.4]),
                       jnp.zeros(4), jnp.zeros(4), num_simulations=8,
                       max_num_considered_actions=4)
  assert int(action) == 3, action
  assert get_sequence_of_considered_visits(4, 8) == (0, 0, 0, 0, 1, 1, 2, 2)
