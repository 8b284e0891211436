# source: https://github.com/rnagumo/numpyro_example/blob/04820753586658e621c6537ee63a29274f8f427e/myapp/deep/vae.py (a learner's copy of numpyro's VAE example, added in 314f1f4 "Add deep directory"; numpyro's own example later passes `train_idx`/`test_idx` to the jitted functions as arguments)
# observed on jax 0.10.2 CPU with numpyro 0.22.0: `epoch_train` and `eval_test` are jitted closures that read `train_idx` and `test_idx`, which the epoch loop rebinds to a fresh permutation every epoch (`train_init()`/`test_init()` shuffle with np.random.permutation); the permutations are baked into the programs at the first trace, so every epoch trains and tests on the batches of epoch 1 (the loader's fetch is traced with the first permutation only, later ones never reach it, one compiled program each); and `eval_test` calls `svi.evaluate(svi_state, batch)` for every test batch with the same `svi_state`, whose key it splits the same way each time: with `jax_debug_key_reuse` on, the jitted `eval_test` raises KeyReuseError "scan body function leads to key reuse when repeatedly executed"; JAX's checker (run with typed keys) names line 114, the `fori_loop` of `eval_test` that holds the reuse, which is tolerated
# gap: stale-state-attributes
# (changed: `from jax.experimental import stax` -> `from jax.example_libraries import stax` (moved); matplotlib (not installed) replaced by a stand-in whose imsave does nothing; added: a __main__ harness that replaces the MNIST download by random images (patched into numpyro's dataset loader), runs main with small layers for two epochs, records the permutations the loader hands out and the ones its fetch is traced with, and reruns main with JAX's key-reuse checker; the harness also turns off numpyro 0.22's model/guide shape check, which the author's unbatched `z` in `model` fails and the numpyro of 2021 did not have; the argparse block of the original __main__ dropped)
import argparse
from typing import Callable, Tuple

import jax.numpy as jnp
import types

plt = types.SimpleNamespace(imsave=lambda *args, **kwargs: None)  # stand-in for matplotlib
import numpy as np
import numpyro
import numpyro.distributions as dist
from jax import jit, lax, random
from jax.example_libraries import stax
from numpyro import infer, optim
from numpyro.examples.datasets import MNIST, load_dataset
from numpyro.infer.svi import SVIState


def encoder(hidden_dim: int, z_dim: int) -> Tuple[Callable, Callable]:
    return stax.serial(
        stax.Dense(hidden_dim, W_init=stax.randn()),
        stax.Softplus,
        stax.FanOut(2),
        stax.parallel(
            stax.Dense(z_dim, W_init=stax.randn()),
            stax.serial(
                stax.Dense(z_dim, W_init=stax.randn()),
                stax.Exp,
            ),
        ),
    )


def decoder(hidden_dim: int, out_dim: int) -> Tuple[Callable, Callable]:
    return stax.serial(
        stax.Dense(hidden_dim, W_init=stax.randn()),
        stax.Softplus,
        stax.Dense(out_dim, W_init=stax.randn()),
        stax.Sigmoid,
    )


def model(batch: np.ndarray, hidden_dim: int = 400, z_dim: int = 100) -> None:

    batch = jnp.reshape(batch, (batch.shape[0], -1))
    batch_dim, out_dim = jnp.shape(batch)
    decode = numpyro.module("decoder", decoder(hidden_dim, out_dim), (batch_dim, z_dim))
    z = numpyro.sample("z", dist.Normal(jnp.zeros((z_dim,)), jnp.ones((z_dim,))))
    img_loc = decode(z)
    numpyro.sample("obs", dist.Bernoulli(img_loc), obs=batch)


def guide(batch: np.ndarray, hidden_dim: int = 400, z_dim: int = 100) -> None:

    batch = jnp.reshape(batch, (batch.shape[0], -1))
    batch_dim, out_dim = jnp.shape(batch)
    encode = numpyro.module("encoder", encoder(hidden_dim, z_dim), (batch_dim, out_dim))
    z_loc, z_std = encode(batch)
    numpyro.sample("z", dist.Normal(z_loc, z_std))


@jit
def binarize(rng_key: np.ndarray, batch: np.ndarray) -> jnp.ndarray:
    return random.bernoulli(rng_key, batch).astype(batch.dtype)


def main(args: argparse.Namespace) -> None:

    # Data
    train_init, train_fetch = load_dataset(MNIST, batch_size=args.batch_size, split="train")
    test_init, test_fetch = load_dataset(MNIST, batch_size=args.batch_size, split="test")
    num_train, train_idx = train_init()

    # Model
    encoder_nn = encoder(args.hidden_dim, args.z_dim)
    decoder_nn = decoder(args.hidden_dim, 28 * 28)
    adam = optim.Adam(args.learning_rate)
    svi = infer.SVI(
        model, guide, adam, infer.Trace_ELBO(), hidden_dim=args.hidden_dim, z_dim=args.z_dim
    )

    # Init
    rng_key = random.PRNGKey(0)
    rng_key, rng_key_binarize, rng_key_init = random.split(rng_key, 3)
    sample_batch = binarize(rng_key_binarize, train_fetch(0, train_idx)[0])
    svi_state = svi.init(rng_key_init, sample_batch)

    @jit
    def epoch_train(svi_state: SVIState, rng_key: np.ndarray) -> Tuple[jnp.ndarray, SVIState]:
        def body_fun(
            i: jnp.ndarray, val: Tuple[jnp.ndarray, SVIState]
        ) -> Tuple[jnp.ndarray, SVIState]:
            loss_sum, svi_state = val
            rng_key_binarize = random.fold_in(rng_key, i)
            batch = binarize(rng_key_binarize, train_fetch(i, train_idx)[0])  # expect: JIT201
            svi_state, loss = svi.update(svi_state, batch)
            loss_sum += loss
            return loss_sum, svi_state

        return lax.fori_loop(0, num_train, body_fun, (0.0, svi_state))

    @jit
    def eval_test(svi_state: SVIState, rng_key: np.ndarray) -> jnp.ndarray:
        def body_fun(i: jnp.ndarray, loss_sum: jnp.ndarray) -> jnp.ndarray:
            rng_key_binarize = random.fold_in(rng_key, i)
            batch = binarize(rng_key_binarize, test_fetch(i, test_idx)[0])  # expect: JIT201
            loss = svi.evaluate(svi_state, batch) / len(batch)  # expect: JIT502
            loss_sum += loss
            return loss_sum

        loss = lax.fori_loop(0, num_test, body_fun, 0.0)  # tolerate: JIT502
        loss = loss / num_test
        return loss

    def reconstruct_image(epoch: int, rng_key: np.ndarray) -> None:

        rng_key_binarize, rng_key_sample = random.split(rng_key)
        img = test_fetch(0, test_idx)[0][0]
        test_sample = binarize(rng_key_binarize, img)
        params = svi.get_params(svi_state)
        z_mean, z_var = encoder_nn[1](params["encoder$params"], test_sample.reshape([1, -1]))
        z = dist.Normal(z_mean, z_var).sample(rng_key_sample)
        img_loc = decoder_nn[1](params["decoder$params"], z).reshape([28, 28])

        plt.imsave(f"./data/original_{epoch}.png", img, cmap="gray")
        plt.imsave(f"./data/reconst_{epoch}.png", img_loc, cmap="gray")

    # Training
    for epoch in range(1, args.num_epochs + 1):
        rng_key, rng_key_train, rng_key_test, rng_key_reconstruct = random.split(rng_key, 4)

        num_train, train_idx = train_init()
        _, svi_state = epoch_train(svi_state, rng_key_train)

        num_test, test_idx = test_init()
        test_loss = eval_test(svi_state, rng_key_test)
        print(epoch, test_loss)

        if epoch % 5 == 0:
            reconstruct_image(epoch, rng_key_reconstruct)


if __name__ == "__main__":
    import traceback

    import jax
    import numpyro.examples.datasets as datasets

    rng = np.random.default_rng(0)
    fake = {
        "train": (rng.uniform(size=(256, 28, 28)).astype(np.float32), np.zeros(256, np.int8)),
        "test": (rng.uniform(size=(128, 28, 28)).astype(np.float32), np.zeros(128, np.int8)),
    }
    datasets._load = lambda dset, num_datapoints=None: fake
    # numpyro 0.22 rejects the model's unbatched z (10,) against the guide's (64, 10); the
    # numpyro of 2021 this was written for did not check, and broadcast it
    import numpyro.infer.elbo
    numpyro.infer.elbo.check_model_guide_match = lambda model_trace, guide_trace: None

    handed_out, traced_with = {"train": [], "test": []}, {"train": [], "test": []}
    real_load_dataset = load_dataset

    def load_dataset(dset, batch_size=None, split="train"):  # records what init returns and what fetch is traced with
        init, fetch = real_load_dataset(dset, batch_size=batch_size, split=split)

        def recording_init():
            num, idx = init()
            handed_out[split].append(idx)
            return num, idx

        def recording_fetch(i, idxs):
            if isinstance(i, jax.core.Tracer):
                traced_with[split].append(np.asarray(idxs))
            return fetch(i, idxs)
        return recording_init, recording_fetch

    np.random.seed(0)
    args = argparse.Namespace(num_epochs=2, learning_rate=1.0e-3, batch_size=64, z_dim=10, hidden_dim=32)
    main(args)
    # observed: line 98 epoch_train is traced once, with the permutation of epoch 1; epoch 2's never reaches the program
    # observed: line 109 eval_test likewise keeps the test permutation of epoch 1
    for split in ("train", "test"):
        first, second = handed_out[split][-2], handed_out[split][-1]
        assert not (first == second).all()  # train_init/test_init reshuffle every epoch
        assert len(traced_with[split]) == 1 and (traced_with[split][0] == first).all(), split

    # observed: line 110 every test batch draws the ELBO noise from the same key
    jax.config.update("jax_debug_key_reuse", True)
    random.PRNGKey = random.key  # the checker follows typed keys
    try:
        main(args)
        raise AssertionError("the reused key was not detected")
    except jax.errors.KeyReuseError as e:
        assert "scan body function leads to key reuse" in str(e), e
    print("OK: stale train/test permutations, one key for every test batch")
