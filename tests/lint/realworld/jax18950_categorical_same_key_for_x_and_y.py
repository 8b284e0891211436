# source: https://github.com/jax-ml/jax/issues/18950
# observed on jax 0.10.2 CPU: silent. In each iteration the list comprehension samples X and
#   Y from the same key, so both draws share one Gumbel noise vector and are not independent:
#   X == Y in 42 of the 50 iterations (84%; about 10% is expected for independent draws, and
#   the stacked E2 gives 8%). The stacked draw e2 then consumes the key again, so E2's X
#   column is the same as E1's in all 50 iterations: the two "experiments" share their X
#   draws. The matplotlib histograms are left out (matplotlib is not installed); the
#   __main__ block is added and checks the draws.
# gap: other
import jax.numpy as jnp
import jax.random as jrandom

n = 10
key_X = jrandom.PRNGKey(120)
key_Y = jrandom.PRNGKey(845)
logits_X = jrandom.uniform(key_X, shape=(n,))
logits_Y = jrandom.uniform(key_Y, shape=(n,))

joint_logits = jnp.array([logits_X, logits_Y])

E1 = []
E2 = []

key = jrandom.PRNGKey(0)
n_s = 50
for _ in range(n_s):
    e1 = [jrandom.categorical(key, logits) for logits in joint_logits]  # expect: JIT502
    e2 = jrandom.categorical(key, joint_logits)  # expect: JIT502

    E1.append(e1)
    E2.append(e2)
    key, subkey = jrandom.split(key)  # tolerate: JIT502

E1 = jnp.array(E1)
E2 = jnp.array(E2)


if __name__ == "__main__":
    # observed: line 27 draws X and Y with one key: X == Y in 42 of 50 iterations
    same_xy_e1 = int((E1[:, 0] == E1[:, 1]).sum())
    same_xy_e2 = int((E2[:, 0] == E2[:, 1]).sum())
    assert same_xy_e1 == 42 and same_xy_e2 == 4, (same_xy_e1, same_xy_e2)
    # observed: line 28 consumes the same key again: E2's X draws equal E1's in every iteration
    assert bool((E1[:, 0] == E2[:, 0]).all())
    assert not bool((E1[:, 1] == E2[:, 1]).all())
