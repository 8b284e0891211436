# source: https://github.com/MatiasCovarrubias/jaxecon/blob/6d8f96f3cb7a846a149f036e2aabe78707ea5a23/APG/algorithm/epoch_train.py
#   (an economist's analytic-policy-gradient trainer: one epoch is a lax.scan over steps, each
#   step a vmap over episodes with a named axis, whose gradients are averaged with
#   lax.pmean so that the train state can leave the vmap unbatched (out_axes=None); the keys
#   are split once per epoch and once per step, each episode getting its own)
# observed on jax 0.10.2 CPU: runs clean; a jitted epoch_train_fn moves the parameters
#   towards the target, returns one train state (unbatched) and per-step, per-episode
#   metrics, and the episodes of one step see different keys.
# gap: other
# added: imports of optax and flax's TrainState; a stand-in for create_episode_loss_fn
#   (imported from .loss in the repo: here a quadratic loss plus noise drawn from the
#   episode key, with the loss as aux); jax.tree_map (removed from JAX) spelled jax.tree_util.tree_map; the
#   __main__ block.
from jax import numpy as jnp, random, lax
import jax
import optax
from flax.training.train_state import TrainState


def create_episode_loss_fn(env, config):  # stand-in for APG/algorithm/loss.py
    def episode_loss_fn(params, train_state, epis_rng):
        noise = random.normal(epis_rng, params["w"].shape)
        loss = jnp.sum((params["w"] - env["target"] + 0.01 * noise) ** 2)
        return loss, loss

    return episode_loss_fn


def get_apg_train_fn(env, config):
    episode_loss_fn = create_episode_loss_fn(env, config)

    def episode_train_fn(train_state, epis_rng):
        grad_fn = jax.value_and_grad(episode_loss_fn, has_aux=True)
        loss_metrics, grads = grad_fn(train_state.params, train_state, epis_rng)
        grads = jax.lax.pmean(grads, axis_name="episodes")
        train_state = train_state.apply_gradients(grads=grads)
        grad_mean = jnp.mean(jnp.array(jax.tree_util.tree_leaves(jax.tree_util.tree_map(jnp.mean, grads))))
        grad_max = jnp.max(jnp.array(jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda x: jnp.max(jnp.abs(x)), grads))))
        grad_metrics = (grad_mean, grad_max)
        episode_metrics = (loss_metrics, grad_metrics)
        return train_state, episode_metrics

    def step_train_fn(train_state, step_rng):
        step_rng, *epis_rng = random.split(step_rng, config["epis_per_step"] + 1)
        train_state, batch_metrics = jax.vmap(
            episode_train_fn, in_axes=(None, 0), out_axes=(None, 0), axis_name="episodes"
        )(train_state, jnp.stack(epis_rng))
        return train_state, batch_metrics

    def epoch_train_fn(train_state, epoch_rng):
        """Vectorise and repeat the update to complete an epoch, made aout of steps_per_epoch episodes."""
        epoch_rng, *step_rngs = random.split(epoch_rng, config["steps_per_epoch"] + 1)
        train_state, epoch_metrics = lax.scan(step_train_fn, train_state, jnp.stack(step_rngs))
        return train_state, epoch_rng, epoch_metrics

    return epoch_train_fn


if __name__ == "__main__":
    env = {"target": jnp.array([1.0, -1.0, 2.0])}
    config = {"epis_per_step": 4, "steps_per_epoch": 5}
    train_state = TrainState.create(
        apply_fn=None, params={"w": jnp.zeros(3)}, tx=optax.sgd(0.1)
    )
    epoch_train_fn = jax.jit(get_apg_train_fn(env, config))

    rng = random.PRNGKey(0)
    first_loss = None
    for epoch in range(3):
        train_state, rng, (loss_metrics, grad_metrics) = epoch_train_fn(train_state, rng)
        losses = loss_metrics[0]
        assert losses.shape == (config["steps_per_epoch"], config["epis_per_step"])
        assert len(set(losses[0].tolist())) == config["epis_per_step"]
        first_loss = first_loss if first_loss is not None else float(losses[0].mean())
    assert train_state.params["w"].shape == (3,)
    assert int(train_state.step) == 3 * config["steps_per_epoch"]
    assert float(losses[-1].mean()) < first_loss
