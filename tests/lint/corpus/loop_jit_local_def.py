import jax
import jax.numpy as jnp


def sweep_learning_rates(params, grads, lrs):
    results = []
    for lr in lrs:
        def update(p, g):
            return p - lr * g

        step = jax.jit(update)  # expect: JIT301
        results.append(step(params, grads))
    return results


def sweep_learning_rates_ok(params, grads, lrs):
    @jax.jit
    def update(p, g, lr):
        return p - lr * g

    return [update(params, grads, lr) for lr in lrs]


def hoisted(params, grads, lrs):
    def update(p, g, lr):
        return p - lr * g

    results = []
    for lr in lrs:
        results.append(jax.jit(update)(params, grads, lr))
    return results
