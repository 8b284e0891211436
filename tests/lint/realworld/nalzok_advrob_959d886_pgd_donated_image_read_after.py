# source: https://github.com/nalzok/adversarial-robustness/blob/959d886f59e8c8281fdb4b6d3cb4bf4aaab46c9a/experiment/attacks.py
#   (with experiment/train.py and experiment/main.py at the same commit: PGD adversarial
#   training of a ResNet on CIFAR-10 with flax)
# observed on jax 0.10.2 CPU: pgd_untargeted donates `image` (donate_argnums=(2,)) and its
#   output image_adv has the same shape and dtype, so XLA reuses the buffer and JAX deletes
#   `image` after the call (image.is_deleted() is True). In the training loop the next line
#   hands the deleted `image` to train_step, which never reads it: jit prunes the unused
#   argument and the step runs. In the evaluation loop test_step(state, image, label) does
#   read it and raises RuntimeError: Array has been deleted with shape=float32[4,32,32,3].
#   The next commit (479e7cd) drops donate_argnums.
# gap: other
# Kept: attacks.py's pgd_untargeted, train.py's TrainState/create_train_state/train_step/
#   test_step and main.py's run() as written, in one module. Changed: the torchvision
#   CIFAR10/DataLoader/transform lines are replaced by small stand-ins yielding random
#   normalised NHWC batches (the torch transform block is dropped); ResNet18 is a small flax
#   stand-in with the same call signature (conv + BatchNorm + Dense); max_steps=2000 is
#   lowered to 3 (a 2000-step unrolled loop only slows the compile). Added: the __main__
#   call with small sizes.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import flax
import flax.linen as nn
from flax.training import train_state
import optax


# ---- stand-in for experiment/resnet.py's ResNet18 (same call: apply(variables, x, train))
class ResNet18(nn.Module):
    num_classes: int

    @nn.compact
    def __call__(self, x, train: bool = True):
        x = nn.Conv(4, (3, 3))(x)
        x = nn.BatchNorm(use_running_average=not train, momentum=0.9, epsilon=1e-5)(x)
        x = nn.relu(x)
        x = jnp.mean(x, axis=(-3, -2))
        return nn.Dense(self.num_classes)(x)


# ---- stand-ins for torchvision's CIFAR10 and torch's DataLoader
class CIFAR10:
    def __init__(self, root, train=True, download=True, transform=None):
        rng = np.random.default_rng(0 if train else 1)
        n = 8
        self.X = rng.normal(size=(n, 32, 32, 3)).astype(np.float32)
        self.y = rng.integers(0, 10, size=(n,))

    def __len__(self):
        return len(self.X)


def DataLoader(dataset, batch_size):
    for i in range(0, len(dataset), batch_size):
        yield dataset.X[i:i + batch_size], dataset.y[i:i + batch_size]


# ---- experiment/attacks.py
@partial(jax.jit, static_argnames=('epsilon', 'max_steps', 'step_size', 'randomize'), donate_argnums=(2,))
def pgd_untargeted(key, state, image, label, /, *, epsilon, max_steps, step_size, randomize):
    if randomize:
        key_epsilon, key = jax.random.split(key)
        epsilon = jax.random.uniform(key_epsilon, (1,), minval=0, maxval=epsilon)

    image_adv = image + jax.random.uniform(key, image.shape, minval=-epsilon, maxval=epsilon)

    lower = jnp.clip(image - epsilon, 0, 1)
    upper = jnp.clip(image + epsilon, 0, 1)
    image_adv = jnp.clip(image_adv, lower, upper)

    @partial(jax.grad, has_aux=True)
    def loss_fn(image_adv):
        variables = {'params': state.params, 'batch_stats': state.batch_stats}
        logit = state.apply_fn(variables, image_adv, False)
        prediction = jnp.argmax(logit, axis=-1)
        loss = optax.softmax_cross_entropy_with_integer_labels(logit, label)
        return loss.sum(), prediction

    for _ in range(max_steps):
        grad, prediction = loss_fn(image_adv)
        mask = prediction != label
        image_adv += step_size * mask[:, jnp.newaxis, jnp.newaxis, jnp.newaxis] * jnp.sign(grad)
        image_adv = jnp.clip(image_adv, lower, upper)

    return image_adv


# ---- experiment/train.py
class TrainState(train_state.TrainState):
    batch_stats: flax.core.FrozenDict[str, jnp.ndarray]


def create_train_state(key, num_classes, learning_rate, specimen):
    net = ResNet18(num_classes=num_classes)
    variables = net.init(key, specimen, True)
    tx = optax.adam(learning_rate)
    state = TrainState.create(
            apply_fn=net.apply,
            params=variables['params'],
            tx=tx,
            batch_stats=variables['batch_stats'],
    )
    return state


@partial(jax.jit, donate_argnums=(0,))
def train_step(state, image, image_adv, label):
    @partial(jax.value_and_grad, has_aux=True)
    def loss_fn(params):
        variables = {'params': params, 'batch_stats': state.batch_stats}
        logits, new_model_state = state.apply_fn(
            variables, image_adv, True, mutable=['batch_stats']
        )

        loss = optax.softmax_cross_entropy_with_integer_labels(logits, label)

        return loss.sum(), new_model_state

    (loss, new_model_state), grads = loss_fn(state.params)

    state = state.apply_gradients(
        grads=grads,
        batch_stats=new_model_state['batch_stats'],
    )

    return state, loss


@jax.jit
def test_step(state, image, label):
    variables = {'params': state.params, 'batch_stats': state.batch_stats}
    logits = state.apply_fn(variables, image, False)
    prediction = jnp.argmax(logits, axis=-1)
    hit = jnp.sum(prediction == label)

    return hit


# ---- experiment/main.py
def run(learning_rate, num_epochs, batch_size):
    root = "/usr/local/share/torchvision/datasets"
    specimen = jnp.empty((32, 32, 3))

    train_dataset = CIFAR10(root, train=True, download=True, transform=None)
    test_dataset = CIFAR10(root, train=False, download=True, transform=None)

    key = jax.random.PRNGKey(42)
    key_init, key = jax.random.split(key)
    state = create_train_state(key_init, 10, learning_rate, specimen)

    # Adversarial Training with PGD
    for epoch in range(num_epochs):
        train_loader = DataLoader(train_dataset, batch_size)
        epoch_loss = 0
        for X, y in train_loader:
            image = jnp.array(X)
            label = jnp.array(y)

            key_attack, key = jax.random.split(key)
            image_adv = pgd_untargeted(key_attack, state, image, label,
                    epsilon=16/255, max_steps=3, step_size=1/255, randomize=True)

            state, loss = train_step(state, image, image_adv, label)
            epoch_loss += loss

        with jnp.printoptions(precision=3):
            print(f"===> Epoch {epoch + 1}, train loss: {epoch_loss}")

    # Evaluate adversarial accuracy
    test_loader = DataLoader(test_dataset, batch_size)

    total_hits_orig, total_hits_adv = 0, 0
    for X, y in test_loader:
        image = jnp.array(X)
        label = jnp.array(y)

        key_attack, key = jax.random.split(key)
        adversary = pgd_untargeted(key_attack, state, image, label,
                epsilon=16/255, max_steps=3, step_size=1/255, randomize=False)

        total_hits_orig += test_step(state, image, label)  # expect: JIT504
        total_hits_adv += test_step(state, adversary, label)

    total = len(test_dataset)
    accuracy_orig = total_hits_orig/total*100
    accuracy_adv = total_hits_adv/total*100
    print(f"Accuracy: {accuracy_orig:.2f}% -> {accuracy_adv:.2f}%")


if __name__ == "__main__":
    learning_rate = 1e-3
    num_epochs = 1
    batch_size = 4
    run(learning_rate, num_epochs, batch_size)
