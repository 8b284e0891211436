# source: https://github.com/ott-jax/ott/blob/5a39c693f1de5d8a9b51273dc3ed44d8e6f29447/tests/solvers/linear/semidiscrete_test.py
#   (_random_problem and the set-up of TestSemidiscreteSolver.test_c_transform_gradient
#   before commit 28cd8e93 "Fix passing rngs", which draws `b` and `y` inside
#   _random_problem from a split of the key it is given, and passes it rng_prob)
# observed on jax 0.10.2 CPU: with jax_debug_key_reuse on (as a typed key from the test's
#   `rng` fixture, jax.random.key(0)), `jr.uniform(rng, (m,))` raises KeyReuseError: `rng`
#   was consumed by `jr.split(rng, 3)` on the line before, and _random_problem draws `y`
#   from it a third time. Kept verbatim: _random_problem and the test's lines up to
#   `is_soft`; the nested semidiscrete_loss and the jitted comparison against ott's solver
#   after them are dropped (ott is not installed). Stand-ins: SemidiscretePointCloud holds
#   the sampler, the support `y` and epsilon, and SemidiscreteLinearProblem holds the
#   geometry and `b` and samples n points with the geometry's sampler. The test's
#   parameters are n=20, epsilon=1e-2.
# gap: other
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import jax.random as jr
import numpy as np

jax.config.update("jax_debug_key_reuse", True)


class SemidiscretePointCloud(NamedTuple):
  # stand-in for ott.geometry.semidiscrete_pointcloud.SemidiscretePointCloud
  sampler: Any
  y: jax.Array
  epsilon: Optional[float] = None

  @property
  def is_entropy_regularized(self) -> bool:
    return self.epsilon is None or self.epsilon > 0.0


class SemidiscreteLinearProblem(NamedTuple):
  # stand-in for ott.problems.linear.semidiscrete_linear_problem.SemidiscreteLinearProblem
  geom: SemidiscretePointCloud
  b: Optional[jax.Array] = None

  def sample(self, rng: jax.Array, num_samples: int):
    x = self.geom.sampler(rng, (num_samples, self.geom.y.shape[1]))
    return x, self.geom.y, self.b


class sdpc:  # namespace stand-in
  SemidiscretePointCloud = SemidiscretePointCloud


class sdlp:  # namespace stand-in
  SemidiscreteLinearProblem = SemidiscreteLinearProblem


def _random_problem(
    rng: jax.Array,
    *,
    m: int,
    d: int,
    b: Optional[jnp.ndarray] = None,
    **kwargs: Any
) -> sdlp.SemidiscreteLinearProblem:
  y = jr.normal(rng, (m, d))
  geom = sdpc.SemidiscretePointCloud(jr.normal, y, **kwargs)
  return sdlp.SemidiscreteLinearProblem(geom, b=b)


def test_c_transform_gradient(rng: jax.Array, n: int, epsilon: Optional[float]):
    rng_prob, rng_potential, rng_sample = jr.split(rng, 3)
    m, d = 17, 5
    b = jr.uniform(rng, (m,))  # expect: JIT502
    b = b.at[np.array([0, 2])].set(0.0)
    b /= b.sum()
    prob = _random_problem(rng, m=m, d=d, b=b, epsilon=epsilon)  # tolerate: JIT502

    g = jr.normal(rng_potential, (m,))
    sampled_prob = prob.sample(rng_sample, n)
    is_soft = prob.geom.is_entropy_regularized
    return g, sampled_prob, is_soft


if __name__ == "__main__":
  test_c_transform_gradient(jax.random.key(0), n=20, epsilon=1e-2)
