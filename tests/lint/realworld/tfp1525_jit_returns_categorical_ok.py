# source: https://github.com/tensorflow/probability/issues/1525 (the reporter's function; the
#   import of `tfd` is not in the post and is taken from the reporter's companion issue #1527,
#   same notebook: tensorflow_probability.substrates.jax; the input is the post's call)
# observed on jax 0.10.2 CPU with tfp-nightly 0.26.0.dev20261027: runs clean. The post's
#   TracerArrayConversionError came from TensorFlow's convert_to_tensor (the traceback runs
#   through tensorflow/python), i.e. TF's tfd under jax.jit; with the JAX substrate a
#   distribution is a pytree, and the jitted function returns a Categorical whose logits
#   came out of the trace as arrays.
# gap: other
# unverifiable: needs tensorflow-probability, which the test extra does not install (verified when collected, on jax 0.10.2 with tensorflow-probability installed)
import jax
import tensorflow_probability.substrates.jax as tfp
tfd = tfp.distributions

@jax.jit
def fun(logits):
    dist = tfd.Categorical(logits=logits)

    return dist


if __name__ == "__main__":
    dist = fun(jax.numpy.ones((8, 5)))
    assert isinstance(dist, tfd.Categorical)
    assert dist.batch_shape == (8,)
    assert not isinstance(dist.logits, jax.core.Tracer)
    assert dist.sample(seed=jax.random.key(0)).shape == (8,)
