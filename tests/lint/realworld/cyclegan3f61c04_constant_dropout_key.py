# source: https://github.com/dlzou/cyclegan-jax/blob/2c00d9591ce6a519d902d897f0ad322941c8c88f/gan.py (parent of commit 3f61c041ea7914797ca3d6902fde0f571cb09d5b "Split keys", which replaced the hard-coded dropout keys)
# observed on jax 0.10.2 CPU: runs; see the `# observed:` lines (both generators start from identical weights, and every training step draws the same dropout masks from PRNGKey(1337))
# gap: other
# (added: imports; the Generator and ResnetBlock of networks.py at the same commit, used with small sizes; small stand-ins for Discriminator, GanLoss ("lsgan" mean squared error) and L1Loss from networks.py; an opts namespace; the __main__ block)
# observed: line 200 params_G_B == params_G_A: G_A and G_B are initialised from the same key and start as the same network
# observed: line 216 fake_B of two training steps (same params, same data) are identical although dropout is active: it equals G.apply with PRNGKey(1337) and differs from G.apply with any other dropout key
# observed: line 217 recover_A is identical across two training steps (dropout key fixed to PRNGKey(1337))
# observed: line 218 fake_A is identical across two training steps (dropout key fixed to PRNGKey(1337))
# observed: line 219 recover_B is identical across two training steps (dropout key fixed to PRNGKey(1337))
# observed: line 255 id_A equals G.apply(params_G_A, real_B) with PRNGKey(1337) on every step
# observed: line 258 id_B equals G.apply(params_G_B, real_A) with PRNGKey(1337) on every step
""" Training and testing functions.

References:
    Learning rate scheduling docs:
    https://flax.readthedocs.io/en/latest/guides/lr_schedule.html
    https://optax.readthedocs.io/en/latest/api.html

    Author Implementation: 
    https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/blob/e2c7618a2f2bf4ee012f43f96d1f62fd3c3bec89/models/cycle_gan_model.py
"""

from functools import partial
from types import SimpleNamespace
from typing import Callable, Sequence, Tuple

from flax.training.train_state import TrainState
from flax import linen as nn
import jax.numpy as jnp
import jax
import optax


# ---- networks.py (same commit): Generator and ResnetBlock as written ----
class Generator(nn.Module):
    output_nc: int = 3
    ngf: int = 32
    n_res_blocks: int = 6
    use_dropout: bool = True
    initializer: Callable = jax.nn.initializers.normal(stddev=0.02)

    @nn.compact
    def __call__(self, x):
        input_x = x
        # First convolution layer.
        first_conv = nn.Sequential([
            nn.Conv(
                features=self.ngf,
                kernel_size=[7, 7],
                strides=[1, 1],
                padding="SAME",
                kernel_init=self.initializer,
            ),
            nn.GroupNorm(num_groups=None, group_size=1),  # instance norm
            nn.relu,
        ])
        x = first_conv(x)

        # Downsampling layers.
        n_downsample_layers = 2
        model = []
        for i in range(n_downsample_layers):
            mult = 2**i
            model += [
                nn.Conv(
                    features=self.ngf * mult * 2,
                    kernel_size=[3, 3],
                    strides=[2, 2],
                    padding="SAME",
                    kernel_init=self.initializer,
                ),
                nn.GroupNorm(num_groups=None, group_size=1),  # instance norm
                nn.relu,
            ]
        downsample = nn.Sequential(model)
        x = downsample(x)

        # Resnet transformation blocks.
        mult = 2**n_downsample_layers
        model = []
        for i in range(self.n_res_blocks):
            model += [ResnetBlock(features=self.ngf * mult, use_dropout=self.use_dropout, initializer=self.initializer)]
        transform = nn.Sequential(model)
        x = transform(x)

        # Upsampling layers.
        model = []
        for i in range(n_downsample_layers):
            mult = 2 ** (n_downsample_layers - i)
            model += [
                nn.ConvTranspose(
                    features=(self.ngf * mult) // 2,
                    kernel_size=[3, 3],
                    strides=[2, 2],
                    padding="SAME",
                    kernel_init=self.initializer,
                ),
                nn.GroupNorm(num_groups=None, group_size=1),  # instance norm
                nn.relu,
            ]
        upsample = nn.Sequential(model)
        x = upsample(x)

        # Last convolution layer.
        model = [
            nn.Conv(
                features=self.output_nc,
                kernel_size=[7, 7],
                padding="SAME",
                kernel_init=self.initializer,
            )
        ]
        model += [nn.activation.tanh]
        last_conv = nn.Sequential(model)
        x = last_conv(x)

        #Add skip connection between generator input and output.
        # Reference: https://github.com/leehomyc/cyclegan-1
        return x + input_x


class ResnetBlock(nn.Module):
    features: int
    use_dropout: bool = True
    initializer: Callable = jax.nn.initializers.normal(stddev=0.02)

    @nn.compact
    def __call__(self, x):
        model = [
            nn.Conv(
                features=self.features,
                kernel_size=[3, 3],
                padding="SAME",
                kernel_init=self.initializer,
            ),
            nn.GroupNorm(num_groups=None, group_size=1),  # instance norm
            nn.relu,
        ]
        if self.use_dropout:
            model += [nn.Dropout(0.5, deterministic=False)]
        model += [
            nn.Conv(
                features=self.features,
                kernel_size=[3, 3],
                padding="SAME",
                kernel_init=self.initializer,
            ),
            nn.GroupNorm(num_groups=None, group_size=1),  # instance norm
        ]
        seq_model = nn.Sequential(model)

        return x + seq_model(x)


# ---- stand-ins for the rest of networks.py ----
class Discriminator(nn.Module):
    ndf: int = 64

    @nn.compact
    def __call__(self, x):
        x = nn.Conv(self.ndf, kernel_size=[4, 4], strides=2, padding=1)(x)
        return nn.Conv(1, kernel_size=[4, 4], strides=1, padding=1)(nn.leaky_relu(x, 0.2))


class GanLoss:
    def __init__(self, gan_mode):
        self.gan_mode = gan_mode

    def __call__(self, prediction, target_is_real):
        target = jnp.ones_like(prediction) * (1.0 if target_is_real else 0.0)
        return jnp.mean((prediction - target) ** 2)


class L1Loss:
    def __call__(self, x, y):
        return jnp.mean(jnp.abs(x - y))


# ---- gan.py ----
class CycleGan:
    def __init__(self, opts):
        # The following are stateless; state is passed in later through params.
        self.G = Generator(output_nc=opts.output_nc, ngf=opts.ngf, n_res_blocks=opts.n_res_blocks, use_dropout=opts.use_dropout, initializer=opts.initializer)
        self.D = Discriminator(ndf=opts.ndf)
        self.criterion_gan = GanLoss(gan_mode="lsgan")
        self.criterion_cycle = L1Loss()
        self.criterion_id = L1Loss()

        self.opts = opts
        self.lambda_A = opts.lambda_A  # weight of loss on inputs from set A
        self.lambda_B = opts.lambda_B  # weight of loss on inputs from set B
        self.lambda_id = opts.lambda_id  # weight of identity loss

    def get_generator_params(self, rng, input_shape):
        """
        Reference: https://github.com/google/jax/issues/421
        """
        init_rngs = {"params": rng, "dropout": jax.random.PRNGKey(1337)}
        params_G_A = self.G.init(init_rngs, jnp.ones(input_shape))["params"]
        params_G_B = self.G.init(init_rngs, jnp.ones(input_shape))["params"]  # expect: JIT502
        return (params_G_A, params_G_B)

    def get_discriminator_params(self, rng, input_shape):
        params_D = self.D.init(rng, jnp.ones(input_shape))["params"]
        return params_D

    def train_generator_forward(self, params, real_data):
        params_G_A = params[0]
        params_G_B = params[1]

        real_A = real_data[0]
        real_B = real_data[1]

        # Forward through G
        rngs = {"dropout": jax.random.PRNGKey(1337)}
        fake_B = self.G.apply({"params": params_G_A}, real_A, rngs=rngs)  # G_A(A)  # expect: JIT502
        recover_A = self.G.apply({"params": params_G_B}, fake_B, rngs=rngs)  # G_B(G_A(A))  # expect: JIT502
        fake_A = self.G.apply({"params": params_G_B}, real_B, rngs=rngs)  # G_B(B)  # expect: JIT502
        recover_B = self.G.apply({"params": params_G_A}, fake_A, rngs=rngs)  # G_A(G_B(B))  # expect: JIT502

        return (fake_B, recover_A, fake_A, recover_B)

    def train_generator_backward(self, params, generated_data, real_data):
        params_G_A = params[0]
        params_G_B = params[1]
        params_D_A = params[2]
        params_D_B = params[3]

        fake_B = generated_data[0]
        recover_A = generated_data[1]
        fake_A = generated_data[2]
        recover_B = generated_data[3]

        real_A = real_data[0]
        real_B = real_data[1]

        # Compute 3-criteria loss function

        # GAN loss D_A(G_A(A))
        loss_G_A = self.criterion_gan(
            self.D.apply({"params": params_D_A}, fake_B), target_is_real=True
        )
        # GAN loss D_B(G_B(B))
        loss_G_B = self.criterion_gan(
            self.D.apply({"params": params_D_B}, fake_A), target_is_real=True
        )

        # Cycle loss ||G_B(G_A(A)) - A||
        loss_cycle_A = self.criterion_cycle(recover_A, real_A) * self.lambda_A
        # Cycle loss ||G_A(G_B(B)) - B||
        loss_cycle_B = self.criterion_cycle(recover_B, real_B) * self.lambda_B

        # G_A should be identity if real_B is fed: ||G_A(B) - B||
        rngs = {"dropout": jax.random.PRNGKey(1337)}
        id_A = self.G.apply({"params": params_G_A}, real_B, rngs=rngs)  # expect: JIT502
        loss_id_A = self.criterion_id(id_A, real_B) * self.lambda_B * self.lambda_id
        # G_B should be identity if real_A is fed: ||G_B(A) - A||
        id_B = self.G.apply({"params": params_G_B}, real_A, rngs=rngs)  # expect: JIT502
        loss_id_B = self.criterion_id(id_B, real_A) * self.lambda_A * self.lambda_id

        return loss_G_A + loss_G_B + loss_cycle_A + loss_cycle_B + loss_id_A + loss_id_B


def create_generator_state(
    rng: jnp.ndarray,
    model: CycleGan,
    input_shape: Sequence[int],
    learning_rate: float,
    beta_1: float,
):
    params_G = model.get_generator_params(
        rng, input_shape
    )  # get params of both G_A and G_B
    tx = optax.adam(learning_rate, b1=beta_1)
    return TrainState.create(
        apply_fn=None,
        params=params_G,
        tx=tx,
    )


def create_discriminator_state(
    rng: jnp.ndarray,
    model: CycleGan,
    input_shape: Sequence[int],
    learning_rate: float,
    beta_1: float,
):
    params = model.get_discriminator_params(
        rng, input_shape
    )  # parameter for eithe G_A or G_B
    tx = optax.adam(learning_rate, b1=beta_1)
    return TrainState.create(
        apply_fn=None,
        params=params,
        tx=tx,
    )


@partial(jax.jit, static_argnums=0)
def generator_step(
    model: CycleGan,
    g_state: TrainState,
    d_A_state: TrainState,
    d_B_state: TrainState,
    real_data: Tuple[jnp.ndarray, jnp.ndarray],
):
    """The generator is updated by generating data and letting the discriminator
    critique it. It's loss goes down if the discriminator wrongly predicts it to
    to be real data.
    """

    def loss_fn(params):  # param: g_state.params
        generated_data = model.train_generator_forward(params, real_data)
        backward_params = (params[0], params[1], d_A_state.params, d_B_state.params)
        loss = model.train_generator_backward(
            backward_params, generated_data, real_data
        )
        return loss, generated_data

    grad_fn = jax.value_and_grad(
        loss_fn, has_aux=True
    )  # grad_fn has the same argument as loss_fn, but evaluate both loss_fn and grad of loss_fn
    (loss, generated_data), grads = grad_fn(g_state.params)
    new_g_state = g_state.apply_gradients(grads=grads)
    # what about metrics?
    return loss, new_g_state, generated_data


if __name__ == "__main__":
    import numpy as np

    opts = SimpleNamespace(
        output_nc=3, ngf=4, n_res_blocks=1, use_dropout=True,
        initializer=jax.nn.initializers.normal(stddev=0.02), ndf=4,
        lambda_A=10.0, lambda_B=10.0, lambda_id=0.5,
        input_shape=(2, 8, 8, 3), learning_rate=2e-4, beta1=0.5,
    )
    model = CycleGan(opts)
    key = jax.random.PRNGKey(1337)
    k_g, k_da, k_db, k_a, k_b = jax.random.split(key, 5)
    g_state = create_generator_state(k_g, model, opts.input_shape, opts.learning_rate, opts.beta1)
    d_A_state = create_discriminator_state(k_da, model, opts.input_shape, opts.learning_rate, opts.beta1)
    d_B_state = create_discriminator_state(k_db, model, opts.input_shape, opts.learning_rate, opts.beta1)

    # line 200: both generators initialised identically
    pA, pB = g_state.params
    same_init = all(jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda a, b: bool(jnp.array_equal(a, b)), pA, pB)))
    assert same_init, "expected G_A and G_B to start with identical weights"

    real_A = jax.random.uniform(k_a, opts.input_shape, minval=-1, maxval=1)
    real_B = jax.random.uniform(k_b, opts.input_shape, minval=-1, maxval=1)

    # lines 216-219: two training steps from the same state draw the same dropout masks
    _, _, gen1 = generator_step(model, g_state, d_A_state, d_B_state, (real_A, real_B))
    _, _, gen2 = generator_step(model, g_state, d_A_state, d_B_state, (real_A, real_B))
    for name, a, b in zip(["fake_B", "recover_A", "fake_A", "recover_B"], gen1, gen2):
        assert jnp.array_equal(a, b), name
    # dropout is really active: another dropout key gives another output, PRNGKey(1337) gives fake_B exactly
    fresh = model.G.apply({"params": pA}, real_A, rngs={"dropout": jax.random.PRNGKey(7)})
    fixed = model.G.apply({"params": pA}, real_A, rngs={"dropout": jax.random.PRNGKey(1337)})
    assert not np.allclose(fresh, gen1[0])
    assert np.allclose(fixed, gen1[0], atol=1e-6)

    # lines 255, 258: the identity terms also use PRNGKey(1337) every step
    id_A_fixed = model.G.apply({"params": pA}, real_B, rngs={"dropout": jax.random.PRNGKey(1337)})
    id_A_fresh = model.G.apply({"params": pA}, real_B, rngs={"dropout": jax.random.PRNGKey(8)})
    def loss_with(id_a, id_b):
        return model.criterion_id(id_a, real_B) * opts.lambda_B * opts.lambda_id + model.criterion_id(id_b, real_A) * opts.lambda_A * opts.lambda_id
    id_B_fixed = model.G.apply({"params": pB}, real_A, rngs={"dropout": jax.random.PRNGKey(1337)})
    full = jax.jit(model.train_generator_backward)((pA, pB, d_A_state.params, d_B_state.params), gen1, (real_A, real_B))
    full2 = jax.jit(model.train_generator_backward)((pA, pB, d_A_state.params, d_B_state.params), gen1, (real_A, real_B))
    gan_and_cycle = (
        model.criterion_gan(model.D.apply({"params": d_A_state.params}, gen1[0]), True)
        + model.criterion_gan(model.D.apply({"params": d_B_state.params}, gen1[2]), True)
        + model.criterion_cycle(gen1[1], real_A) * opts.lambda_A
        + model.criterion_cycle(gen1[3], real_B) * opts.lambda_B
    )
    assert np.allclose(full, full2)
    assert np.allclose(full, gan_and_cycle + loss_with(id_A_fixed, id_B_fixed), rtol=1e-5)
    assert not np.allclose(id_A_fixed, id_A_fresh)
    print("G_A/G_B identical init:", same_init)
    print("dropout masks identical across steps; id terms use PRNGKey(1337): OK")
