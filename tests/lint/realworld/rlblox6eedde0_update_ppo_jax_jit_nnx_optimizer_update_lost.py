# source: https://github.com/mlaux1/rl-blox/commit/6eedde08513f54d5c95c8d230a97e9aea3fb6729
#   (rl_blox/algorithm/ppo.py before "Fixed jax jit and loop issues", which removed the
#   @jax.jit and the fori_loop and jitted update_ppo with nnx.jit, epochs static)
# observed on jax 0.10.2 CPU (flax 0.12.8): update_ppo is jitted with jax.jit, which
#   flattens the nnx actor, critic and optimizers into arrays and rebuilds copies of them
#   inside the trace; optimizer_actor.update and optimizer_critic.update update those
#   copies, and nothing is written back: after 3 calls of update_ppo (2 epochs each) the
#   caller's actor and critic parameters and both optimizers' step counts are unchanged,
#   and every call returns the same loss. Excerpt: ppo_loss, entropy, update_ppo and
#   compute_gae (rl_blox/blox/gae.py) as written, docstrings left out. Added: SoftmaxPolicy of
#   rl_blox/blox/function_approximator/policy_head.py with its tfp Categorical
#   log_prob/entropy spelled with jax.nn.log_softmax and nnx.Module for its base class
#   StochasticPolicyBase (tensorflow_probability is not
#   installed; the Gaussian branches of entropy are left out), a small nnx MLP, critic and
#   optimizers, and a random batch in place of collect_trajectories over a gym vector env.
# gap: other
from collections import namedtuple

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


class MLP(nnx.Module):
    # stand-in for rl_blox's MLP
    def __init__(self, n_in, n_out, rngs):
        self.l1 = nnx.Linear(n_in, 16, rngs=rngs)
        self.l2 = nnx.Linear(16, n_out, rngs=rngs)

    def __call__(self, x):
        return self.l2(nnx.relu(self.l1(x)))


def entropy(actor: SoftmaxPolicy, observations: jnp.ndarray) -> jnp.ndarray:
    if type(actor) == SoftmaxPolicy:
        logits = actor.logits(observations)
        logp = jax.nn.log_softmax(logits)  # tfp Categorical(logits=logits).entropy()
        entropy = -(jnp.exp(logp) * logp).sum(-1)
    return jnp.mean(entropy)


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

    return policy_loss + 0.5 * value_loss - 0.01 * entropy(actor, observations)


@jax.jit
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
    epochs: int = 1
) -> jnp.ndarray:
    advs, returns = compute_gae(
        reward, critic(observation).flatten(), next_value, terminated
    )
    logp = actor.log_probability(observation, action)
    loss_grad_fn = nnx.value_and_grad(ppo_loss, argnums=(0, 1))

    def train_step(i, vals):
        actor, critic, optimizer_actor, optimizer_critic, _ = vals
        (loss_val), (grad_actor, grad_critic) = loss_grad_fn(
            actor, critic, logp, observation, action, advs, returns
        )
        optimizer_actor.update(actor, grad_actor)  # expect: JIT202
        optimizer_critic.update(critic, grad_critic)  # expect: JIT202
        return actor, critic, optimizer_actor, optimizer_critic, loss_val

    carry = (actor, critic, optimizer_actor, optimizer_critic, 0.0)
    (
        actor,
        critic,
        optimizer_actor,
        optimizer_critic,
        loss_val
    ) = jax.lax.fori_loop(0, epochs, train_step, carry)

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
    # observed: line 133 and line 134 update the copies jax.jit rebuilt inside the trace; the
    # caller's modules and optimizers never change, so each call returns the same loss
    assert jnp.array_equal(actor.net.l1.kernel[...], actor_before)
    assert jnp.array_equal(critic.l2.kernel[...], critic_before)
    assert int(optimizer_actor.step[...]) == 0 and int(optimizer_critic.step[...]) == 0
    assert losses[0] == losses[1] == losses[2], losses
    print("losses:", losses)
