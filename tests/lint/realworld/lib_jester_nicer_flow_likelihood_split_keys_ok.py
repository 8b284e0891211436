# source: https://github.com/nuclear-multimessenger-astronomy/jester/blob/1d37bb7223e3b504e04d61bbabfbe60b27ff3a8b/jesterTOV/inference/likelihoods/nicer.py
#   (NICERLikelihood after https://github.com/nuclear-multimessenger-astronomy/jester/pull/55,
#   whose review asked for the split keys to be used, as they are here)
# observed on jax 0.10.2 CPU: runs clean; the Amsterdam and Maryland flows draw their masses
#   from key_amsterdam and key_maryland, and `jax.jit(likelihood.evaluate)` traces the
#   two-segment evaluation (masks by jnp.where, argsort, lax.map over the pre-sampled masses,
#   closures over self) once and returns a finite value. Only the NICERLikelihood class is
#   kept (docstrings shortened, the legacy KDE class and _get_preset_model_path left out).
#   Added stand-ins: LikelihoodBase (an empty base class), get_logger (logging.getLogger),
#   utils.get_MR_split_index (index after the largest radius jump), and Flow, a Gaussian in
#   (mass, radius) whose from_directory takes (loc, scale) instead of a directory, with
#   sample(key, shape) and log_prob(x); the `from jesterTOV.inference.flows.flow import Flow`
#   line in __init__ is dropped; a __main__ block builds the likelihood and calls it jitted.
# gap: exemption-vs-JAX
import logging

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float
from jax.scipy.special import logsumexp


class LikelihoodBase:  # stand-in for jesterTOV.inference.base.likelihood.LikelihoodBase
    def __init__(self):
        pass


def get_logger(name):  # stand-in for jesterTOV.logging_config.get_logger
    return logging.getLogger(name)


class utils:  # stand-in for jesterTOV.utils
    @staticmethod
    def get_MR_split_index(masses, radii):
        return jnp.argmax(jnp.abs(jnp.diff(radii))) + 1


class Flow:  # stand-in for jesterTOV.inference.flows.flow.Flow: a Gaussian in (M, R)
    def __init__(self, loc, scale):
        self.loc = jnp.asarray(loc)
        self.scale = jnp.asarray(scale)

    @classmethod
    def from_directory(cls, model_dir):
        return cls(*model_dir)

    def sample(self, key, sample_shape):
        return self.loc + self.scale * jax.random.normal(key, sample_shape + (2,))

    def log_prob(self, x):
        z = (x - self.loc) / self.scale
        return jnp.sum(-0.5 * z**2 - jnp.log(self.scale) - 0.5 * jnp.log(2 * jnp.pi), axis=-1)[0]


logger = get_logger("jester")


class NICERLikelihood(LikelihoodBase):
    """
    NICER likelihood using normalizing flows (NEW DEFAULT).
    """

    psr_name: str
    penalty_value: float
    N_masses_evaluation: int
    N_masses_batch_size: int
    seed: int

    def __init__(
        self,
        psr_name: str,
        amsterdam_model_dir: str | None = None,
        maryland_model_dir: str | None = None,
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

        # Validate that both model directories are provided
        if amsterdam_model_dir is None or maryland_model_dir is None:
            raise ValueError(
                f"Both amsterdam_model_dir and maryland_model_dir must be provided for {psr_name}. "
                "Preset model paths are not yet implemented. "
                "Please provide explicit paths to trained flow models "
                "(see TODO_FLOW_TRAINING.md Phase 3)."
            )

        # Use provided model paths
        logger.info(f"Using Amsterdam model directory: {amsterdam_model_dir}")
        logger.info(f"Using Maryland model directory: {maryland_model_dir}")

        # Load flow models
        logger.info(f"Loading Amsterdam flow for {psr_name} from {amsterdam_model_dir}")
        self.amsterdam_flow = Flow.from_directory(amsterdam_model_dir)

        logger.info(f"Loading Maryland flow for {psr_name} from {maryland_model_dir}")
        self.maryland_flow = Flow.from_directory(maryland_model_dir)

        logger.info(f"Loaded normalizing flows for {psr_name}")

        # Pre-sample masses ONCE at initialization (deterministic with seed)
        logger.info(
            f"Pre-sampling {N_masses_evaluation} masses with seed={seed} for {psr_name}"
        )
        key = jax.random.key(seed)
        key_amsterdam, key_maryland = jax.random.split(key)

        # Sample (mass, radius) from flows
        amsterdam_samples = self.amsterdam_flow.sample(
            key_amsterdam, (N_masses_evaluation,)
        )
        maryland_samples = self.maryland_flow.sample(
            key_maryland, (N_masses_evaluation,)
        )

        # Extract only masses (first column), discard radius values
        self.amsterdam_fixed_mass_samples = amsterdam_samples[:, 0]  # Shape: (N,)
        self.maryland_fixed_mass_samples = maryland_samples[:, 0]  # Shape: (N,)

        logger.info(
            f"Pre-sampled Amsterdam mass range: "
            f"[{jnp.min(self.amsterdam_fixed_mass_samples):.3f}, "
            f"{jnp.max(self.amsterdam_fixed_mass_samples):.3f}] Msun"
        )
        logger.info(
            f"Pre-sampled Maryland mass range: "
            f"[{jnp.min(self.maryland_fixed_mass_samples):.3f}, "
            f"{jnp.max(self.maryland_fixed_mass_samples):.3f}] Msun"
        )

    def evaluate(self, params: dict[str, Float | Array]) -> Float:
        """
        Evaluate log likelihood for given EOS parameters.
        Handles two segments in case of phase transition.
        """
        # Extract parameters
        masses_EOS: Float[Array, " n_points"] = params["masses_EOS"]
        radii_EOS: Float[Array, " n_points"] = params["radii_EOS"]
        mtov: Float = jnp.max(masses_EOS)

        # mass-radius split wrt phase transition jump
        split_idx = utils.get_MR_split_index(masses_EOS, radii_EOS)

        # divide by mask
        idx = jnp.arange(masses_EOS.shape[0])
        mask1 = idx < split_idx
        mask2 = idx >= split_idx

        # Segment 1
        m_eos_1 = jnp.where(mask1, masses_EOS, jnp.inf)
        r_eos_1 = jnp.where(mask1, radii_EOS, 0.0)
        sort_1 = jnp.argsort(m_eos_1)
        m_eos_1, r_eos_1 = m_eos_1[sort_1], r_eos_1[sort_1]

        # Boundary 1: Find valid min and max mass for this segment
        seg1_min = m_eos_1[0]
        seg1_max = jnp.max(jnp.where(m_eos_1 == jnp.inf, self.penalty_value, m_eos_1))

        # Segment 2
        m_eos_2 = jnp.where(mask2, masses_EOS, jnp.inf)
        r_eos_2 = jnp.where(mask2, radii_EOS, 0.0)
        sort_2 = jnp.argsort(m_eos_2)
        m_eos_2, r_eos_2 = m_eos_2[sort_2], r_eos_2[sort_2]

        # Boundary 2: Find valid min and max mass for this segment
        seg2_min = m_eos_2[0]
        seg2_max = jnp.max(jnp.where(m_eos_2 == jnp.inf, self.penalty_value, m_eos_2))

        def process_sample_amsterdam(
            mass: Float,
            m_eos: Array,
            r_eos: Array,
            max_m_tov: Float,
            seg_min: Float,
            seg_max: Float,
        ) -> Float:
            radius = jnp.interp(mass, m_eos, r_eos)
            mr_point = jnp.array([[mass, radius]])
            logpdf = self.amsterdam_flow.log_prob(mr_point)

            # Do not extrapolate: zero probability mask for extrapolated points, so no need for weighing
            in_segment = (mass >= seg_min) & (mass <= seg_max)
            logpdf = jnp.where(in_segment, logpdf, self.penalty_value)

            penalty = jnp.where(mass > max_m_tov, self.penalty_value, 0.0)
            return logpdf + penalty

        def process_sample_maryland(
            mass: Float,
            m_eos: Array,
            r_eos: Array,
            max_m_tov: Float,
            seg_min: Float,
            seg_max: Float,
        ) -> Float:
            radius = jnp.interp(mass, m_eos, r_eos)
            mr_point = jnp.array([[mass, radius]])
            logpdf = self.maryland_flow.log_prob(mr_point)

            # Zero probability mask for extrapolated points, so no need for weighing
            in_segment = (mass >= seg_min) & (mass <= seg_max)
            logpdf = jnp.where(in_segment, logpdf, self.penalty_value)

            penalty = jnp.where(mass > max_m_tov, self.penalty_value, 0.0)
            return logpdf + penalty

        amsterdam_logprobs_1 = jax.lax.map(
            lambda m: process_sample_amsterdam(
                m, m_eos_1, r_eos_1, mtov, seg1_min, seg1_max
            ),
            self.amsterdam_fixed_mass_samples,
            batch_size=self.N_masses_batch_size,
        )

        maryland_logprobs_1 = jax.lax.map(
            lambda m: process_sample_maryland(
                m, m_eos_1, r_eos_1, mtov, seg1_min, seg1_max
            ),
            self.maryland_fixed_mass_samples,
            batch_size=self.N_masses_batch_size,
        )

        amsterdam_logprobs_2 = jax.lax.map(
            lambda m: process_sample_amsterdam(
                m, m_eos_2, r_eos_2, mtov, seg2_min, seg2_max
            ),
            self.amsterdam_fixed_mass_samples,
            batch_size=self.N_masses_batch_size,
        )

        maryland_logprobs_2 = jax.lax.map(
            lambda m: process_sample_maryland(
                m, m_eos_2, r_eos_2, mtov, seg2_min, seg2_max
            ),
            self.maryland_fixed_mass_samples,
            batch_size=self.N_masses_batch_size,
        )

        # Average over all samples for each group
        # In this case, even if data is accidentally splitted somewhere, log_likelihood will be exactly the same.
        N_amsterdam = amsterdam_logprobs_1.shape[0]
        N_maryland = maryland_logprobs_1.shape[0]

        logL_amsterdam_1 = logsumexp(amsterdam_logprobs_1) - jnp.log(N_amsterdam)
        logL_maryland_1 = logsumexp(maryland_logprobs_1) - jnp.log(N_maryland)

        logL_amsterdam_2 = logsumexp(amsterdam_logprobs_2) - jnp.log(N_amsterdam)
        logL_maryland_2 = logsumexp(maryland_logprobs_2) - jnp.log(N_maryland)

        log_likelihood = logsumexp(
            jnp.array(
                [logL_amsterdam_1, logL_maryland_1, logL_amsterdam_2, logL_maryland_2]
            )
        ) - jnp.log(2.0)

        return log_likelihood


if __name__ == "__main__":
    likelihood = NICERLikelihood(
        "J0030",
        amsterdam_model_dir=([1.4, 12.5], [0.15, 0.8]),
        maryland_model_dir=([1.45, 13.0], [0.15, 0.9]),
    )
    masses = jnp.linspace(0.5, 2.2, 100)
    radii = jnp.where(jnp.arange(100) < 60, 13.0 - 0.5 * masses, 11.0 - 0.5 * masses)
    evaluate = jax.jit(likelihood.evaluate)
    value = evaluate({"masses_EOS": masses, "radii_EOS": radii})
    assert jnp.isfinite(value), value
    assert not jnp.allclose(likelihood.amsterdam_fixed_mass_samples - 1.4,
                            (likelihood.maryland_fixed_mass_samples - 1.45))
    print(value)
