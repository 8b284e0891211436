# source: https://github.com/jax-ml/jax/pull/4663 (the repro from @tomhennigan, based on
#   one by @mfigurnov, in the description)
# observed on jax 0.10.2 CPU: jax.jit(f)() no longer raises the KeyError of the report and
#   returns, but g, traced by each jax.remat, writes its tracer into the list seq that f
#   holds: under jax.checking_leaks() the same call raises "Leaked trace" for it. Added:
#   the __main__ block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

def f():
  seq = [jnp.zeros([])]
  def g():
    seq[0] += 1  # expect: JIT202
    return seq[0]

  jax.remat(g)()
  jax.remat(g)()  # KeyError: a

jax.jit(f)()

if __name__ == "__main__":
    # observed: line 14 stores g's tracer in seq, outside the remat trace: the leak checker reports it
    with jax.checking_leaks():
        try:
            jax.jit(lambda: f())()  # a fresh function, traced again under the checker
        except Exception as e:
            assert "Leaked" in str(e), e
        else:
            raise AssertionError("no leak reported")
