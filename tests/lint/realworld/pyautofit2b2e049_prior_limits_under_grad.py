# source: https://github.com/PyAutoLabs/PyAutoFit/blob/2b2e0496cd245bf17e4416c931cca21e67c190fa/autofit/non_linear/fitness.py (with autofit/mapper/prior/abstract.py, autofit/mapper/prior_model/abstract.py, autofit/non_linear/search/nest/dynesty/search/static.py and test_autofit/graphical/gaussian/model.py at the same commit; fixed in 5cb8fc721 "disable assertions with JAX wrapper" and 5a4bef776 "do not check nan if using jax", later PR #1020)
# observed on jax 0.10.2 CPU: DynestyStatic(use_gradient=True) runs jax.jit(jax.grad(fitness)); the prior-limit check `lower <= value <= upper` raises TracerBoolConversionError; once that check is skipped, `np.isnan(log_likelihood)` raises TracerArrayConversionError
# gap: cross-module
# observed: line 29 jax.jit(jax.grad(fitness)) raises TracerBoolConversionError on the chained comparison of the traced parameter
# observed: line 127 with the limit check skipped, np.isnan(traced log likelihood) raises TracerArrayConversionError (Python 3.11 reports the frame at the `except FitException:` line)
# Reduced to the methods on the gradient path: Prior/Model/Fitness/GradWrapper are trimmed copies of the
# autofit classes (config, paths, timeout decorator, cached_property and dynesty removed); the priors are
# plain UniformPrior-like limits; Gaussian is registered as a pytree here so the inner jit accepts it
# (in autofit the model instance is built by the mapper); the data are small fixed arrays.
import numpy as np
import jax
from jax import numpy as jnp


class PriorLimitException(Exception):
    pass


class FitException(Exception):
    pass


class Prior:
    def __init__(self, lower_limit=0.0, upper_limit=1.0):
        self.lower_limit = lower_limit
        self.upper_limit = upper_limit

    def assert_within_limits(self, value):
        if not (self.lower_limit <= value <= self.upper_limit):  # expect: JIT101  # tolerate: JIT103
            raise PriorLimitException(
                "The physical value {} for a prior "
                "was not within its limits {}, {}".format(
                    value, self.lower_limit, self.upper_limit
                )
            )


class Gaussian:
    def __init__(
        self,
        centre=0.0,  # <- PyAutoFit recognises these constructor arguments
        normalization=0.1,  # <- are the Gaussian's model parameters.
        sigma=0.01,
    ):
        self.centre = centre
        self.normalization = normalization
        self.sigma = sigma

    def __call__(self, xvalues):
        transformed_xvalues = jnp.subtract(xvalues, self.centre)
        return jnp.multiply(
            jnp.divide(self.normalization, self.sigma * jnp.sqrt(2.0 * jnp.pi)),
            jnp.exp(-0.5 * jnp.square(jnp.divide(transformed_xvalues, self.sigma))),
        )


jax.tree_util.register_pytree_node(
    Gaussian,
    lambda g: ((g.centre, g.normalization, g.sigma), None),
    lambda _, c: Gaussian(*c),
)


def _likelihood(z, y):
    return jnp.multiply(-0.5, jnp.square(jnp.subtract(z, y)))


class Analysis:
    def __init__(self, x, y, sigma=0.04):
        self.x = x
        self.y = y
        self.sigma = sigma

    def log_likelihood_function(self, instance: Gaussian):
        y_model = instance(self.x)
        return jnp.sum(_likelihood(y_model, self.y) / self.sigma**2)


class Model:
    def __init__(self, cls, **priors):
        self.cls = cls
        self.priors = priors
        self.prior_count = len(priors)

    def instance_from_vector(self, vector, ignore_prior_limits=False):
        if len(vector) != self.prior_count:
            raise AssertionError(
                f"Vector length {len(vector)} != prior count {self.prior_count}"
            )
        arguments = dict(
            map(
                lambda prior_tuple, physical_unit: (prior_tuple[1], physical_unit),
                self.priors.items(),
                vector,
            )
        )

        if not ignore_prior_limits:
            for prior, value in arguments.items():
                prior.assert_within_limits(value)

        return self.cls(**{name: arguments[prior] for name, prior in self.priors.items()})


class Fitness:
    def __init__(self, model, analysis, fom_is_log_likelihood=True, resample_figure_of_merit=-np.inf):
        self.model = model
        self.analysis = analysis
        self.fom_is_log_likelihood = fom_is_log_likelihood
        self.resample_figure_of_merit = resample_figure_of_merit
        self._log_likelihood_function = None

    @property
    def log_likelihood_function(self):
        if self._log_likelihood_function is None:
            self._log_likelihood_function = jax.jit(
                self.analysis.log_likelihood_function
            )

        return self._log_likelihood_function

    def __call__(self, parameters, *kwargs):
        try:
            instance = self.model.instance_from_vector(vector=parameters)
            log_likelihood = self.log_likelihood_function(instance=instance)

            if np.isnan(log_likelihood):  # expect: JIT402  # tolerate: JIT101
                return self.resample_figure_of_merit

        except FitException:
            return self.resample_figure_of_merit

        figure_of_merit = log_likelihood
        return figure_of_merit


class GradWrapper:
    def __init__(self, function):
        self.function = function
        self._grad = None

    @property
    def grad(self):
        from jax import grad
        if self._grad is None:
            print("Compiling gradient")
            self._grad = jax.jit(grad(self.function))
        return self._grad

    def __call__(self, *args, **kwargs):
        return self.grad(*args, **kwargs)


if __name__ == "__main__":
    import traceback

    x = np.arange(100.0)
    y = np.asarray(Gaussian(centre=50.0, normalization=25.0, sigma=10.0)(x))
    analysis = Analysis(x, y)
    model = Model(
        Gaussian,
        centre=Prior(0.0, 100.0),
        normalization=Prior(0.0, 100.0),
        sigma=Prior(0.0, 30.0),
    )
    fitness = Fitness(model, analysis)
    parameters = jnp.array([45.0, 20.0, 8.0])

    # the plain (eager) call works
    print("eager fitness:", fitness(np.array([45.0, 20.0, 8.0])))

    def error_line(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
            return type(e).__name__, frames[-1].lineno
        return None, None

    with open(__file__) as fh:
        src = fh.read().splitlines()
    limit_line = next(i for i, l in enumerate(src, 1) if "if not (self.lower_limit <= value" in l)
    nan_line = next(i for i, l in enumerate(src, 1) if "if np.isnan(log_likelihood)" in l)

    name, line = error_line(lambda: GradWrapper(fitness)(parameters))
    print(name, "at line", line)
    assert name == "TracerBoolConversionError" and line == limit_line

    # the maintainers' first fix skipped the assertion under JAX; the next failure is the NaN check
    Prior.assert_within_limits = lambda self, value: None
    name, line = error_line(lambda: GradWrapper(fitness)(parameters))
    print(name, "at line", line)
    # Python 3.11 attributes the frame to the non-matching `except FitException:` clause below the check
    except_line = next(i for i, l in enumerate(src, 1) if i > nan_line and "except FitException:" in l)
    assert name == "TracerArrayConversionError" and line in (nan_line, except_line)
