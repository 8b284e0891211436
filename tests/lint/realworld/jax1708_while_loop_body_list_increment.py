# source: https://github.com/jax-ml/jax/issues/1708
# observed on jax 0.10.2 CPU: with lax.while_loop the body is traced once, so the
#   `u[0]+=1` side effect runs once and u ends as [1], where the Python while_loop of the
#   report leaves [10].
# gap: stale-state-attributes
from jax import lax

def body_fun(val):
    u[0]+=1  # expect: JIT202
    return val+1

cond_fun = lambda j: j<10


### python
u=[0]
def while_loop(cond_fun, body_fun, init_val):
    val = init_val
    while cond_fun(val):
        val = body_fun(val)
    return val

while_loop(cond_fun, body_fun, 0)
print('python', u)

### xla
u=[0]
lax.while_loop(cond_fun, body_fun, 0)
print('xla', u)


if __name__ == "__main__":
    # observed: line 9 runs once, while tracing the body: u is [1], not [10]
    assert u == [1], u
    assert int(lax.while_loop(cond_fun, body_fun, 0)) == 10
