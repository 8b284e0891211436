# source: https://github.com/jax-ml/jax/issues/16845
# observed on jax 0.10.2 CPU: the sample variance of s2 is about 4, not 2: s2 draws its noise
#   from the key s1 was drawn with, so the noise is s1 itself and s2 = 2 * s1; s3 reuses the
#   same key once more (its noise is random.normal(key, (9998, 1))).
# gap: other
from jax import numpy, random

key = random.PRNGKey(1337)
s1 = random.multivariate_normal(
    key, numpy.array([0]), numpy.eye(1), shape=(10000,)
)
s2 = random.multivariate_normal(key, s1, numpy.eye(1))  # expect: JIT502
print(numpy.cov(s2, rowvar=False))
s3 = random.multivariate_normal(key, s1[:9998], numpy.eye(1))  # expect: JIT502
print(numpy.cov(s3, rowvar=False))

if __name__ == "__main__":
    # observed: line 12 gives s2 == 2 * s1, variance about 4
    assert numpy.allclose(s2, 2 * s1, atol=1e-5)
    assert 3.5 < float(numpy.cov(s2, rowvar=False)) < 4.5
    # observed: line 14 draws the noise of s3 from the same key as well
    noise = random.normal(key, (9998, 1))  # tolerate: JIT502
    assert numpy.allclose(s3 - s1[:9998], noise, atol=1e-5)
