# source: https://github.com/oseledets/nla2022/blob/74012b664218d52250e334bb7ab5fe001aeef616/lectures/lecture-4/jax-tutorial.ipynb
#   (Skoltech's Numerical Linear Algebra course 2022, lecture 4 "JAX Tutorial": the
#   optimizer closures of section "1 JIT", `objective` of "2 Differentiation", the checkify
#   rewrite of `double` in "4 Checkify" -- the fix of the `if` on a traced value in
#   nla2022_lecture4_jit_double_if_on_value.py -- and the three `minimize` functions of
#   "6 Control Flow and Static Arguments")
# observed on jax 0.10.2 CPU: runs clean. checkify turns the failed check into an error
#   value that err.throw() raises outside jit (the notebook's `jax.jit(checkify(double))(-1.0)`
#   cell, which raises on purpose, is run in the __main__ block, where the ValueError is
#   caught). minimize is jitted with the objective, the optimizer closure and `verbose` static
#   (functions hash by identity, and the same objects are passed each time); its Python
#   `for i in range(max_iter)` runs over the default max_iter, a Python int that jit never
#   sees, and `if verbose:` tests the static flag. The fori_loop and while_loop versions
#   carry (value, params); the while_loop starts from float('+inf'), a weak-typed carry that
#   JAX promotes to the body's float32. Added: the imports (the notebook imports `partial`
#   after make_sgd, which only uses it when l2 == 0.0), `loop_value = ...` and
#   `fori_value = ...` to keep the first two results, and the __main__ block. The %timeit
#   cell of opt_fn_jit is run once as a plain call; the other %timeit cells and the
#   `minimize.lower(...).as_text()` print are left out.
# gap: other
from functools import partial

import numpy as np
import jax
import jax.numpy as jnp


def sgd(params, updates, learning_rate):
    return learning_rate * updates

def weighted(params, updates, l2):
    return params + l2 * updates

def make_sgd(learning_rate=1e-1, l2=1e-5):
    if l2 == 0.0:
        return partial(sgd, learning_rate=learning_rate)
    
    def fn(params, updates):
        updates = weighted(params, updates, l2)
        updates = sgd(params, updates, learning_rate)
        return updates
    
    return fn

opt_fn = make_sgd()

params = np.random.normal(size=(1000, ))
updates = np.random.normal(size=(1000, ))

opt_fn_jit = jax.jit(opt_fn)

params = jnp.array(params)
updates = jnp.array(updates)

opt_fn_jit(params, updates).block_until_ready()


def objective(params):
    return (params ** 2).sum()


def objective_grad(params):
    return 2 * params.sum()

xs = jnp.array([1, 2], jnp.float32)

from jax.experimental.checkify import check, checkify

def double(value):
    value = jnp.asarray(value)
    check((value >= 0).any(), 'Expected a non-negative values.')
    return 2 * value

err, res = jax.jit(checkify(double))(1.0)
err.throw()  # OK


@partial(jax.jit, static_argnums=(0, 1, 4))
def minimize(obj, opt, params, max_iter=20, verbose=False):    
    for i in range(max_iter):
        value, updates = jax.value_and_grad(obj)(params)
        params -= opt(params, updates)
        if verbose:
            jax.debug.print('[{i}] value={value}', i=i, value=value)
    return value, params

value, params = minimize(objective, opt_fn, jnp.ones(2))
value.item()
loop_value = value.item()

@partial(jax.jit, static_argnums=(0, 1, 4))
def minimize(obj, opt, params, max_iter=20, verbose=False):    
    def body_fn(index, state):
        _, params = state
        value, updates = jax.value_and_grad(obj)(params)
        params -= opt(params, updates)
        if verbose:
            jax.debug.print('[{i}] value={value}', i=i, value=value)
        return value, params
    value, params = jax.lax.fori_loop(0, max_iter, body_fn, (0.0, params))
    return value, params

value, params = minimize(objective, opt_fn, jnp.ones(2))
value.item()
fori_value = value.item()

@partial(jax.jit, static_argnums=(0, 1, 4))
def minimize(obj, opt, params, max_iter=20, verbose=False):    
    def cond_fn(state):
        value, _ = state
        jax.debug.print('[{i}] value={value}', i=1, value=value)
        return value >= 1e-1
    
    def body_fn(state):
        _, params = state
        value, updates = jax.value_and_grad(obj)(params)
        params -= opt(params, updates)
        if verbose:
            jax.debug.print('[{i}] value={value}', i=i, value=value)
        return value, params
    
    value, params = jax.lax.while_loop(cond_fn, body_fn, (float('+inf'), params))
    return value, params

value, params = minimize(objective, opt_fn, jnp.ones(2))
value.item()

if __name__ == "__main__":
    err, res = jax.jit(checkify(double))(-1.0)
    try:
        err.throw()  # Error: ValueError: Expected a scalar!
    except ValueError as e:
        assert "Expected a non-negative values." in str(e)
    else:
        raise AssertionError("checkify did not report the failed check")
    assert abs(loop_value - fori_value) < 1e-6
    assert value.item() < 1e-1
    value2, _ = minimize(objective, opt_fn, jnp.ones(2))
    assert minimize._cache_size() == 1
