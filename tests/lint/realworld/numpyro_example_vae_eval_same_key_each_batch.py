# source: https://github.com/pyro-ppl/numpyro/blob/0b935d488056ae1775b4ab05cbe2812f51f21a4f/examples/vae.py
# observed on jax 0.10.2 CPU with numpyro 0.22.0: the example trains, but `eval_test` calls
#   `svi.evaluate(svi_state, batch)` for every test batch inside its `fori_loop` with the
#   same `svi_state`, and `evaluate` draws the ELBO's noise from `split(svi_state.rng_key)`:
#   every batch of an evaluation uses the same key (the FIXME above the line asks about it).
#   With `jax_debug_key_reuse` on, the jitted `eval_test` raises KeyReuseError "scan body
#   function leads to key reuse when repeatedly executed". The training loop's keys are all
#   split before use, and `epoch_train`/`eval_test` close over `num_train`/`num_test`, which
#   the epoch loop rebinds to the same values. Changes: matplotlib (not installed) is
#   replaced by a stand-in whose `imsave` does nothing; RESULTS_DIR is a temporary folder
#   rather than one beside the script; the __main__ block drops the numpyro version assert
#   and the argparse parser for a small namespace (small layers), and replaces the MNIST
#   download by random images of the same shape (patched into numpyro's dataset loader).
# gap: other
import argparse
import inspect
import os
import time

import tempfile
import types

plt = types.SimpleNamespace(imsave=lambda *args, **kwargs: None)  # stand-in for matplotlib

from jax import jit, lax, random
from jax.example_libraries import stax
import jax.numpy as jnp
from jax.random import key

import numpyro
from numpyro import optim
import numpyro.distributions as dist
from numpyro.examples.datasets import MNIST, load_dataset
from numpyro.infer import SVI, Trace_ELBO

RESULTS_DIR = os.path.join(tempfile.gettempdir(), "numpyro_vae_results")
os.makedirs(RESULTS_DIR, exist_ok=True)


def encoder(hidden_dim, z_dim):
    return stax.serial(
        stax.Dense(hidden_dim, W_init=stax.randn()),
        stax.Softplus,
        stax.FanOut(2),
        stax.parallel(
            stax.Dense(z_dim, W_init=stax.randn()),
            stax.serial(stax.Dense(z_dim, W_init=stax.randn()), stax.Exp),
        ),
    )


def decoder(hidden_dim, out_dim):
    return stax.serial(
        stax.Dense(hidden_dim, W_init=stax.randn()),
        stax.Softplus,
        stax.Dense(out_dim, W_init=stax.randn()),
        stax.Sigmoid,
    )


def model(batch, hidden_dim=400, z_dim=100):
    batch = jnp.reshape(batch, (batch.shape[0], -1))
    batch_dim, out_dim = jnp.shape(batch)
    decode = numpyro.module("decoder", decoder(hidden_dim, out_dim), (batch_dim, z_dim))
    with numpyro.plate("batch", batch_dim):
        z = numpyro.sample("z", dist.Normal(0, 1).expand([z_dim]).to_event(1))
        img_loc = decode(z)
        return numpyro.sample("obs", dist.Bernoulli(img_loc).to_event(1), obs=batch)


def guide(batch, hidden_dim=400, z_dim=100):
    batch = jnp.reshape(batch, (batch.shape[0], -1))
    batch_dim, out_dim = jnp.shape(batch)
    encode = numpyro.module("encoder", encoder(hidden_dim, z_dim), (batch_dim, out_dim))
    z_loc, z_std = encode(batch)
    with numpyro.plate("batch", batch_dim):
        return numpyro.sample("z", dist.Normal(z_loc, z_std).to_event(1))


@jit
def binarize(rng_key, batch):
    return random.bernoulli(rng_key, batch).astype(batch.dtype)


def main(args):
    encoder_nn = encoder(args.hidden_dim, args.z_dim)
    decoder_nn = decoder(args.hidden_dim, 28 * 28)
    adam = optim.Adam(args.learning_rate)
    svi = SVI(
        model, guide, adam, Trace_ELBO(), hidden_dim=args.hidden_dim, z_dim=args.z_dim
    )
    rng_key = key(0)
    train_init, train_fetch = load_dataset(
        MNIST, batch_size=args.batch_size, split="train"
    )
    test_init, test_fetch = load_dataset(
        MNIST, batch_size=args.batch_size, split="test"
    )
    num_train, train_idx = train_init()
    rng_key, rng_key_binarize, rng_key_init = random.split(rng_key, 3)
    sample_batch = binarize(rng_key_binarize, train_fetch(0, train_idx)[0])
    svi_state = svi.init(rng_key_init, sample_batch)

    @jit
    def epoch_train(svi_state, rng_key, train_idx):
        def body_fn(i, val):
            loss_sum, svi_state = val
            rng_key_binarize = random.fold_in(rng_key, i)
            batch = binarize(rng_key_binarize, train_fetch(i, train_idx)[0])
            svi_state, loss = svi.update(svi_state, batch)
            loss_sum += loss
            return loss_sum, svi_state

        return lax.fori_loop(0, num_train, body_fn, (0.0, svi_state))

    @jit
    def eval_test(svi_state, rng_key, test_idx):
        def body_fun(i, loss_sum):
            rng_key_binarize = random.fold_in(rng_key, i)
            batch = binarize(rng_key_binarize, test_fetch(i, test_idx)[0])
            # FIXME: does this lead to a requirement for an rng_key arg in svi_eval?
            loss = svi.evaluate(svi_state, batch) / len(batch)  # expect: JIT502
            loss_sum += loss
            return loss_sum

        loss = lax.fori_loop(0, num_test, body_fun, 0.0)
        loss = loss / num_test
        return loss

    def reconstruct_img(epoch, rng_key):
        img = test_fetch(0, test_idx)[0][0]
        plt.imsave(
            os.path.join(RESULTS_DIR, "original_epoch={}.png".format(epoch)),
            img,
            cmap="gray",
        )
        rng_key_binarize, rng_key_sample = random.split(rng_key)
        test_sample = binarize(rng_key_binarize, img)
        params = svi.get_params(svi_state)
        z_mean, z_var = encoder_nn[1](
            params["encoder$params"], test_sample.reshape([1, -1])
        )
        z = dist.Normal(z_mean, z_var).sample(rng_key_sample)
        img_loc = decoder_nn[1](params["decoder$params"], z).reshape([28, 28])
        plt.imsave(
            os.path.join(RESULTS_DIR, "recons_epoch={}.png".format(epoch)),
            img_loc,
            cmap="gray",
        )

    for i in range(args.num_epochs):
        rng_key, rng_key_train, rng_key_test, rng_key_reconstruct = random.split(
            rng_key, 4
        )
        t_start = time.time()
        num_train, train_idx = train_init()
        _, svi_state = epoch_train(svi_state, rng_key_train, train_idx)
        rng_key, rng_key_test, rng_key_reconstruct = random.split(rng_key, 3)
        num_test, test_idx = test_init()
        test_loss = eval_test(svi_state, rng_key_test, test_idx)
        reconstruct_img(i, rng_key_reconstruct)
        print(
            "Epoch {}: loss = {} ({:.2f} s.)".format(
                i, test_loss, time.time() - t_start
            )
        )


if __name__ == "__main__":
    import numpy as np
    import numpyro.examples.datasets as datasets

    rng = np.random.default_rng(0)
    fake = {
        "train": (rng.uniform(size=(256, 28, 28)).astype(np.float32), np.zeros(256, np.int8)),
        "test": (rng.uniform(size=(128, 28, 28)).astype(np.float32), np.zeros(128, np.int8)),
    }
    datasets._load = lambda dset, num_datapoints=None: fake
    args = argparse.Namespace(
        num_epochs=1, learning_rate=1.0e-3, batch_size=64, z_dim=10, hidden_dim=32
    )
    main(args)

    import traceback

    import jax

    jax.config.update("jax_debug_key_reuse", True)
    try:
        main(args)
        raise AssertionError("the reused key was not detected")
    except jax.errors.KeyReuseError as e:
        assert "scan body function leads to key reuse" in str(e), e
        frames = traceback.extract_tb(e.__cause__.__traceback__) if e.__cause__ else []
        lines = {f.lineno for f in frames if f.filename == __file__}
        # observed: line 122 draws from the same key for every test batch (JAX's
        # checker points at the fori_loop whose body holds it)
        assert 126 in lines, lines
