# source: https://github.com/jax-ml/jax/issues/2287
# observed on jax 0.10.2 CPU: after the loop tab_x and tab_v are still all zeros: each
#   update returns a new array and the result is dropped. `jax.ops.index_update(a, i, v)`
#   (removed) is spelled `a.at[i].set(v)`; the imports (`np` as jax.numpy) are added.
# gap: other
import jax
import jax.numpy as np

dt=1e-3
N=100
x0 = 1.5
v0 = 0


tab_x = np.zeros(N)
tab_v = np.zeros(N)
tab_t = np.arange(N)*dt
c=4*np.pi**2
x = x0
v = v0
for i in range(N):
  x = x+v*dt
  v = v-c*np.sin(x)*dt
  tab_x.at[i].set(x)  # expect: JIT503
  tab_v.at[i].set(v)  # expect: JIT503

if __name__ == "__main__":
    # observed: line 24 and line 25 leave the tables unchanged
    assert float(abs(tab_x).sum()) == 0.0
    assert float(abs(tab_v).sum()) == 0.0
    assert float(x) != 0.0
