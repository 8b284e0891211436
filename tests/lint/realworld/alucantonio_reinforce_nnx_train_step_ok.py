# source: https://github.com/alucantonio/data_enhanced_simulation/blob/8f3b21b12d779ca80264838e4f3511620ddde8b7/9_REINFORCE_solutions.ipynb
#   (cells 10, 12 and 14 of a course notebook: REINFORCE on CartPole with flax nnx)
# observed on jax 0.10.2 CPU: runs clean. discount_rewards is a lax.scan under jax.jit
#   (gamma keeps its Python default), loss_fn and train_step are nnx.jit functions and the
#   optimizer updates the model in place; three episodes give three different losses and the
#   model's weights change. The gymnasium CartPole episodes of cell 16 are replaced by random
#   states and actions of the same shapes and dtypes (added: the __main__ block).
# gap: other
import numpy as np
from flax import nnx
import optax
import jax.numpy as jnp
import jax


@jax.jit
def discount_rewards(rewards, gamma=0.99):

    def discount_step(carry, reward):
        cumulative_reward = reward + gamma * carry
        return cumulative_reward, cumulative_reward

    # Use reverse to match the original order of rewards
    _, discounted_rewards = jax.lax.scan(discount_step, 0.0, rewards, reverse=True)

    # Normalize the rewards to be within the [0,1] interval for numerical stability
    discounted_rewards /= discounted_rewards.max()

    return discounted_rewards


class PolicyNetwork(nnx.Module):
  def __init__(self, l1, l2, l3, rngs: nnx.Rngs):
    self.linear1 = nnx.Linear(l1, l2, rngs=rngs)
    self.linear2 = nnx.Linear(l2, l3, rngs=rngs)

  def __call__(self, x):
    y = nnx.leaky_relu(self.linear1(x))
    y = self.linear2(y)
    y = nnx.softmax(y)
    return y

l1 = 4
l2 = 150
l3 = 2

learning_rate = 0.002
model = PolicyNetwork(l1, l2, l3, nnx.Rngs(0))
optimizer = nnx.ModelAndOptimizer(model, optax.adam(learning_rate))


@nnx.jit
def loss_fn(model, states, actions, discounted_rewards):
    log_probs = jnp.log(jnp.take_along_axis(model(states), actions[:, None], axis=1).squeeze())
    return -jnp.sum(log_probs * discounted_rewards)


@nnx.jit
def train_step(model, optimizer, states, actions, discounted_rewards):
    loss, grads = nnx.value_and_grad(loss_fn)(model, states, actions, discounted_rewards)
    optimizer.update(grads)
    return loss


if __name__ == "__main__":
    MAX_STEPS = 200
    rng = np.random.default_rng(0)
    losses = []
    kernel0 = np.array(model.linear2.kernel[...])
    for episode in range(3):
        states = rng.normal(size=(MAX_STEPS, 4))
        actions = rng.integers(0, 2, size=MAX_STEPS).astype(np.int32)
        rewards = np.zeros(MAX_STEPS)
        ep_len = 20 + 10 * episode
        rewards[:ep_len] = 1.
        mask = rewards
        disc_future_rewards = discount_rewards(rewards) * mask
        losses.append(float(train_step(model, optimizer, states, actions, disc_future_rewards)))
    assert len(set(losses)) == 3, losses
    assert not np.allclose(model.linear2.kernel[...], kernel0)
