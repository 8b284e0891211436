# source: https://github.com/kelechi-c/microdit_jax/blob/35d40e72a1b40d34c56adcaa9033f2b2df222b96/microdit_jax/rf_sampler.py
#   (with train_step of microdit_jax/class_trainer.py at 937750e9af0ec188a0854bc6bcb3ab3799439acf, which imports RectFlowWrapper from this file)
# observed on jax 0.10.2 CPU: RectFlowWrapper.__call__ draws the rectified-flow time and the noise from the module-level
#   key `randkey`, which is never split or advanced: under the nnx.jit train_step every training step gets the same
#   times rand_t and the same noise z_noise, whatever the batch, and the noise comes from the key the time already used
# gap: other
# observed: line 41 three train_step calls on different batches: the time rand_t the model receives is identical in every step
# observed: line 49 the noise z_noise recovered from z_noise_t is identical in every step, and with jax_debug_key_reuse the jitted step raises KeyReuseError at this line: randkey was already consumed by the time draw
# (kept: randkey and RectFlowWrapper.__call__ as written; the commented-out sample method dropped; train_step copied from
#  class_trainer.py. Added: a stand-in MicroDiT (one nnx.Linear plus the time) that records what it receives through
#  jax.debug.callback, a stand-in random_mask for data_utils.random_mask, a config stand-in, the __main__ block.
#  Renamed: nnx.Optimizer(model, tx) / optimizer.update(grads) to the current nnx.Optimizer(model, tx, wrt=nnx.Param) /
#  optimizer.update(model, grads).)
# (the print of shapes in __call__ runs once, at trace time, which is what a shape print needs: tolerated)
# (the else branch's draw from the same key is the same bug, unreachable with sigln=True, the default: tolerated)
import jax, math
from jax import (
    Array,
    numpy as jnp,
    random as jrand
)
from flax import nnx
import optax
from typing import List

randkey = jrand.key(3)


# rectifed flow forward pass, loss, and sampling
class RectFlowWrapper(nnx.Module):
    def __init__(self, model: nnx.Module, sigln: bool = True):
        self.model = model
        self.sigln = sigln

    def __call__(self, x_input: Array, cond: Array, mask) -> Array:

        b_size = x_input.shape[0]  # batch_sie
        rand_t = None

        if self.sigln:
            rand = jrand.normal(randkey, (b_size,))  # .to_device(x_input.device)  # expect: JIT502
            rand_t = nnx.sigmoid(rand)
        else:
            rand_t = jrand.normal(randkey, (b_size,))  # .to_device(x_input.device)  # tolerate: JIT502

        inshape = [1] * len(x_input.shape[1:])
        texp = rand_t.reshape([b_size, *(inshape)])

        z_noise = jrand.normal(  # expect: JIT502
            randkey, x_input.shape
        )  # input noise with same dim as image
        z_noise_t = (1 - texp) * x_input + texp * z_noise
        # print(z_noise_t)
        v_thetha = self.model(z_noise_t, rand_t, cond, mask)

        mean_dim = list(
            range(1, len(x_input.shape))
        )  # across all dimensions except the batch dim
        print(  # tolerate: JIT203
            f"z_noise {z_noise.shape}, vtheta {v_thetha.shape}, x_input {x_input.shape}"
        )

        mean_square = (z_noise - x_input - v_thetha) ** 2  # squared difference
        batchwise_mse_loss = jnp.mean(mean_square, axis=mean_dim)  # mean loss

        return jnp.mean(batchwise_mse_loss)


class config:  # stand-in for data_utils.config
    vaescale_factor = 0.13025
    patch_size = (2, 2)
    mask_ratio = 0.0


received = []


class MicroDiT(nnx.Module):  # stand-in: records the noised input and the time it is given
    def __init__(self, channels, rngs):
        self.proj = nnx.Linear(channels, channels, rngs=rngs)

    def __call__(self, x, t, cond, mask):
        jax.debug.callback(lambda xv, tv: received.append((xv, tv)), x, t)
        return self.proj(x) * t[:, None, None, None]


def random_mask(bs, height, width, patch_size, mask_ratio):  # stand-in for data_utils.random_mask
    return jnp.ones((bs, (height // patch_size[0]) * (width // patch_size[1])))


@nnx.jit
def train_step(model, optimizer, batch):
    def loss_func(model, batch):
      img_latents, label = batch
      bs, height, width, channels = img_latents.shape

      img_latents = img_latents * config.vaescale_factor
      mask = random_mask(bs, height, width, patch_size=config.patch_size, mask_ratio=config.mask_ratio)
      loss = model(img_latents, label, mask)
      # loss = optax.squared_error(img_latents, logits).mean()
      return loss

    gradfn = nnx.value_and_grad(loss_func)
    loss, grads = gradfn(model, batch)
    optimizer.update(model, grads)
    return loss


if __name__ == "__main__":
    import numpy as np

    rf_engine = RectFlowWrapper(MicroDiT(3, rngs=nnx.Rngs(0)))
    optimizer = nnx.Optimizer(rf_engine, optax.adamw(learning_rate=1e-3), wrt=nnx.Param)
    data_key = jax.random.key(100)
    times, noises = [], []
    for step in range(3):
        data_key, sub = jax.random.split(data_key)
        imgs = jax.random.normal(sub, (4, 8, 8, 3))
        labels = jnp.arange(4) + step
        received.clear()
        loss = train_step(rf_engine, optimizer, (imgs, labels))
        jax.block_until_ready(loss)
        x_t, t = (np.asarray(a) for a in received[0])
        x = np.asarray(imgs) * config.vaescale_factor
        texp = t.reshape(4, 1, 1, 1)
        times.append(t)
        noises.append((x_t - (1 - texp) * x) / texp)
    print("rand_t per step:", [t.round(4).tolist() for t in times])
    assert all(np.array_equal(times[0], t) for t in times[1:])  # line 41: same times every step
    assert all(np.allclose(noises[0], z, atol=1e-4) for z in noises[1:])  # line 49: same noise every step
    assert not np.allclose(noises[0][0], noises[0][1])  # (the noise itself is not degenerate)

    jax.config.update("jax_debug_key_reuse", True)
    import traceback
    try:
        train_step(rf_engine, optimizer, (imgs, labels))
    except jax.errors.KeyReuseError as err:
        tb = err.__cause__.__traceback__ if err.__cause__ is not None else err.__traceback__
        lines = [f.lineno for f in traceback.extract_tb(tb) if f.filename == __file__]
        print("KeyReuseError, innermost line in this file:", lines[-1], "-", str(err).splitlines()[0])
        assert lines[-1] == 49, lines
    else:
        raise SystemExit("expected a KeyReuseError")
