# source: https://github.com/google-deepmind/dm-haiku/blob/e28cc62cb3be3630ff5558ee2c0ea7f77172afda/docs/notebooks/transforms.ipynb
#   (Haiku's "Limitations of Nesting JAX Functions and Haiku Modules" document, the example
#   it marks "UnexpectedTracerError!")
# observed on jax 0.10.2 CPU with dm-haiku 0.0.17: `jax.eval_shape(net, x)` traces `net`,
#   whose `hk.get_parameter` creates `w` inside that trace and stores it in Haiku's
#   parameter state, which lives outside it. The next, untransformed `net(x)` reads the
#   stored tracer and `init` raises UnexpectedTracerError (Haiku re-raises it with its
#   hint; the leaked value was created in `get_parameter`). The `__main__` block that
#   catches the error is added; the document's cell runs `init` at top level.
# gap: stale-state-attributes
import haiku as hk
import jax
import jax.numpy as jnp

def net(x): # inside of a hk.transform, this is still side-effecting
  w = hk.get_parameter("w", (2, 2), init=jnp.ones)
  return w @ x

def eval_shape_net(x):
  output_shape = jax.eval_shape(net, x) # eval_shape on side-effecting function  # expect: JIT202
  return net(x)                         # UnexpectedTracerError!


if __name__ == "__main__":
  init, _ = hk.transform(eval_shape_net)
  raised = None
  try:
    init(jax.random.PRNGKey(666), jnp.ones((2, 2)))
  except jax.errors.UnexpectedTracerError as e:
    raised = e
  # observed: line 20 stores the parameter created under eval_shape in Haiku's state; the
  #   call on the next line reads that tracer and init raises UnexpectedTracerError
  assert raised is not None
  cause = raised.__cause__
  assert isinstance(cause, jax.errors.UnexpectedTracerError), cause
  tb_lines = [f.lineno for f in __import__("traceback").extract_tb(cause.__traceback__)
              if f.filename == __file__]
  assert 21 in tb_lines, tb_lines
