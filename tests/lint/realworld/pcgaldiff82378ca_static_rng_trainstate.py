# source: https://github.com/smsharma/point-cloud-galaxy-diffusion/blob/82378cac571b9a8fa5e5d85776b267cdb8488ca5/inference/infer.py
# observed on jax 0.10.2 CPU: see the observed lines; fixed in the next commit 9f973109ce8d4bc43a75a19ba5a67c60c8910b09 ("try fix"), which comments out the jit decorator and drops the print
# gap: static-hashability
# observed: line 81 under the jit the print runs once, at trace time: two calls of the traced likelihood print "got to elbo" once
# observed: line 102 svi.run raises ValueError "Non-hashable static arguments are not supported" at this call: rng (a key array) and restored_state (a TrainState holding the params) are static arguments 1 and 2 of likelihood
# (kept: elbo, likelihood, get_model and the SVI part of __main__; dropped: prior_cube and log_prior (never called), load_data_for_inference and the checkpoint loading)
# (load_diffusion_model is a stand-in: a tiny VariationalDiffusionModel stand-in with the same embed/encode/recon_loss/latent_loss/diffusion_loss methods, a fresh TrainState instead of the restored SLURM checkpoint, and random point clouds instead of the N-body data)
# (__main__ block: n_steps=2 instead of 1000, the error is caught and its line checked; the print check jits likelihood again with only vdm static)
from functools import partial
import jax
import jax.numpy as np
import flax.linen as nn
from flax.training import train_state
import numpy as vnp
import optax
import numpyro
import numpyro.distributions as dist
from numpyro import optim
from numpyro.infer import SVI, Trace_ELBO, autoguide


def elbo(vdm, params, rng, x, conditioning, mask, steps=10, unroll_loop=True):
    rng, spl = jax.random.split(rng)
    cond = vdm.apply(params, conditioning, method=vdm.embed)
    f = vdm.apply(params, x, conditioning, method=vdm.encode)
    loss_recon = vdm.apply(
        params, x, f, conditioning, rngs={"sample": rng}, method=vdm.recon_loss
    )
    loss_klz = vdm.apply(params, f, method=vdm.latent_loss)
    if not unroll_loop:

        def body_fun(i, val):
            loss, rng = val
            rng, spl = jax.random.split(rng)
            new_loss = vdm.apply(
                params,
                np.array([i / steps]),
                f,
                cond,
                mask,
                rngs={"sample": spl},
                method=vdm.diffusion_loss,
            )
            return (loss + (new_loss * mask[..., None]).sum((-1, -2)) / steps, rng)

        loss_diff, rng = jax.lax.fori_loop(
            0, steps, body_fun, (np.zeros(x.shape[0]), rng)
        )
    else:
        loss_diff, rng = (np.zeros(x.shape[0]), rng)
        for i in range(steps):
            rng, spl = jax.random.split(rng)
            new_loss = vdm.apply(
                params,
                np.array([i / steps]),
                f,
                cond,
                mask,
                rngs={"sample": spl},
                method=vdm.diffusion_loss,
            )
            loss_diff = loss_diff + (new_loss * mask[..., None]).sum((-1, -2)) / steps
    return (
        (loss_recon * mask[..., None]).sum((-1, -2))
        + (loss_klz * mask[..., None]).sum((-1, -2))
        + loss_diff
    )


@partial(
    jax.jit,
    static_argnums=(
        0,
        1,
        2,
    ),
)
def likelihood(vdm, rng, restored_state, x_test, params, n_samples=2):
    x_test = np.repeat(np.array([x_test]), n_samples, 0)  # tolerate: JIT404
    theta_test = np.repeat(np.array([params]), n_samples, 0)  # tolerate: JIT404
    print("got to elbo")  # expect: JIT203
    return -elbo(
        vdm,
        restored_state.params,
        rng,
        x_test,
        theta_test,
        np.ones_like(x_test[..., 0]),
    ).mean()


def get_model(
    vdm,
    restored_state,
    rng,
):
    def model(x_test, n_samples=2):
        # Omega_m and sigma_8 prior distributions
        params = numpyro.sample(
            "params", dist.Uniform(np.array([0.1, 0.6]), np.array([0.5, 1.0]))
        )
        log_like = likelihood(  # expect: JIT302
            vdm=vdm,
            rng=rng,
            restored_state=restored_state,
            x_test=x_test,
            params=params,
            n_samples=n_samples,
        )
        return numpyro.factor("log_like", log_like)

    return model


class VariationalDiffusionModel(nn.Module):
    """Stand-in for models/diffusion.py: same methods, one Dense layer each."""

    d_feature: int = 3
    d_hidden: int = 8

    def setup(self):
        self.embedding_context = nn.Dense(self.d_hidden)
        self.encoder = nn.Dense(self.d_hidden)
        self.decoder = nn.Dense(self.d_feature)
        self.score_model = nn.Dense(self.d_hidden)

    def embed(self, conditioning):
        return self.embedding_context(conditioning)

    def encode(self, x, conditioning=None, mask=None):
        return self.encoder(x)

    def recon_loss(self, x, f, cond):
        eps_0 = jax.random.normal(self.make_rng("sample"), shape=f.shape)
        return np.square(self.decoder(f + 1e-3 * eps_0) - x)

    def latent_loss(self, f):
        return 0.5 * np.square(f)

    def diffusion_loss(self, t, f, cond, mask):
        eps = jax.random.normal(self.make_rng("sample"), shape=f.shape)
        z_t = np.sqrt(1.0 - t) * f + np.sqrt(t) * eps
        eps_hat = self.score_model(z_t + cond[:, None, :])
        return np.square(eps - eps_hat)


    def init_all(self, x, conditioning, t):
        cond = self.embed(conditioning)
        f = self.encode(x)
        return self.recon_loss(x, f, cond), self.diffusion_loss(t, f, cond, None)


def load_diffusion_model(n_particles=5):
    vdm = VariationalDiffusionModel()
    rng = jax.random.PRNGKey(42)
    params = vdm.init(
        {"sample": rng, "params": rng},
        np.ones((1, n_particles, 3)),
        np.ones((1, 2)),
        np.array([0.5]),
        method=vdm.init_all,
    )
    tx = optax.adamw(learning_rate=1e-3)
    state = train_state.TrainState.create(apply_fn=vdm.apply, params=params, tx=tx)
    return vdm, state, rng


if __name__ == "__main__":
    import contextlib
    import io
    import traceback

    n_steps = 2
    lr = 1e-2

    x_test = jax.random.normal(jax.random.PRNGKey(1), (5, 3))
    vdm, restored_state, rng = load_diffusion_model()
    model = get_model(
        vdm=vdm,
        restored_state=restored_state,
        rng=rng,
    )
    guide = autoguide.AutoMultivariateNormal(model)
    optimizer = optim.optax_to_numpyro(optax.sgd(lr))
    svi = SVI(
        model,
        guide,
        optimizer,
        Trace_ELBO(num_particles=1),
    )
    try:
        svi_results = svi.run(rng, n_steps, x_test, progress_bar=False)
        raise SystemExit("expected a ValueError")
    except ValueError as e:
        assert "Non-hashable static arguments" in str(e), e
        lines = [fr.lineno for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        src = open(__file__).read().splitlines()[lines[-1] - 1]
        print("ValueError at line", lines[-1], ":", str(e).splitlines()[0][:100])
        assert "log_like = likelihood(" in src, src

    # the same function body under jit with only the (hashable) module static:
    # "got to elbo" is printed once, at trace time, not on every call
    lik = jax.jit(likelihood.__wrapped__, static_argnums=(0,))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for theta in (np.array([0.3, 0.8]), np.array([0.2, 0.7])):
            lik(vdm, rng, restored_state, x_test, theta)
    print("printed during two calls:", buf.getvalue().count("got to elbo"))
    assert buf.getvalue().count("got to elbo") == 1
