# source: https://github.com/infer-actively/pymdp/commit/351e3d491ff7b0ce56ac0f195d6b7e1060ca2c16
# observed on jax 0.10.2 CPU: with the fix (jnp.flip(jnp.stack(...)) in index_to_combination),
#   the jitted decode/encode round trip of a flattened action runs and gives the action back
#   ([[0, 4, 2]] -> multi-action [[1, 1, 0]] -> [[0, 4, 2]]).
# gap: types
# added: imports; get_combination_index and index_to_combination are pymdp/utils.py's at that
#   commit; decode_multi_actions and encode_multi_actions are pymdp/agent.py's (same commit),
#   kept as posted in AgentStandIn, a stand-in for pymdp's Agent holding only the fields they
#   read, with the action_maps that Agent._flatten_B_action_dims builds for the
#   test_agent_complex_action model (num_controls [2, 3, 2], B_action_dependencies
#   [[], [0, 1], [0, 2]]); a jitted round trip as in the commit's new test.
import jax
import jax.numpy as jnp
import numpy as np


def get_combination_index(x, dims):
    """
    Find the index of an array of categorical values in an array of categorical dimensions

    Parameters
    ----------
    x: ``numpy.ndarray`` or ``jax.Array`` of shape `(batch_size, act_dims)`
        ``numpy.ndarray`` or ``jax.Array`` of categorical values to be converted into combination index
    dims: ``list`` of ``int``
        ``list`` of ``int`` of categorical dimensions used for conversion

    Returns
    ----------
    index: ``np.ndarray`` or `jax.Array` of shape `(batch_size)`
        ``np.ndarray`` or `jax.Array` index of the combination
    """
    assert isinstance(x, jax.Array) or isinstance(x, np.ndarray)
    assert x.shape[-1] == len(dims)

    index = 0
    product = 1
    for i in reversed(range(len(dims))):
        index += x[..., i] * product
        product *= dims[i]
    return index


def index_to_combination(index, dims):
    """
    Convert the combination index according to an array of categorical dimensions back to an array of categorical values

    Parameters
    ----------
    index: ``np.ndarray`` or `jax.Array` of shape `(batch_size)`
        ``np.ndarray`` or `jax.Array` index of the combination
    dims: ``list`` of ``int``
        ``list`` of ``int`` of categorical dimensions used for conversion

    Returns
    ----------
    x: ``numpy.ndarray`` or ``jax.Array`` of shape `(batch_size, act_dims)`
        ``numpy.ndarray`` or ``jax.Array`` of categorical values to be converted into combination index
    """
    x = []
    for base in reversed(dims):
        x.append(index % base)
        index = index // base

    x = jnp.flip(jnp.stack(x, axis=-1), axis=-1)
    return x


class AgentStandIn:
    # stand-in for pymdp.agent.Agent: only the fields the two methods below read
    def __init__(self):
        self.batch_size = 1
        self.num_controls = [1, 6, 4]
        self.num_controls_multi = [2, 3, 2]
        self.action_maps = [
            {"multi_dependency": [], "multi_dims": [], "flat_dependency": [0], "flat_dims": [1]},
            {"multi_dependency": [0, 1], "multi_dims": [2, 3], "flat_dependency": [1], "flat_dims": [6]},
            {"multi_dependency": [0, 2], "multi_dims": [2, 2], "flat_dependency": [2], "flat_dims": [4]},
        ]

    def decode_multi_actions(self, action):
        """Decode flattened actions to multiple actions"""
        if self.action_maps is None:
            return action

        action_multi = jnp.zeros((self.batch_size, len(self.num_controls_multi))).astype(action.dtype)
        for f, action_map in enumerate(self.action_maps):
            if action_map["multi_dependency"] == []:
                continue

            action_multi_f = index_to_combination(action[..., f], action_map["multi_dims"])
            action_multi = action_multi.at[..., action_map["multi_dependency"]].set(action_multi_f)
        return action_multi

    def encode_multi_actions(self, action_multi):
        """Encode multiple actions to flattened actions"""
        if self.action_maps is None:
            return action_multi

        action = jnp.zeros((self.batch_size, len(self.num_controls))).astype(action_multi.dtype)
        for f, action_map in enumerate(self.action_maps):
            if action_map["multi_dependency"] == []:
                action = action.at[..., f].set(jnp.zeros_like(action_multi[..., 0]))
                continue

            action_f = get_combination_index(
                action_multi[..., action_map["multi_dependency"]],
                action_map["multi_dims"],
            )
            action = action.at[..., f].set(action_f)
        return action


agent = AgentStandIn()


@jax.jit
def decode_and_encode(action):
    action_multi = agent.decode_multi_actions(action)
    action_reconstruct = agent.encode_multi_actions(action_multi)
    return action_multi, action_reconstruct


if __name__ == "__main__":
    action = jnp.array([[0, 4, 2]])
    action_multi, action_reconstruct = decode_and_encode(action)
    assert action_multi.tolist() == [[1, 1, 0]]
    assert jnp.array_equal(action, action_reconstruct)
