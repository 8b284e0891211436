# source: https://github.com/jacobjinkelly/easy-neural-ode/blob/159e600d9fc0cb42e75eb10cfa4dce21eac6b84e/latent_ode.py
# observed on jax 0.10.2 CPU: the jitted `sep_losses` reads the training loop's `batch` instead of its `_batch` argument, so the first trace bakes in that one training batch and every later "test" evaluation reuses it; forward() also draws the z0 noise from the module-level `rng`, so every step uses the same samples
# gap: flow-sensitive
# added: imports (jax.config, jax.example_libraries.optimizers; exponential_decay copied from lib/optimizers.py), small argument values instead of the command line,
#        stand-in for init_model (the haiku ODE-RNN encoder / odeint decoder are replaced by a mean-over-time encoder and linear latent dynamics; sample_z0 and the
#        returned tuple are the user's) and for init_physionet_data (random batches); regularisation helpers not needed with --reg none dropped; __main__ block
import argparse
import collections
import os
import pickle
from functools import partial

import jax
import jax.numpy as jnp
from jax.example_libraries import optimizers
from jax.flatten_util import ravel_pytree

jax.config.update("jax_enable_x64", True)

REGS = ["r2", "r3", "r4", "r5"]

parser = argparse.ArgumentParser('Latent ODE')
parser.add_argument('--batch_size', type=int, default=50)
parser.add_argument('--test_batch_size', type=int, default=100)
parser.add_argument('--nepochs', type=int, default=100)
parser.add_argument('--data_root', type=str, default="./")
parser.add_argument('--lr', type=float, default=1e-2)
parser.add_argument('--lam', type=float, default=0)
parser.add_argument('--lam_w', type=float, default=0)
parser.add_argument('--atol', type=float, default=1.4e-8)
parser.add_argument('--rtol', type=float, default=1.4e-8)
parser.add_argument('--init_step', type=float, default=1.)
parser.add_argument('--reg', type=str, choices=['none'] + REGS, default='none')
parser.add_argument('--test_freq', type=int, default=640)
parser.add_argument('--save_freq', type=int, default=640)
parser.add_argument('--dirname', type=str, default='tmp')
parser.add_argument('--seed', type=int, default=0)
parser.add_argument('--no_count_nfe', action="store_true")
_TMP = __import__("tempfile").TemporaryDirectory()
parse_args = parser.parse_args(["--batch_size", "4", "--nepochs", "1", "--test_freq", "2", "--save_freq", "2",
                                "--dirname", _TMP.name])


if not os.path.exists(parse_args.dirname):
    os.makedirs(parse_args.dirname)

# set up config

reg = parse_args.reg
lam = parse_args.lam
lam_rec = lam_gen = lam
lam_w = parse_args.lam_w
seed = parse_args.seed
rng = jax.random.PRNGKey(seed)
dirname = parse_args.dirname
count_nfe = not parse_args.no_count_nfe
ode_kwargs = {
    "atol": parse_args.atol,
    "rtol": parse_args.rtol
}


def exponential_decay(step_size, decay_steps, decay_rate, lowest=-jnp.inf):
    """
    Exponentially decay the learning rate until <lowest> is achieved.
    """
    def schedule(i):
        """
        Return the learning rate as a function of the training iteration.
        """
        return jnp.maximum(step_size * decay_rate ** (i / decay_steps), lowest)
    return schedule


def logsumexp(x, axis=-1):
    """
    Numerically stable logsumexp.
    """
    x_max = x.max(axis)
    return x_max + jnp.log(jnp.sum(jnp.exp(x - x_max), axis, keepdims=False))


DATA_DIM, GEN_DIM, NUM_T = 3, 2, 5


def init_model(ode_kwargs):
    """
    Stand-in for the ODE-RNN / latent ODE model of the original file.
    """
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(1), 3)
    gen_dim = GEN_DIM
    init_params = {
        "rec_to_gen": 0.3 * jax.random.normal(k1, (2 * DATA_DIM, 2 * GEN_DIM)),
        "gen_dynamics": 0.3 * jax.random.normal(k2, (GEN_DIM, GEN_DIM)),
        "gen_to_data": 0.3 * jax.random.normal(k3, (GEN_DIM, DATA_DIM)),
    }

    def forward(count_nfe_, params, data, data_timesteps, timesteps, mask, num_samples=3):
        """
        Forward pass of the model.
        y are the latent variables of the recognition model
        z are the latent variables of the generative model
        """

        data_mask = jnp.concatenate((data, mask), axis=-1)

        # encoder (stand-in for the ode-rnn encoder)
        final_y = jnp.mean(data_mask, axis=1)
        rec_r = jnp.zeros(data.shape[0])

        # translate
        z0 = final_y @ params["rec_to_gen"]
        mean_z0, std_z0 = z0[..., :gen_dim], z0[..., gen_dim:]
        std_z0 = jnp.abs(std_z0)

        def sample_z0(key):
            """
            Sample generative latent variable using reparameterization trick.
            """
            return mean_z0 + std_z0 * jax.random.normal(key, shape=mean_z0.shape)
        z0 = jax.vmap(sample_z0)(jax.random.split(rng, num=num_samples))  # expect: JIT502

        # generative dynamics (stand-in for odeint): linear in time
        z = z0[:, :, None, :] + timesteps[None, None, :, None] * (z0 @ params["gen_dynamics"])[:, :, None, :]
        gen_r = 0.

        # decode latent to data
        pred = z @ params["gen_to_data"]

        z0_params = {
            "mean": mean_z0,
            "std": std_z0
        }

        nfe = {
            "rec": jnp.mean(rec_r),
            "gen": 0.
        }

        return z, pred, rec_r, gen_r, z0_params, nfe

    model = {
        "forward": partial(forward, False),
        "params": init_params,
        "nfe": lambda *args: partial(forward, count_nfe)(*args)[-1]
    }

    return model


RECORDED_TRAIN_BATCHES = []


def init_physionet_data(rng, parse_args):
    """
    Stand-in for physionet_data.init_physionet_data: endless iterators of random batches.
    """
    import numpy as onp
    gen = onp.random.RandomState(0)
    tp = jnp.linspace(0., 1., NUM_T)

    def make(n, scale):
        return {"observed_data": jnp.asarray(scale * gen.randn(n, NUM_T, DATA_DIM)),
                "observed_tp": tp, "tp_to_predict": tp,
                "observed_mask": jnp.ones((n, NUM_T, DATA_DIM))}

    def train_iter():
        while True:
            b = make(parse_args.batch_size, 1.0)
            RECORDED_TRAIN_BATCHES.append(b)
            yield b

    def test_iter():
        while True:
            yield make(parse_args.batch_size, 10.0)   # test data on a much larger scale

    return train_iter(), test_iter(), {"num_batches": 4, "num_test_batches": 1}


def _likelihood(preds, data, mask):
    """
    Compute log-likelihood of data w/ mask under current predictions.
    """
    def sample_likelihood(data_, mu, std=0.01):
        """
        Log-Likelihood of one sample.
        """
        return -((data_ - mu) ** 2) / (2 * std ** 2) - jnp.log(std) - jnp.log(2 * jnp.pi) / 2
    return jnp.sum(sample_likelihood(data[None] * mask, preds * mask), axis=[1, 2, 3]) / jnp.sum(mask)


def _mse(preds, data, mask):
    """
    Return mean squared error w/ mask.
    """
    return jnp.mean(jnp.sum(jnp.square(data[None] * mask - preds * mask), axis=[1, 2, 3]) / jnp.sum(mask))


def _kl_div(params):
    """
    Analytically compute KL between z0 distribution and prior.
    """
    mean_prior = 0
    std_prior = 1
    var_ratio = (params["std"] / std_prior) ** 2
    t1 = ((params["mean"] - mean_prior) / std_prior) ** 2
    return jnp.mean(0.5 * (var_ratio + t1 - 1 - jnp.log(var_ratio)))


def _reg_loss_fn(reg):
    return jnp.mean(reg)


def _weight_fn(params):
    flat_params, _ = ravel_pytree(params)
    return 0.5 * jnp.sum(jnp.square(flat_params))


def loss_fn(forward, params, batch, kl_coef):
    """
    The loss function for training.
    """
    preds, rec_r, gen_r, z0_params, nfe = forward(params,
                                                  batch["observed_data"],
                                                  batch["observed_tp"],
                                                  batch["tp_to_predict"],
                                                  batch["observed_mask"])
    likelihood_ = _likelihood(preds, batch["observed_data"], batch["observed_mask"])
    kl_ = _kl_div(z0_params)
    rec_reg_ = _reg_loss_fn(rec_r)
    gen_reg_ = _reg_loss_fn(gen_r)
    return -logsumexp(likelihood_ - kl_coef * kl_, axis=0) + lam_rec * rec_reg_ + lam_gen * gen_reg_


def run():
    """
    Run the experiment.
    """

    ds_train, ds_test, meta = init_physionet_data(rng, parse_args)
    num_batches = meta["num_batches"]
    num_test_batches = meta["num_test_batches"]

    model = init_model(ode_kwargs)
    forward = lambda *args: model["forward"](*args)[1:]
    grad_fn = jax.grad(lambda *args: loss_fn(forward, *args))

    lr_schedule = exponential_decay(step_size=parse_args.lr,
                                    decay_steps=1,
                                    decay_rate=0.999,
                                    lowest=parse_args.lr / 10)
    opt_init, opt_update, get_params = optimizers.adamax(step_size=lr_schedule)
    opt_state = opt_init(model["params"])

    def get_kl_coef(epoch_):
        """
        Tuning schedule for KL coefficient. (annealing)
        """
        return max(0., 1 - 0.99 ** (epoch_ - 10))

    @jax.jit
    def update(_itr, _opt_state, _batch, kl_coef):
        """
        Update the params based on grad for current batch.
        """
        return opt_update(_itr, grad_fn(get_params(_opt_state), _batch, kl_coef), _opt_state)

    @jax.jit
    def sep_losses(_opt_state, _batch, kl_coef):
        """
        Convenience function for calculating losses separately.
        """
        params = get_params(_opt_state)
        preds, rec_r, gen_r, z0_params, nfe = forward(params,
                                                      batch["observed_data"],  # expect: JIT201
                                                      batch["observed_tp"],  # tolerate: JIT201
                                                      batch["tp_to_predict"],  # tolerate: JIT201
                                                      batch["observed_mask"])  # tolerate: JIT201
        likelihood_ = _likelihood(preds, batch["observed_data"], batch["observed_mask"])  # expect: JIT201
        mse_ = _mse(preds, batch["observed_data"], batch["observed_mask"])  # expect: JIT201
        kl_ = _kl_div(z0_params)
        return -logsumexp(likelihood_ - kl_coef * kl_, axis=0), likelihood_, kl_, mse_, rec_r, gen_r

    def evaluate_loss(opt_state, ds_test, kl_coef):
        """
        Convenience function for evaluating loss over train set in smaller batches.
        """
        loss, likelihood, kl, mse, rec_r, gen_r, rec_nfe, gen_nfe = [], [], [], [], [], [], [], []

        for test_batch_num in range(num_test_batches):
            test_batch = next(ds_test)

            batch_loss, batch_likelihood, batch_kl, batch_mse, batch_rec_r, batch_gen_r = \
                sep_losses(opt_state, test_batch, kl_coef)

            if count_nfe:
                nfes = model["nfe"](get_params(opt_state),
                                    test_batch["observed_data"],
                                    test_batch["observed_tp"],
                                    test_batch["tp_to_predict"],
                                    test_batch["observed_mask"])
                rec_nfe.append(nfes["rec"])
                gen_nfe.append(nfes["gen"])
            else:
                rec_nfe.append(0)
                gen_nfe.append(0)

            loss.append(batch_loss)
            likelihood.append(batch_likelihood)
            kl.append(batch_kl)
            mse.append(batch_mse)
            rec_r.append(batch_rec_r)
            gen_r.append(batch_gen_r)

        loss = jnp.array(loss)
        likelihood = jnp.array(likelihood)
        kl = jnp.array(kl)
        mse = jnp.array(mse)
        rec_r = jnp.array(rec_r)
        gen_r = jnp.array(gen_r)
        rec_nfe = jnp.array(rec_nfe)
        gen_nfe = jnp.array(gen_nfe)

        return jnp.mean(loss), jnp.mean(likelihood), jnp.mean(kl), jnp.mean(mse), jnp.mean(rec_r), jnp.mean(gen_r), \
               jnp.mean(rec_nfe), jnp.mean(gen_nfe)

    itr = 0
    info = collections.defaultdict(dict)
    for epoch in range(parse_args.nepochs):
        for i in range(num_batches):
            batch = next(ds_train)

            itr += 1

            opt_state = update(itr, opt_state, batch, get_kl_coef(epoch))

            if itr % parse_args.test_freq == 0:
                loss_, likelihood_, kl_, mse_, rec_r_, gen_r_, rec_nfe_, gen_nfe_ = \
                    evaluate_loss(opt_state, ds_test, get_kl_coef(epoch))

                print_str = 'Iter {:04d} | Loss {:.6f} | ' \
                            'Likelihood {:.6f} | KL {:.6f} | MSE {:.6f} | Enc. r {:.6f} | Dec. r {:.6f} | ' \
                            'Enc. NFE {:.6f} | Dec. NFE {:.6f}'.\
                    format(itr, loss_, likelihood_, kl_, mse_, rec_r_, gen_r_, rec_nfe_, gen_nfe_)

                print(print_str)

                outfile = open("%s/reg_%s_lam_%.12e_info.txt" % (dirname, reg, lam), "a")
                outfile.write(print_str + "\n")
                outfile.close()

                info[itr]["loss"] = loss_
                info[itr]["likelihood"] = likelihood_
                info[itr]["kl"] = kl_
                info[itr]["mse"] = mse_
                info[itr]["rec_r"] = rec_r_
                info[itr]["gen_r"] = gen_r_
                info[itr]["rec_nfe"] = rec_nfe_
                info[itr]["gen_nfe"] = gen_nfe_

            if itr % parse_args.save_freq == 0:
                param_filename = "%s/reg_%s_lam_%.12e_%d_fargs.pickle" % (dirname, reg, lam, itr)
                fargs = get_params(opt_state)
                outfile = open(param_filename, "wb")
                pickle.dump(fargs, outfile)
                outfile.close()

            outfile = open("%s/reg_%s_lam_%.12e_iter.txt" % (dirname, reg, lam), "a")
            outfile.write("Iter: {:04d}\n".format(itr))
            outfile.close()
    meta = {
        "info": info,
        "args": parse_args
    }
    outfile = open("%s/reg_%s_lam_%.12e_meta.pickle" % (dirname, reg, lam), "wb")
    pickle.dump(meta, outfile)
    outfile.close()


if __name__ == "__main__":
    import numpy as onp

    run()

    with open("%s/reg_%s_lam_%.12e_meta.pickle" % (dirname, reg, lam), "rb") as fh:
        info = pickle.load(fh)["info"]

    def params_at(itr):
        with open("%s/reg_%s_lam_%.12e_%d_fargs.pickle" % (dirname, reg, lam, itr), "rb") as fh:
            return pickle.load(fh)

    model = init_model(ode_kwargs)
    fwd = lambda *args: model["forward"](*args)[1:]

    def eager_mse(params, b):
        preds = fwd(params, b["observed_data"], b["observed_tp"], b["tp_to_predict"], b["observed_mask"])[0]
        return float(_mse(preds, b["observed_data"], b["observed_mask"]))

    first_eval_batch = RECORDED_TRAIN_BATCHES[1]    # the training batch of iteration 2 (first evaluation)
    current_batch = RECORDED_TRAIN_BATCHES[3]       # the training batch of iteration 4 (second evaluation)
    test_like = init_physionet_data(rng, parse_args)[1].__next__()
    p4 = params_at(4)
    reported = float(info[4]["mse"])
    # observed: line 275, line 279, line 280 the "test" MSE reported at iteration 4 is the MSE on iteration 2's training batch, baked into the first trace (not the test batch passed in, not the current `batch`)
    assert onp.isclose(reported, eager_mse(p4, first_eval_batch), rtol=1e-6), (reported, eager_mse(p4, first_eval_batch))
    assert not onp.isclose(reported, eager_mse(p4, current_batch), rtol=1e-3)
    assert not onp.isclose(reported, eager_mse(p4, test_like), rtol=1e-3)

    # observed: line 121 every call draws the same z0 noise from the module-level key (two forward passes with the same inputs are identical)
    b = RECORDED_TRAIN_BATCHES[0]
    z_a = model["forward"](p4, b["observed_data"], b["observed_tp"], b["tp_to_predict"], b["observed_mask"])[0]
    z_b = model["forward"](p4, b["observed_data"], b["observed_tp"], b["tp_to_predict"], b["observed_mask"])[0]
    assert onp.array_equal(onp.asarray(z_a), onp.asarray(z_b))
    print("reported", reported, "first-eval batch", eager_mse(p4, first_eval_batch), "current batch", eager_mse(p4, current_batch), "test", eager_mse(p4, test_like))
    _TMP.cleanup()
