# source: https://github.com/jax-ml/jax/issues/2332
# observed on jax 0.10.2 CPU: after update(), self.loss_list holds a JVP tracer, not the
#   loss value: `self.loss_list += [l]` (line 30) runs inside grad's trace and keeps the
#   traced `l`, which escapes when grad returns (the report saw
#   `Traced<ConcreteArray(105.8...)>with<JVPTrace(level=1/0)>` in the list and could not
#   plot it); float() of it raises ConcretizationTypeError. The report elided the class
#   around the two methods: `__init__` (an empty `loss_list`), `batched_predict` (a
#   vmapped Fourier series of the coefficients) and the body of `update` after the
#   gradient (a plain gradient step) are minimal stand-ins; `jnp`, `grad` and `vmap` are
#   imported.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
from jax import grad, vmap


class FourierFit:
    def __init__(self):
        # stand-in: the report's constructor was elided
        self.loss_list = []

    def batched_predict(self, coefficents, train_values):
        # stand-in: a Fourier series with the given coefficients, one row per value
        k = jnp.arange(coefficents.shape[0])
        return vmap(lambda x: jnp.sum(coefficents * jnp.cos(k * x))[None])(train_values)

    def loss(self, coefficents, train_values, train_labels):
        preds = self.batched_predict(coefficents, train_values)[:, 0]
        l = jnp.sum(jnp.square(preds - train_labels))
        self.loss_list += [l]  # expect: JIT202
        return l

    def update(self, coefficients, x, y):
        grads = grad(self.loss)(coefficients, x, y)
        # stand-in for the elided rest of update: one gradient step
        return coefficients - 0.01 * grads


if __name__ == "__main__":
    fit = FourierFit()
    x = jnp.linspace(0.0, 3.0, 20)
    y = jnp.sin(x)
    c = fit.update(jnp.zeros(4), x, y)
    # observed: line 30 stores grad's tracer in self.loss_list, where it outlives the trace
    assert isinstance(fit.loss_list[0], jax.core.Tracer)
    try:
        float(fit.loss_list[0])
    except jax.errors.ConcretizationTypeError:
        pass
    else:
        raise AssertionError("the stored loss converted to a float")
