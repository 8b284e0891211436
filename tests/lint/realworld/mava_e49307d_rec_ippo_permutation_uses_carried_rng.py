# source: https://github.com/instadeepai/Mava/blob/c914bb73e3c099ee96ea610068a139cc5b131b48/jax_distribution/systems/rec_ippo_rware.py
#   (Mava's recurrent IPPO for the robot-warehouse environment before commit e49307d, "fix:
#   change rng key of the permutation": _update_epoch splits rng into rng and shuffle_rng,
#   then shuffles the minibatches with rng, the key it carries on to the next epoch and,
#   after the last epoch, back into the runner state)
# observed on jax 0.10.2 CPU: the key that jax.random.permutation draws the shuffle from is
#   the rng that _update_epoch returns in update_state, so the next epoch (and the next
#   update step) splits a key that has already been consumed; shuffle_rng goes unused.
#   Under jax.disable_jit the permutation's key equals the returned rng, and the returned
#   rng reproduces the shuffle.
# gap: other
# added: _update_epoch is kept as written (with _update_minibatch and _loss_fn); the
#   surrounding get_learner_fn/_update_step is reduced to a factory that returns it. Stand-ins:
#   a Transition NamedTuple, a linear recurrent actor-critic apply_fn with a small categorical
#   policy (distrax is not installed), update_fn = optax.adam(1e-3).update, a config dict, and
#   the __main__ block, which runs one epoch under vmap with the axis names "batch" and
#   "device" that the pmean calls need.
from typing import Any, NamedTuple, Tuple

import chex
import jax
import jax.numpy as jnp
import optax
from flax.core.frozen_dict import FrozenDict
from optax._src.base import OptState


class PPOTransition(NamedTuple):
    done: chex.Array
    action: chex.Array
    value: chex.Array
    reward: chex.Array
    log_prob: chex.Array
    obs: chex.Array
    info: dict


class _Categorical:
    # stand-in for distrax.Categorical
    def __init__(self, logits):
        self.logits = jax.nn.log_softmax(logits)

    def log_prob(self, a):
        return jnp.take_along_axis(self.logits, a[..., None], axis=-1)[..., 0]

    def entropy(self):
        return -jnp.sum(jnp.exp(self.logits) * self.logits, axis=-1)


def apply_fn(params, hstate, x):
    # stand-in for the vmapped recurrent actor-critic network
    obs, done = x
    h = jnp.tanh(obs @ params["w_h"] + hstate[None] * (1.0 - done[..., None]))
    return h[-1], _Categorical(h @ params["w_pi"]), (h @ params["w_v"])[..., 0]


def get_learner_fn(apply_fn, update_fn, config):
    def _update_epoch(update_state: Tuple, _: Any) -> Tuple:
        """Update the network for a single epoch."""

        def _update_minibatch(train_state: Tuple, batch_info: Tuple) -> Tuple:
            """Update the network for a single minibatch."""
            params, opt_state = train_state
            init_hstate, traj_batch, advantages, targets = batch_info

            def _loss_fn(
                params: FrozenDict,
                opt_state: OptState,
                traj_batch: PPOTransition,
                gae: chex.Array,
                targets: chex.Array,
            ) -> Tuple:
                """Calculate the loss."""
                # RERUN NETWORK
                _, actor_policy, value = apply_fn(
                    params,
                    init_hstate.squeeze(0),
                    (traj_batch.obs, traj_batch.done),
                )
                log_prob = actor_policy.log_prob(traj_batch.action)

                # CALCULATE VALUE LOSS
                value_pred_clipped = traj_batch.value + (
                    value - traj_batch.value
                ).clip(-config["CLIP_EPS"], config["CLIP_EPS"])
                value_losses = jnp.square(value - targets)
                value_losses_clipped = jnp.square(value_pred_clipped - targets)
                value_loss = (
                    0.5 * jnp.maximum(value_losses, value_losses_clipped).mean()
                )

                # CALCULATE ACTOR LOSS
                ratio = jnp.exp(log_prob - traj_batch.log_prob)
                gae = (gae - gae.mean()) / (gae.std() + 1e-8)
                loss_actor1 = ratio * gae
                loss_actor2 = (
                    jnp.clip(
                        ratio,
                        1.0 - config["CLIP_EPS"],
                        1.0 + config["CLIP_EPS"],
                    )
                    * gae
                )
                loss_actor = -jnp.minimum(loss_actor1, loss_actor2)
                loss_actor = loss_actor.mean()
                entropy = actor_policy.entropy().mean()

                total_loss = (
                    loss_actor
                    + config["VF_COEF"] * value_loss
                    - config["ENT_COEF"] * entropy
                )
                return total_loss, (value_loss, loss_actor, entropy)

            grad_fn = jax.value_and_grad(_loss_fn, has_aux=True)
            total_loss, grads = grad_fn(
                params, opt_state, traj_batch, advantages, targets
            )

            grads, total_loss = jax.lax.pmean(
                (grads, total_loss), axis_name="batch"
            )
            grads, total_loss = jax.lax.pmean(
                (grads, total_loss), axis_name="device"
            )

            updates, new_opt_state = update_fn(grads, opt_state)
            new_params = optax.apply_updates(params, updates)

            return (new_params, new_opt_state), total_loss

        (
            params,
            opt_state,
            init_hstate,
            traj_batch,
            advantages,
            targets,
            rng,
        ) = update_state
        rng, shuffle_rng = jax.random.split(rng)

        # SHUFFLE MINIBATCHES
        permutation = jax.random.permutation(rng, config["NUM_ENVS"])  # expect: JIT502
        batch = (init_hstate, traj_batch, advantages, targets)
        shuffled_batch = jax.tree_util.tree_map(
            lambda x: jnp.take(x, permutation, axis=1), batch
        )
        minibatches = jax.tree_util.tree_map(
            lambda x: jnp.swapaxes(
                jnp.reshape(
                    x,
                    [x.shape[0], config["NUM_MINIBATCHES"], -1] + list(x.shape[2:]),
                ),
                1,
                0,
            ),
            shuffled_batch,
        )

        # UPDATE MINIBATCHES
        (params, opt_state), total_loss = jax.lax.scan(
            _update_minibatch, (params, opt_state), minibatches
        )

        update_state = (
            params,
            opt_state,
            init_hstate,
            traj_batch,
            advantages,
            targets,
            rng,
        )
        return update_state, total_loss

    return _update_epoch


if __name__ == "__main__":
    config = {"CLIP_EPS": 0.2, "VF_COEF": 0.5, "ENT_COEF": 0.01,
              "NUM_ENVS": 8, "NUM_MINIBATCHES": 2, "PPO_EPOCHS": 2}
    T, E, D, H, A = 4, config["NUM_ENVS"], 3, 5, 2
    k = jax.random.split(jax.random.PRNGKey(0), 8)
    params = {"w_h": jax.random.normal(k[0], (D, H)), "w_pi": jax.random.normal(k[1], (H, A)),
              "w_v": jax.random.normal(k[2], (H, 1))}
    optim = optax.adam(1e-3)
    opt_state = optim.init(params)
    traj_batch = PPOTransition(
        done=jnp.zeros((T, E)), action=jax.random.randint(k[3], (T, E), 0, A),
        value=jnp.zeros((T, E)), reward=jnp.ones((T, E)), log_prob=jnp.full((T, E), -0.7),
        obs=jax.random.normal(k[4], (T, E, D)), info={})
    advantages = jax.random.normal(k[5], (T, E))
    targets = advantages
    init_hstate = jnp.zeros((1, E, H))
    update_state = (params, opt_state, init_hstate, traj_batch, advantages, targets, k[6])

    _update_epoch = get_learner_fn(apply_fn, optim.update, config)
    one_epoch = jax.vmap(jax.vmap(_update_epoch, in_axes=(None, None), axis_name="batch",
                                  axis_size=1), in_axes=(None, None), axis_name="device",
                         axis_size=1)

    perm_keys = []
    _permutation = jax.random.permutation

    def recording_permutation(key, *args, **kwargs):
        perm_keys.append(key)
        return _permutation(key, *args, **kwargs)

    jax.random.permutation = recording_permutation
    with jax.disable_jit():
        new_state, _ = one_epoch(update_state, None)
    jax.random.permutation = _permutation
    returned_rng = new_state[-1][0, 0]
    # observed: line 144 draws the shuffle from the rng that update_state carries on:
    #   the key handed to the next epoch (and to the runner state) is already consumed
    assert len(perm_keys) == 1
    assert jnp.array_equal(perm_keys[0], returned_rng)
    assert jnp.array_equal(jax.random.split(k[6])[0], returned_rng)

    # under jit the epoch runs too
    jitted_state, _ = jax.jit(one_epoch)(update_state, None)
    assert jnp.array_equal(jitted_state[-1][0, 0], returned_rng)
