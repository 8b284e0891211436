# source: https://github.com/mlaux1/rl-blox/blob/f9b494aa25c6b659d6bc69fc7140c96acb62e25f/rl_blox/algorithm/ppo.py
# observed on jax 0.10.2 CPU (flax 0.12.8): update_ppo is jitted with nnx.jit, epochs
#   static, and loops over the epochs in Python: nnx.jit writes the optimizers' updates
#   back to the caller's actor, critic and optimizers, so after 3 calls (2 epochs each)
#   both optimizers have taken 6 steps, the parameters have moved and the loss changes
#   from call to call. Excerpt: ppo_loss and update_ppo as written, docstrings left out,
#   with compute_gae (rl_blox/blox/gae.py) of the same commit. Added: SoftmaxPolicy of
#   rl_blox/blox/function_approximator/policy_head.py with its tfp Categorical
#   log_prob/entropy spelled with jax.nn.log_softmax and nnx.Module for its base class
#   StochasticPolicyBase (tensorflow_probability is not installed), a small nnx MLP,
#   critic and optimizers, and a random batch in place of collect_trajectories over a
#   gym vector env.
# gap: other
from collections import namedtuple
from functools import partial

import jax
import jax.numpy as jnp
import optax
from flax import nnx


@jax.jit
def compute_gae(
    rewards: jnp.ndarray,
    values: jnp.ndarray,
    next_values: jnp.ndarray,
    terminateds: jnp.ndarray,
    gamma: float = 0.99,
    lmbda: float = 0.95,
) -> tuple[jnp.ndarray, jnp.ndarray]:
    def calc_advantage_per_step(carry, inputs):
        gae = carry
        reward, value, next_value, terminated = inputs
        delta = reward + gamma * next_value * (1 - terminated) - value
        gae = delta + gamma * lmbda * (1 - terminated) * gae
        return gae, gae

    _, advantages = jax.lax.scan(
        calc_advantage_per_step,
        0.0,
        (rewards[::-1], values[::-1], next_values[::-1], terminateds[::-1]),
    )
    advantages = advantages[::-1]
    returns = advantages + values
    return namedtuple("GAE", ["advantages", "returns"])(advantages, returns)


class SoftmaxPolicy(nnx.Module):
    # rl_blox's SoftmaxPolicy, with tfp's Categorical spelled with log_softmax
    def __init__(self, net: nnx.Module):
        self.net = net

    def __call__(self, observation: jnp.ndarray) -> jnp.ndarray:
        return nnx.softmax(self.logits(observation))

    def logits(self, observation: jnp.ndarray) -> jnp.ndarray:
        return self.net(observation)

    def log_probability(
        self, observation: jnp.ndarray, action: jnp.ndarray
    ) -> jnp.ndarray:
        logp = jax.nn.log_softmax(self.logits(observation))
        return jnp.take_along_axis(logp, action[:, None], axis=-1)[:, 0]

    def entropy(self, observation: jnp.ndarray) -> jnp.ndarray:
        logp = jax.nn.log_softmax(self.logits(observation))  # tfp Categorical entropy
        return -(jnp.exp(logp) * logp).sum(-1)


class MLP(nnx.Module):
    # stand-in for rl_blox's MLP
    def __init__(self, n_in, n_out, rngs):
        self.l1 = nnx.Linear(n_in, 16, rngs=rngs)
        self.l2 = nnx.Linear(16, n_out, rngs=rngs)

    def __call__(self, x):
        return self.l2(nnx.relu(self.l1(x)))


def ppo_loss(
    actor: SoftmaxPolicy,
    critic: nnx.Module,
    old_logps: jnp.ndarray,
    observations: jnp.ndarray,
    actions: jnp.ndarray,
    advantages: jnp.ndarray,
    returns: jnp.ndarray,
    clip: float = 0.2,
) -> jnp.ndarray:
    logps = actor.log_probability(observations, actions)
    ratios = jnp.exp(logps - old_logps)
    surrogate1 = ratios * advantages
    surrogate2 = jnp.clip(ratios, 1 - clip, 1 + clip) * advantages
    policy_loss = -jnp.mean(jnp.minimum(surrogate1, surrogate2))

    values = critic(observations)
    value_loss = jnp.mean((returns - values) ** 2)

    return (
        policy_loss
        + 0.5 * value_loss
        - 0.01 * actor.entropy(observations).mean()
    )


@partial(nnx.jit, static_argnames="epochs")
def update_ppo(
    actor: SoftmaxPolicy,
    critic: nnx.Module,
    optimizer_actor: nnx.Optimizer,
    optimizer_critic: nnx.Optimizer,
    observation: jnp.ndarray,
    action: jnp.ndarray,
    reward: jnp.ndarray,
    terminated: jnp.ndarray,
    next_value: jnp.ndarray,
    epochs: int = 1,
) -> jnp.ndarray:
    advs, returns = compute_gae(
        reward, critic(observation).flatten(), next_value, terminated
    )
    logp = actor.log_probability(observation, action)
    loss_grad_fn = nnx.value_and_grad(ppo_loss, argnums=(0, 1))

    for _ in range(epochs):
        (loss_val), (grad_actor, grad_critic) = loss_grad_fn(
            actor, critic, logp, observation, action, advs, returns
        )
        optimizer_actor.update(actor, grad_actor)
        optimizer_critic.update(critic, grad_critic)

    return loss_val


if __name__ == "__main__":
    rngs = nnx.Rngs(0)
    actor = SoftmaxPolicy(MLP(4, 2, rngs))
    critic = MLP(4, 1, rngs)
    optimizer_actor = nnx.Optimizer(actor, optax.adam(1e-2), wrt=nnx.Param)
    optimizer_critic = nnx.Optimizer(critic, optax.adam(1e-2), wrt=nnx.Param)

    # stand-in for collect_trajectories: one batch of 32 steps
    k1, k2, k3, k4 = jax.random.split(jax.random.key(1), 4)
    observation = jax.random.normal(k1, (32, 4))
    action = jax.random.randint(k2, (32,), 0, 2)
    reward = jax.random.normal(k3, (32,))
    terminated = (jax.random.uniform(k4, (32,)) < 0.1).astype(jnp.float32)
    next_value = critic(observation).flatten()

    actor_before = actor.net.l1.kernel[...].copy()
    critic_before = critic.l2.kernel[...].copy()
    losses = []
    for iteration in range(3):
        losses.append(float(update_ppo(actor, critic, optimizer_actor, optimizer_critic,
                                       observation, action, reward, terminated, next_value,
                                       2)))
    # nnx.jit carries the updates out: 6 optimizer steps, the parameters moved
    assert not jnp.array_equal(actor.net.l1.kernel[...], actor_before)
    assert not jnp.array_equal(critic.l2.kernel[...], critic_before)
    assert int(optimizer_actor.step[...]) == 6 and int(optimizer_critic.step[...]) == 6
    assert len(set(losses)) == 3, losses
    print("losses:", losses)
