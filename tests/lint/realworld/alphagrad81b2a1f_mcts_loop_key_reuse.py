# source: https://github.com/jamielohoff/alphagrad/blob/81b2a1fad5775bdc7d423121781d948d451003a4/src/alphagrad/environment_interaction.py
# observed on jax 0.10.2 CPU: in loop_fn the carry key is consumed twice: jrand.split(key, batchsize) feeds the network, then jrand.split(key, 2) makes the next carry key and the search key from the same key (with the default partitionable threefry, the new carry key equals the network key of batch element 0 and subkey equals that of element 1); with typed keys jax.debug_key_reuse raises KeyReuseError pointing at the second split
# gap: other
# observed: line 179 with jax.debug_key_reuse(True) and a typed key in init_carry, the jitted rollout raises KeyReuseError "In random_split, argument 0 is already consumed", whose source traceback ends on this line (the carry key was already consumed by jrand.split(key, batchsize))
# added: imports kept from the original; mctx is not installed, so a minimal stand-in namespace (RootFnOutput, qtransform_completed_by_mix_value,
#        gumbel_muzero_policy doing a one-step lookahead through recurrent_fn) replaces it; graphax.GraphInfo, the vertex-elimination env
#        (batched_step, batched_one_hot) and the transformer network are small stand-ins; symexp copied from alphagrad/utils.py; __main__ block added
from typing import Callable, NamedTuple
import functools as ft
import traceback
import types

import jax
import jax.lax as lax
import jax.numpy as jnp
import jax.random as jrand
import jax.tree_util as jtu

import chex
import equinox as eqx


# ---- stand-ins -------------------------------------------------------------
class GraphInfo(NamedTuple):
    num_inputs: int
    num_intermediates: int
    num_outputs: int


class RootFnOutput(NamedTuple):
    prior_logits: jax.Array
    value: jax.Array
    embedding: object


class RecurrentFnOutput(NamedTuple):
    reward: jax.Array
    discount: jax.Array
    prior_logits: jax.Array
    value: jax.Array


class PolicyOutput(NamedTuple):
    action: jax.Array
    action_weights: jax.Array


def _qtransform_completed_by_mix_value(*args, use_mixed_value=True, **kwargs):
    return None


def _gumbel_muzero_policy(params, rng_key, root, recurrent_fn, num_simulations,
                          invalid_actions=None, qtransform=None, gumbel_scale=1.0):
    """One-step lookahead stand-in for mctx.gumbel_muzero_policy."""
    logits = jnp.where(invalid_actions > 0, -1e9, root.prior_logits)
    gumbel_key, rec_key = jrand.split(rng_key)
    noisy = logits + gumbel_scale * jrand.gumbel(gumbel_key, logits.shape)
    action = jnp.argmax(noisy, axis=-1)
    out, _ = recurrent_fn(params, rec_key, action, root.embedding)
    q = out.reward + out.discount * out.value
    weights = jax.nn.softmax(logits + q[:, None] * jax.nn.one_hot(action, logits.shape[-1]))
    return PolicyOutput(action=action, action_weights=weights)


mctx = types.SimpleNamespace(RootFnOutput=RootFnOutput, RecurrentFnOutput=RecurrentFnOutput,
                             qtransform_completed_by_mix_value=_qtransform_completed_by_mix_value,
                             gumbel_muzero_policy=_gumbel_muzero_policy)


def symexp(x: chex.Array) -> chex.Array:
    return jnp.sign(x)*jnp.exp(jnp.abs(x)-1)


class EnvState(NamedTuple):
    vertices: jax.Array   # [B, n] eliminated vertex ids (1-based), 0 = free slot
    attn_mask: jax.Array  # [B, n, n]


def batched_one_hot(x, n):
    return jax.nn.one_hot(x, n)


def batched_step(state, actions):
    b = jnp.arange(actions.shape[0])
    vertices = state.vertices.at[b, actions].set(actions + 1)
    attn_mask = state.attn_mask.at[b, actions, :].set(0.)
    next_state = EnvState(vertices, attn_mask)
    reward = -attn_mask.sum(axis=(1, 2)) / 10.
    done = (vertices > 0).all(axis=1).astype(jnp.float32)
    return attn_mask, next_state, reward, done


class Net(eqx.Module):
    """Stand-in for the alphagrad transformer: output[0] = value, output[1:] = policy logits."""
    linear: eqx.nn.Linear

    def __init__(self, n, key):
        self.linear = eqx.nn.Linear(2 * n * n, n + 1, key=key)

    def __call__(self, obs, attn_mask, key):
        x = jnp.concatenate([obs.ravel(), attn_mask.ravel()])
        x = x + 0.1 * jrand.normal(key, x.shape)   # stochastic layer (dropout-like)
        return self.linear(x)


# ---- user code (alphagrad) -------------------------------------------------
# TODO add documentation
def make_recurrent_fn(nn_model: chex.PyTreeDef,
                    info: GraphInfo, 
                    batched_step: Callable,
                    batched_get_masked_logits: Callable) -> Callable:
    """TODO write docstring

    Args:
        nn_model (chex.PyTreeDef): _description_
        num_intermediates (int): _description_
        batched_step (Callable): _description_
        batched_get_masked_logits (Callable): _description_

    Returns:
        Callable: _description_
    """
    def recurrent_fn(params, rng_key, actions, state) -> Callable:
        batchsize, nn_params = params
        next_obs, next_state, reward, _ = batched_step(state, actions) # dynamics function
        
        # prediction function
        network = jtu.tree_map(lambda x, y: y if eqx.is_inexact_array(x) else x, nn_model, nn_params)
        batch_network = jax.vmap(network)

        keys = jrand.split(rng_key, batchsize)
        output = batch_network(next_obs, next_state.attn_mask, keys)
        policy_logits = output[:, 1:]
        value = symexp(output[:, 0]) # symexp for reward scaling since value head is trained on symlog(value)
        masked_logits = batched_get_masked_logits(policy_logits, 
                                                state, 
                                                info.num_intermediates)

        # On a single-player environment, use discount from [0, 1].
        discount = jnp.ones(batchsize)
        recurrent_fn_output = mctx.RecurrentFnOutput(reward=reward,
                                                    discount=discount,
                                                    prior_logits=masked_logits,
                                                    value=value)
        return recurrent_fn_output, next_state
    
    return recurrent_fn


def make_environment_interaction(info: GraphInfo,
                                num_simulations: int,
                                recurrent_fn: Callable,
                                batched_step: Callable,
                                batched_one_hot: Callable,
                                **kwargs) -> Callable:
    """
    TODO write docstring
    """
    num_intermediates = info.num_intermediates
    def environment_interaction(network, init_carry):
        batchsize = init_carry[2].shape[0]
        batched_network = eqx.filter_vmap(network)
        nn_params = eqx.filter(network, eqx.is_inexact_array)
        
        def loop_fn(carry, _):
            obs, state, rews, key = carry
    
            # create action mask
            one_hot_state = batched_one_hot(state.vertices-1, num_intermediates)
            mask = one_hot_state.sum(axis=1)

            keys = jrand.split(key, batchsize)
            output = batched_network(obs, state.attn_mask, keys)
            policy_logits = output[:, 1:]
            values = symexp(output[:, 0]) # symexp for reward scaling since value head is trained on symlog(value)

            root = mctx.RootFnOutput(prior_logits=policy_logits, value=values, embedding=state)

            key, subkey = jrand.split(key, 2)  # expect: JIT502

            params = (batchsize, nn_params)
            qtransform = ft.partial(mctx.qtransform_completed_by_mix_value,
                                    use_mixed_value=True)
            
            # qtransform = mctx.qtransform_by_parent_and_siblings
            
            # policy_output = mctx.muzero_policy(params,
            #                                     subkey,
            #                                     root,
            #                                     recurrent_fn,
            #                                     num_simulations,
            #                                     invalid_actions=mask,
            #                                     qtransform=qtransform,
            #                                     dirichlet_fraction=.75,
            #                                     pb_c_init=2000.,
            #                                     pb_c_base=4.,
            #                                     dirichlet_alpha=.6,
            #                                     **kwargs)
            
            policy_output = mctx.gumbel_muzero_policy(params,
                                                        subkey,
                                                        root,
                                                        recurrent_fn,
                                                        num_simulations,
                                                        invalid_actions=mask,
                                                        qtransform=qtransform,
                                                        gumbel_scale=0.0)

            # tree search derived targets for policy and value function
            action_weights = policy_output.action_weights
            
            # send the probabilities of all masked actions to 0 and renormalize
            search_policy = jnp.where(mask, 0., action_weights)
            norm = jnp.sum(search_policy, axis=-1)
            norm = jnp.where(norm > 0., norm, 1.)
            search_policy = search_policy / norm[:, jnp.newaxis]

            # always take action recommended by tree search
            action = policy_output.action

            # step the environment
            next_obs, next_state, rewards, done = batched_step(state, action)
            rews += rewards
            obs_flattened = obs.reshape(batchsize, -1)
            attn_masks_flattened = state.attn_mask.reshape(batchsize, -1)
            return (next_obs, next_state, rews, key), jnp.concatenate([obs_flattened,
                                                                        attn_masks_flattened,
                                                                        search_policy, 
                                                                        rews[:, jnp.newaxis], 
                                                                        done[:, jnp.newaxis]], 
                                                                        axis=1)

        _, output = lax.scan(loop_fn, init_carry, None, length=info.num_intermediates)
        return output.transpose(1, 0, 2)
    
    return environment_interaction


if __name__ == "__main__":
    n, B = 4, 3
    info = GraphInfo(num_inputs=2, num_intermediates=n, num_outputs=1)
    network = Net(n, jrand.PRNGKey(1))
    recurrent_fn = make_recurrent_fn(
        network, info, batched_step,
        lambda logits, state, num_intermediates: jnp.where(
            batched_one_hot(state.vertices - 1, num_intermediates).sum(axis=1) > 0, -1e9, logits))
    env_interaction = make_environment_interaction(info, 4, recurrent_fn, batched_step, batched_one_hot)
    run = eqx.filter_jit(env_interaction)

    attn = jnp.ones((B, n, n))
    init_state = EnvState(jnp.zeros((B, n), jnp.int32), attn)
    init_carry = (attn, init_state, jnp.zeros(B), jrand.key(0))
    out = run(network, init_carry)
    print("rollout output shape:", out.shape)

    # the same rollout under JAX's key-reuse checker
    this_file = __file__
    expect_line = next(i for i, l in enumerate(open(this_file).read().splitlines(), 1)
                       if "# expect" + ": JIT502" in l)
    with jax.debug_key_reuse(True):
        try:
            eqx.filter_jit(make_environment_interaction(info, 4, recurrent_fn, batched_step,
                                                        batched_one_hot))(network, init_carry)
            raise SystemExit("no KeyReuseError")
        except jax.errors.KeyReuseError as e:
            frames = traceback.extract_tb(e.__cause__.__traceback__) if e.__cause__ else []
            lines = [f.lineno for f in frames if f.filename == this_file]
            print("KeyReuseError:", str(e).splitlines()[0], "| reported at line(s) of this file:", lines)
            assert lines and lines[-1] == expect_line, (lines, expect_line)
