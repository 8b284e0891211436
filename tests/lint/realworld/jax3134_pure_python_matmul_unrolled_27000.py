# source: https://github.com/jax-ml/jax/issues/3134
# observed on jax 0.10.2 CPU: jit(f)(v) returns 24552024.0 against Python's 24552025.0
#   (float32, the precision the maintainers pointed to), and it takes about 3 s where the
#   Python version takes 2 ms: the triple loop of mat_mul(m, m) over 30 x 30 x 30 list
#   entries runs while tracing, so the jitted program holds over 54,000 scalar operations
#   (27,000 multiply-adds), all compiled by XLA. Added: the operation count in `__main__`.
# gap: other
import jax.numpy as np
from jax import jit

def make_mat(m, n):
  a = []
  for i in range(0, m):
    a.append([])
    for j in range(0, n):
      a[i].append(0)
  return a

def mat_mul(a, b):
  m = len(a)
  n = len(b[0])
  c = make_mat(m, n)
  for i in range(0, m):
    for j in range(0, n):
      for k in range(0, len(b)):  # expect: JIT303
        c[i][j] += a[i][k] * b[k][j]
  return c

def trace(m):
  tot = 0
  for i in range(0, len(m)):
    tot += m[i][i]
  return tot

def transpose(m):
  a = make_mat(len(m[0]), len(m))
  for i in range(0, len(m)):
    for j in range(0, len(m[0])):
      a[j][i] = m[i][j]
  return a

def f(v):
  v = [v]
  #print(v)
  m = mat_mul(transpose(v), v)
  #print(m)
  mm = mat_mul(m, m)
  #print(mm)
  return trace(mm)

v = [float(n-5) for n in range(0, 30)]

print(f(v))
print(jit(f)(v))


if __name__ == "__main__":
    import jax

    # observed: line 25 unrolls 30 x 30 x 30 iterations into the traced program
    n_eqns = len(jax.make_jaxpr(f)(v).eqns)
    assert n_eqns > 54000, n_eqns
