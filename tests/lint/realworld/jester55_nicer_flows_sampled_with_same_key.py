# source: https://github.com/nuclear-multimessenger-astronomy/jester/pull/55 (the
#   NICERLikelihood.__init__ hunk of jesterTOV/inference/likelihoods/nicer.py under review)
# observed on jax 0.10.2 CPU: `key` is split into key_amsterdam and key_maryland, which are
#   never used; both flows are sampled with `key` itself, so the two groups' pre-sampled
#   masses come from the same standard normals (the review: "both flows receive identical
#   PRNG state"). The Amsterdam draw, the first consumption of `key` after the split, is
#   tolerated as part of the same bug. The hunk's lines are kept; the rest of __init__ is that
#   of the file after the fix (logging and validation left out), and evaluate is left out.
#   Added stand-ins: LikelihoodBase (an empty base class), and Flow, a Gaussian in (mass,
#   radius) whose from_directory takes (loc, scale) instead of a directory, with
#   sample(key, shape); the `from jesterTOV.inference.flows.flow import Flow` line is dropped;
#   a __main__ block checks the draws.
# gap: other
import jax
import jax.numpy as jnp


class LikelihoodBase:  # stand-in for jesterTOV.inference.base.likelihood.LikelihoodBase
    def __init__(self):
        pass


class Flow:  # stand-in for jesterTOV.inference.flows.flow.Flow: a Gaussian in (M, R)
    def __init__(self, loc, scale):
        self.loc = jnp.asarray(loc)
        self.scale = jnp.asarray(scale)

    @classmethod
    def from_directory(cls, model_dir):
        return cls(*model_dir)

    def sample(self, key, sample_shape):
        return self.loc + self.scale * jax.random.normal(key, sample_shape + (2,))


class NICERLikelihood(LikelihoodBase):
    def __init__(
        self,
        psr_name: str,
        amsterdam_model_dir=None,
        maryland_model_dir=None,
        penalty_value: float = -99999.0,
        N_masses_evaluation: int = 20,
        N_masses_batch_size: int = 10,
        seed: int = 42,
    ) -> None:
        super().__init__()
        self.psr_name = psr_name
        self.penalty_value = penalty_value
        self.N_masses_evaluation = N_masses_evaluation
        self.N_masses_batch_size = N_masses_batch_size
        self.seed = seed

        self.amsterdam_flow = Flow.from_directory(amsterdam_model_dir)
        self.maryland_flow = Flow.from_directory(maryland_model_dir)

        # Pre-sample masses ONCE at initialization
        key = jax.random.key(seed)
        key_amsterdam, key_maryland = jax.random.split(key)
        amsterdam_samples = self.amsterdam_flow.sample(key, (N_masses_evaluation,))  # tolerate: JIT502
        maryland_samples = self.maryland_flow.sample(key, (N_masses_evaluation,))  # expect: JIT502
        # Extract only masses, discard radius values from flow
        self.amsterdam_fixed_mass_samples = amsterdam_samples[:, :1]  # Shape: [N, 1]
        self.maryland_fixed_mass_samples = maryland_samples[:, :1]  # Shape: [N, 1]


if __name__ == "__main__":
    likelihood = NICERLikelihood(
        "J0030",
        amsterdam_model_dir=([1.4, 12.5], [0.15, 0.8]),
        maryland_model_dir=([1.45, 13.0], [0.15, 0.9]),
    )
    z_amsterdam = (likelihood.amsterdam_fixed_mass_samples - 1.4) / 0.15
    z_maryland = (likelihood.maryland_fixed_mass_samples - 1.45) / 0.15
    # observed: line 61 draws the Maryland masses from the same normals as the Amsterdam ones
    assert jnp.allclose(z_amsterdam, z_maryland, atol=1e-5), (z_amsterdam, z_maryland)
