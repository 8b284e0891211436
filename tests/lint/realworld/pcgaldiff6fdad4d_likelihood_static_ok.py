# source: https://github.com/smsharma/point-cloud-galaxy-diffusion/blob/6fdad4d58a751556aa63a4d3b1691a25abb3ffc9/inference/likelihood.py
# observed on jax 0.10.2 CPU: runs clean; the later form of the jitted likelihood of inference/infer.py (see pcgaldiff82378ca_static_rng_trainstate.py): only the flax module vdm and the ints steps/n_samples are static, the key and the params are traced arguments, and there is no print; two calls with different parameters trace and compile once
# gap: static-hashability
# (kept: elbo and likelihood as committed; dropped: the sys.path.append)
# (VariationalDiffusionModel is a stand-in for models/diffusion.py with the same embed/encode/recon_loss/latent_loss/diffusion_loss methods; random point clouds replace the N-body data)
# (__main__ block added: a tiny model, two likelihood calls and a trace counter)
from functools import partial
import jax
import jax.numpy as np
import flax.linen as nn
def elbo(vdm, params, rng, x, conditioning, mask, steps=2, unroll_loop=False):
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


@partial(jax.jit, static_argnums=(0, 5, 6))
def likelihood(vdm, rng, restored_state_params, x_test, params, steps=6, n_samples=2):
    x_test = np.repeat(np.array([x_test]), n_samples, 0)
    theta_test = np.repeat(np.array([params]), n_samples, 0)
    return -elbo(
        vdm=vdm,
        params=restored_state_params,
        rng=rng,
        x=x_test,
        conditioning=theta_test,
        mask=np.ones_like(x_test[..., 0]),
        steps=steps,
    ).mean()


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


if __name__ == "__main__":
    n_traces = [0]
    _elbo = elbo

    def counting_elbo(*args, **kwargs):
        n_traces[0] += 1
        return _elbo(*args, **kwargs)

    elbo = counting_elbo

    vdm = VariationalDiffusionModel()
    rng = jax.random.PRNGKey(42)
    x_test = jax.random.normal(jax.random.PRNGKey(1), (5, 3))
    variables = vdm.init(
        {"sample": rng, "params": rng},
        np.ones((1, 5, 3)),
        np.ones((1, 2)),
        np.array([0.5]),
        method=vdm.init_all,
    )
    lls = []
    for theta in (np.array([0.3, 0.8]), np.array([0.2, 0.7])):
        rng, spl = jax.random.split(rng)
        lls.append(float(likelihood(vdm, spl, variables, x_test, theta)))
    print("log-likelihoods:", lls, "traces:", n_traces[0])
    assert all(np.isfinite(np.array(lls)))
    assert n_traces[0] == 1
