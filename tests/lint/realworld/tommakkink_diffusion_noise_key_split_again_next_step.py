# source: https://github.com/TomMakkink/diffusion-jax/commit/e876aae917f6169d2d3e0a5628df60266916c6b2
#   (a DDPM in flax; the commit "Jit compile fns" moves the noising out of the now jitted
#   `train_step` into the loop of `training()` and, in doing so, hands `rng` itself to
#   `create_noised_image` instead of the `sub_key` split off just before; the next commit,
#   c673d08 "refactor: add config", passes `random_key=sub_key`)
# observed on jax 0.10.2 CPU (flax 0.12.8): the key that draws each batch's noise is the key
#   split at the top of the next step for that step's timesteps: with typed keys under
#   `jax.debug_key_reuse(True)` the first split of the second step raises KeyReuseError
#   ("Previously-consumed key passed to random_split").
# Added: diffusion/ddpm/{constants,noise_schedule,utils,ddpm,network}.py of the commit
#   inlined (DDPM without its plotting __main__ block), smaller constants (BATCH_SIZE 4,
#   IMG_SIZE 16) and SimpleUnet channels (8, 16) so that it runs on a CPU, stand-ins for
#   the torchvision dataset and torch DataLoader (two random batches); left out: the orbax
#   checkpointing and logging config. The __main__ block runs `training` with typed keys
#   under jax.debug_key_reuse, in place of the original's `training()` call.
# gap: other
from __future__ import annotations

import logging
from collections.abc import Sequence

import jax
import numpy as np
import optax
from flax import linen as nn
from flax.training import train_state
from jax import numpy as jnp

IMG_SIZE = 16
BATCH_SIZE = 4
SEED = 123


def linear_beta_schedule(
    num_timesteps: int,
    start: float = 0.0001,
    end: float = 0.02,
) -> jnp.ndarray:
    """Return a tensor of linearly spaced beta values, defining
    the noise schedule (aka variance schedule).

    Args:
        num_timesteps: number of timesteps (T in literature).
        start: initial value of beta from t=0 to t=1.
        end: final value of beta from timestep t=T-1 to t=T.

    Returns:
        1D tensor of shape (T,) representing linearly spaced beta
        values used in the noise schedule of the forward process.
    """
    return jnp.linspace(start=start, stop=end, num=num_timesteps)


def get_value_from_index(
    vals: jnp.ndarray, t: jnp.ndarray, x_shape: tuple[int]
) -> jnp.ndarray:
    """Returns the value at index `t` of a passed list of values
    `vals`, all while considering the batch dimension.

    Args:
        vals: the array of values.
        t: the index used to get the desired value from `vals`.
        x_shape: shape of image, usually (B, C, H, W).

    Returns
        Rank-4 array of shape (1, 1, 1, 1), containing the value.
    """
    batch_size = t.shape[0]

    # Get the value of `vals` at index `t`
    out = vals.take(t)

    # Reshape to (1, 1, 1, 1) i.e. same rank as the image.
    non_batch_shape = (1,) * (len(x_shape) - 1)
    out = out.reshape((batch_size, *non_batch_shape))

    return out


class DDPM:
    """Class for representing the forward (noising) process and backward (denoising)
    process in a denoising diffusion probabilistic model (DDPM). This implementation
    is based on the original DDPM paper: https://arxiv.org/pdf/2006.11239.pdf.

    Forward process, noise/variance schedule, and sampling: we must first create the
    inputs for our network, which are noisy versions of our original images. Rather
    than doing this sequentially, we can use the closed form in Equation 4 of the
    paper to create a noised image x_t given the original image x_0 and a timestep t
    in {1, ..., T}. Importantly,
    - The noise-levels can be pre-computed.
    - There are different types of variance schedules.
    - We can directly sample x_t from x_0 and t (Equation 4 in paper). This follows
      from the reparametrization trick and the fact that the sum of independent
      Gaussian distributions is also Gaussian.
    - No ML model/network is needed in the forward/noising process.
    """

    def __init__(self, T: int = 100) -> None:
        """Initialize the DDPM model.

        Args:
            T: number of timesteps. Defaults to 100.
        """
        self.T = T

        # Create a linear beta schedule which defines the noise schedule
        # and precompute useful quantities.
        self.betas = linear_beta_schedule(num_timesteps=T, start=0.001, end=0.01)
        self.alphas = 1.0 - self.betas
        self.alphabars = jnp.cumprod(self.alphas, axis=0)
        self.sqrt_recip_alphas = jnp.sqrt(1.0 / self.alphas)
        self.sqrt_alphabars = jnp.sqrt(self.alphabars)
        self.sqrt_one_minus_alphabars = jnp.sqrt(1.0 - self.alphabars)
        # Remove the last value and then add 1.0 as the first value
        self.alphabars_prev = jnp.pad(
            self.alphabars[:-1], pad_width=((1, 0)), constant_values=1.0
        )
        self.posterior_variance = (
            self.betas * (1.0 - self.alphabars_prev) / (1.0 - self.alphabars)
        )

    def create_noised_image(
        self, x_0: jax.Array, t: jax.Array, random_key: jax.random.PRNGKey
    ) -> tuple[jax.Array, jax.Array]:
        """Create a noised version of an uncorrupted image. Used in the forward process.

        Specifically, given an uncorrupted image at t=0 and timestep `t`, this method
        returns a noisy version of the image. The level of noise added depends on the
        timestep `t`.

        Note: because the noise added from t-1 to t follows a Gaussian distribution, a
        convenient property follows: one can directly sample the noised image `x_t` at
        any timestep `t` from a distribution q(x_t|x_0) with closed form. To this end,
        this method implements Equation (4) in the original DDPM paper.

        Args:
            x_0: the original image, i.e. the image at t=0. Shape (B, C, H, W).
            t: timestep to sample. Can take values in {1, ..., T}. Shape (B,).
            random_key: jax.random.PRNGKey used for random number generation.

        Returns:
            A tuple containing:
            - `x_t` (a noisy version of the input image). Shape (B, C, H, W).
            - The noise that was added to the input image to get `x_t`.
              Shape (B, C, H, W).
        """
        # Compute factor of x_0 in normal distribution in Equation 4 of DDPM paper
        sqrt_alphabar_t = get_value_from_index(self.sqrt_alphabars, t, x_0.shape)

        # Compute standard deviation of normal distribution in Equation 4 of DDPM paper
        sqrt_one_minus_alphabar_t = get_value_from_index(
            self.sqrt_one_minus_alphabars, t, x_0.shape
        )

        # Sample epsilon from the standard normal distribution (Algorithm 1 line 4)
        noise = jax.random.normal(random_key, x_0.shape)

        # Sample from the normal distribution (Equation 4 in the DDPM paper)
        # using the reparametrization trick: x = μ + sigma * ε
        mean = sqrt_alphabar_t * x_0
        std = sqrt_one_minus_alphabar_t
        noised_image = mean + std * noise

        return noised_image, noise

    def perform_denoising_step(
        self,
        x_t: jax.Array,
        t: jax.Array,
        noise_pred: jax.Array,
        rng: jax.random.PRNGKey,
    ) -> jax.Array:
        """Denoise a noisy image to get a slightly less noisy image.

        The following steps are done:
        - U-net model to predict the total noise in the noised input image `x_t`.
        - Subtract this from `x_t` to give an estimate of the final image `x_0`.
        - If not in the final timestep, we apply noise (but less than previously) which
          results in x_{t-1} which is (hopefully) a slight improvement over `x_t`.

        This is used in Algorithm 2 in the original DDPM paper: it is the successive
        application of this method (starting from pure noise at t=T) that results in a
        final generated/denoised image.

        Args:
            x_t: the noisy image at timestep `t`. Shape (B, C, H, W).
            t: the timestep in question. Shape (B,).
            noise_pred: predicted noise added to the image, shape (B, C, H, W).
            rng: jax.random.PRNGKey used for random number generation.

        Returns:
            - x_{t-1} if t > 0. This a noised version of the final image. It can be
              thought of as the result of applying a denoising step on `x_t`.
              Shape (B, C, H, W).
            - x_0 if t = 0. This is the final generated image. Shape (B, C, H, W).
        """
        beta_t = get_value_from_index(self.betas, t, x_t.shape)
        sqrt_one_minus_alphabar_t = get_value_from_index(
            self.sqrt_one_minus_alphabars, t, x_t.shape
        )
        sqrt_recip_alpha_t = get_value_from_index(self.sqrt_recip_alphas, t, x_t.shape)

        # Calculate µ_θ in Equation 11 of the DDPM paper, where the noise is predicted
        # using the U-net model (represented as ε_θ(x_t, t) in the paper).
        model_mean = sqrt_recip_alpha_t * (
            x_t - beta_t * noise_pred / sqrt_one_minus_alphabar_t
        )

        # Compute (sigma_t)^2 in Algorithm 2 line 4
        posterior_variance_t = get_value_from_index(
            self.posterior_variance, t, x_t.shape
        )

        if t == 0:
            x_0 = model_mean
            # As pointed out by Luis Pereira (see YouTube comment)
            # The t's are offset from the t's in the paper
            return x_0

        # Sample z (in Algorithm 2) from a standard normal distribution
        rng, sub_key = jax.random.split(rng)
        noise = jax.random.normal(sub_key, x_t.shape)

        # Return x_{t-1} in Algorithm 2 line 4. This is basically
        # sampling from the distribution q(x_{t-1}|x_t) in Equation 4.
        x_t_1 = model_mean + jnp.sqrt(posterior_variance_t) * noise

        return x_t_1


class SinusoidalPositionEmbeddings(nn.Module):
    """Sinusoidal Positional encoding used to encode the timestep `t`.

    Args:
        dim: embedding dimensions for the positional encoding.
    """

    dim: int  # Emedding dimension

    @nn.compact
    def __call__(self, t: jax.Array) -> jax.Array:
        half_dim = self.dim // 2
        embeddings = jnp.log(10000) / (half_dim - 1)
        embeddings = jnp.exp(jnp.arange(half_dim) * -embeddings)
        embeddings = t[:, None] * embeddings[None, :]
        embeddings = jnp.concatenate(
            (jnp.sin(embeddings), jnp.cos(embeddings)), axis=-1
        )
        return embeddings


class Block(nn.Module):
    """Block used in U-net.

    Args:
        in_ch: number of input channels.
        out_ch: number of output channels.
        up: whether the block is used for upsampling. If False,
            the block is for downsampling.
    """

    in_ch: int
    out_ch: int
    up: bool = False

    @nn.compact
    def __call__(self, x: jax.Array, t: jax.Array, train: bool = True) -> jax.Array:
        """Forward pass of the downsampling/upsampling block.

        Args:
            x: embedding tensor of shape (B, H, W, C).
            t: the timestep of the sample in question.
            train: whether in training or inference mode.

        Returns:
            Embedding tensor.
        """
        # Define layers for upsampling vs. downsampling
        if self.up:
            conv1 = nn.Conv(features=self.out_ch, kernel_size=(3, 3), padding="SAME")
            transform = nn.ConvTranspose(
                features=self.out_ch, kernel_size=(4, 4), strides=(2, 2), padding="SAME"
            )
        else:
            conv1 = nn.Conv(features=self.out_ch, kernel_size=(3, 3), padding="SAME")
            transform = nn.Conv(
                features=self.out_ch, kernel_size=(4, 4), strides=(2, 2), padding="SAME"
            )

        # First convolution, ReLU, and batch normalisation
        h = conv1(x)
        h = jax.nn.relu(h)
        h = nn.BatchNorm(momentum=0.9, use_running_average=not train)(h)
        # Time embedding. Shape (1, time_emb_dim)
        time_emb = nn.Dense(features=self.out_ch)(t)
        time_emb = jax.nn.relu(time_emb)

        # time_emb = time_emb.reshape((time_emb.shape[0], time_emb.shape[1], 1, 1))
        time_emb = time_emb[(...,) + (None,) * 2]
        # Reshape the time embedding to (batch, 1, 1, time_emb_dim)
        time_emb = jax.numpy.transpose(time_emb, (0, 2, 3, 1))

        # Add time channel (broadcasting occurs)
        h = h + time_emb

        # Second Conv
        h = nn.Conv(features=self.out_ch, kernel_size=(3, 3), padding="SAME")(h)
        h = jax.nn.relu(h)
        h = nn.BatchNorm(momentum=0.9, use_running_average=not train)(h)

        return transform(h)


class SimpleUnet(nn.Module):
    """A simpliefied variant of the U-net architecture."""

    image_channels: int = 3
    down_channels: Sequence[int] = (8, 16)
    up_channels: Sequence[int] = (16, 8)
    out_dim: int = 3
    time_emb_dim: int = 32

    @nn.compact
    def __call__(self, x: jax.Array, t: jax.Array, train: bool = True) -> jax.Array:
        """Do a forward pass of the neural network in the denoising process.

        Args:
            x: during training, this is usually a noisy version of some starting
                image `x_0` sampled at a timestep `t`. Shape (batch_size, H, W, C).
            t: the timestep indicating how much noise has been added to the
                starting image `x_0`. Is in {1, 2, ..., T}. Shape (batch_size).
            train: whether in training or inference mode.. Useful for BatchNorm layers.

        Returns:
            A prediction of the noise in the input `x`.
        """
        # Compute the positional encoding of the timestep
        time_mlp = nn.Sequential(
            [
                SinusoidalPositionEmbeddings(dim=self.time_emb_dim),
                nn.Dense(self.time_emb_dim),
                jax.nn.relu,
            ]
        )
        # time encoding with shape (batch_size, time_emb_dim).
        t_encoded = time_mlp(t)

        x = nn.Conv(features=self.down_channels[0], kernel_size=(3, 3), padding="SAME")(
            x
        )

        # U-net: downsampling followed by upsampling.
        residual_inputs = []  # Used as a stack
        for i in range(len(self.down_channels) - 1):
            x = Block(
                in_ch=self.down_channels[i],
                out_ch=self.down_channels[i + 1],
            )(x=x, t=t_encoded, train=train)
            residual_inputs.append(x)
        for i in range(len(self.up_channels) - 1):
            residual_x = residual_inputs.pop()
            x = jnp.concatenate((x, residual_x), axis=-1)
            x = Block(
                in_ch=self.up_channels[i], out_ch=self.up_channels[i + 1], up=True
            )(x=x, t=t_encoded, train=train)
        output = nn.Conv(features=self.out_dim, kernel_size=(1,))(x)

        return output


# stand-ins for the torchvision dataset and the torch DataLoader
class _TorchBatch:
    def __init__(self, array):
        self.array = array

    def numpy(self):
        return self.array


def load_transformed_dataset():
    return [np.random.default_rng(i).uniform(-1, 1, (3, IMG_SIZE, IMG_SIZE)).astype(np.float32) for i in range(2 * BATCH_SIZE)]


def DataLoader(dataset, batch_size, shuffle, drop_last):
    return [(_TorchBatch(np.stack(dataset[i:i + batch_size])), None) for i in range(0, len(dataset), batch_size)]


class TrainState(train_state.TrainState):
    batch_stats: dict[str, jax.Array]


def create_train_state(
    model: nn.Module,
    rng: jax.random.PRNGKey,
    learning_rate: float,
) -> TrainState:
    """Creates the initial TrainState.

    Args:
        model: flax model.
        rng: random key.
        learning_rate: learning rate for optimizer.

    Returns:
        train_state: training state containing the model apply
          function, model parameters, batch stats and optimizer.
    """
    # Define fake data to initialise the model.
    init_t = jnp.ones(BATCH_SIZE)
    init_x = jnp.ones((BATCH_SIZE, IMG_SIZE, IMG_SIZE, 3))

    # Initialize the network.
    variables = model.init(rngs=rng, t=init_t, x=init_x, train=False)

    # Get the model parameters and the batch norm stats.
    params = variables["params"]
    batch_stats = variables["batch_stats"]

    optimizer = optax.adam(learning_rate=learning_rate)

    state: TrainState = TrainState.create(
        apply_fn=model.apply,
        params=params,
        tx=optimizer,
        batch_stats=batch_stats,
    )

    return state


def l1_loss(noise: jax.Array, noise_pred: jax.Array) -> jax.Array:
    """Compute the L1 loss between actual and predicted noise.

    Args:
        noise: original noise added to the image, shape (B, C, H, W).
        noise_pred: predicted noise from the model, shape (B, C, H, W).

    Returns:
        loss: scalar L1 loss.
    """
    loss = jnp.mean(jnp.abs(noise - noise_pred))
    return loss


def grad_fn(
    params: jax.Array,
    x_t: jax.Array,
    t: jax.Array,
    noise: jax.Array,
    state: TrainState,
) -> tuple[dict[str, jax.Array], float, dict[str, jax.Array]]:
    """Compute gradients using a specific loss function.

    Args:
        params: model parameters.
        x_t: the noised image at time t. Shape (B, C, H, W).
        t: timestep to sample. Can take values in {1, ..., T}. Shape (B,).
        noise: noise added to the original image, shape (B, C, H, W).
        state: training state.

    Returns:
        grads: dict containing the gradients of the model's parameters.
        loss: scalar loss.
        updates: dictionary containing training metadata, e.g.
            batch_stats for BatchNorm.
    """

    def wrapped_loss(params: jax.Array) -> tuple[float, dict[str, jax.Array]]:
        noise_pred, updates = state.apply_fn(
            {"params": params, "batch_stats": state.batch_stats},
            x=x_t,
            t=t,
            train=True,
            mutable=["batch_stats"],
        )
        loss = l1_loss(noise=noise, noise_pred=noise_pred)
        return loss, updates

    (loss, updates), grads = jax.value_and_grad(wrapped_loss, has_aux=True)(params)

    return grads, loss, updates


@jax.jit
def train_step(
    state: TrainState,
    x_t: jax.Array,
    noise: jax.Array,
    t: jax.Array,
) -> tuple[TrainState, float]:
    """Train for a single step on a batch of data.

    Args:
        state: flax training state object.
        x_t: the noised image at time t. Shape (B, C, H, W).
        noise: noise added to the original image, shape (B, C, H, W).
        t: timestep to sample. Can take values in {1, ..., T}. Shape (B,).

    Returns:
        state: updated training state after updating the network parameters.
        loss: scalar loss.
    """

    # Compute the gradients and loss.
    grads, loss, updates = grad_fn(
        params=state.params,
        x_t=x_t,
        t=t,
        noise=noise,
        state=state,
    )

    # Update training state using the new gradients.
    state = state.apply_gradients(grads=grads)

    # Update the training state with batch_stats (useful for BatchNorm).
    state = state.replace(batch_stats=updates["batch_stats"])

    return state, loss


def training() -> None:
    """Implement Training (Algorithm 1) in the DDPM paper."""
    # Load the dataset.
    dataset = load_transformed_dataset()
    dataloader = DataLoader(
        dataset, batch_size=BATCH_SIZE, shuffle=True, drop_last=True
    )

    # Initialise the SimpleUnet network function.
    model = SimpleUnet()

    # Create an initial random key.
    init_rng = jax.random.PRNGKey(SEED)
    rng, sub_key = jax.random.split(init_rng)

    # Create the training state.
    state = create_train_state(
        model=model,
        rng=sub_key,
        learning_rate=0.001,
    )

    # Set up the DDPM class.
    T = 100
    ddpm = DDPM(T=T)
    epochs = 100

    for epoch in range(epochs):
        for step, (x_0, _) in enumerate(dataloader):
            # Algorithm 1 line 3: sample `t` from a discrete uniform distribution
            rng, sub_key = jax.random.split(rng)  # expect: JIT502
            t = jax.random.randint(sub_key, shape=(BATCH_SIZE,), minval=0, maxval=T)

            # Convert the image x0 from a PyTorch tensor to a jax numpy array
            x_0 = jnp.array(x_0.numpy())

            # Flax convolution layers by default expect a NHWC data format,
            # not channels first NCHW like PyTorch.
            x_0 = jnp.transpose(x_0, (0, 2, 3, 1))

            # From the original image x_0, sample a noised image at timestep t.
            rng, sub_key = jax.random.split(rng)
            x_t, noise = ddpm.create_noised_image(x_0=x_0, t=t, random_key=rng)

            # Execute a training step
            state, loss = train_step(
                state=state,
                x_t=x_t,
                noise=noise,
                t=t,
            )

            logging.info(f"Epoch {epoch} | step {step:03d} Loss: {loss} ")


if __name__ == "__main__":
    import traceback

    PRNGKey = jax.random.PRNGKey
    jax.random.PRNGKey = jax.random.key  # typed keys, so that the checker sees them
    try:
        with jax.debug_key_reuse(True):
            training()
        raise AssertionError("no key reuse found")
    except jax.errors.KeyReuseError as e:
        assert "random_split" in str(e), e
        line = [fr.lineno for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__][-1]
    finally:
        jax.random.PRNGKey = PRNGKey
    # observed: line 552 splits, at the second step, the key that create_noised_image drew the first step's noise from: KeyReuseError
    assert line == 552, line
