# source: https://github.com/andresgur/mind_the_gaps/issues/78 ; code: https://github.com/andresgur/mind_the_gaps/blob/3e14d95fc8e5859b22660ba4266d274b8425051b/mind_the_gaps/models/kernel_spec.py and mind_the_gaps/gp/tinygp_gaussian_process.py at the same commit
# observed on jax 0.10.2 CPU: the jitted negative log likelihood leaves a Tracer on the shared KernelSpec; afterwards get_param_array() raises UnexpectedTracerError
# observed: line 91 stores a tracer of jax.jit(value_and_grad(nll)) on KernelParameterSpec.value (isinstance Tracer after the call; get_param_array() then raises UnexpectedTracerError)
# observed: line 165 stores on the static TinyGP a GaussianProcess built from tracers (gp.gp.cov is a Tracer after the call)
# (the issue reports the leak on the celerite2 engine path, which calls the same KernelSpec.update_params_from_array from celerite2_gaussian_process.py; the tinygp path of the same commit is used here because celerite2 needs compiled extensions)
# gap: stale-state-attributes
# Trimmed to the parts on the path of the bug: KernelParameterSpec, KernelTermSpec
# (_resolve_params, _get_term_fit), KernelSpec (update_params_from_array,
# get_param_array, _get_jax_kernel_fit) and TinyGP (compute_fit, negative_log_likelihood)
# as committed. Added stand-ins: a Celerite-like exponential kernel class for
# tinygp.kernels.quasisep terms, a dense GaussianProcess with log_probability for
# tinygp.GaussianProcess, FixedMean, a small lightcurve object, and in __main__ the
# jax.jit(jax.value_and_grad(fun)) that jaxopt.ScipyBoundedMinimize(jit=True) applies to
# `fun=self.gp.negative_log_likelihood` in BaseNumpyroGPEngine.minimize.
from collections import OrderedDict
import itertools
from typing import Any, Callable, Dict, List, Optional, Tuple, Type, Union

import jax
import jax.numpy as jnp
import numpy as np


class KernelParameterSpec:
    def __init__(self, value, fixed=False, prior=None, bounds=None, zeroed=False):
        self.value = value
        self.fixed = fixed
        self.prior = prior
        self.bounds = bounds
        self.zeroed = zeroed
        if self.zeroed:
            self.fixed = True


class KernelTermSpec:
    def __init__(self, term_class: Type, parameters: Dict[str, KernelParameterSpec], **kwargs):
        self.term_class = term_class
        self.parameters = OrderedDict(parameters)
        self.extras = kwargs

    def _resolve_params(self):
        self._zeroed_params = {}
        self._fixed_params = {}
        self._sampled_params = {}
        for name, param_spec in self.parameters.items():
            if param_spec.fixed:
                if param_spec.zeroed:
                    param_spec.value = -1.0e-10
                    self._zeroed_params[name] = param_spec
                else:
                    self._fixed_params[name] = param_spec
            else:
                if param_spec.prior is None:
                    raise ValueError(f"Missing prior distribution for parameter '{name}'")
                self._sampled_params[name] = param_spec

    def _get_term_fit(self):
        _params = {}
        for name, param_spec in itertools.chain(
            self._fixed_params.items(),
            self._sampled_params.items(),
        ):
            _params[name] = jnp.exp(param_spec.value)
        for name, param_spec in self._zeroed_params.items():
            _params[name] = -1.0e-10
        return self.term_class(**_params)


class KernelSpec:
    def __init__(self, terms: List[KernelTermSpec]):
        self.terms = terms
        self.use_jax = True
        for term in self.terms:
            term._resolve_params()

    def update_params_from_array(self, array: Union[jax.Array, np.ndarray]) -> None:
        i = 0
        non_fixed = sum(
            len([param for name, param in term.parameters.items() if not param.fixed])
            for term in self.terms
        )
        if len(array) != non_fixed:
            raise ValueError(
                f"Array length {len(array)} does not match number of non-fixed parameters: "
                f"{non_fixed}"
            )
        if self.use_jax:
            for term in self.terms:
                for name, param in term.parameters.items():
                    if not param.fixed:
                        param.value = jnp.array(array[i])  # expect: JIT202
                        i += 1

    def get_param_array(self):
        values = []
        for term in self.terms:
            for param in term.parameters.values():
                if not param.fixed:
                    values.append(param.value)
        return jnp.array(values)

    def _get_jax_kernel_fit(self):
        terms = []
        for i, term in enumerate(self.terms):
            terms.append(term._get_term_fit())
        kernel = terms[0]
        for t in terms[1:]:
            kernel += t
        return kernel


class Exp:
    # stand-in for tinygp.kernels.quasisep.Exp(scale, sigma)
    def __init__(self, scale, sigma):
        self.scale, self.sigma = scale, sigma

    def __call__(self, t1, t2):
        return self.sigma**2 * jnp.exp(-jnp.abs(t1[:, None] - t2[None, :]) / self.scale)


class GaussianProcess:
    # stand-in for tinygp.GaussianProcess
    def __init__(self, kernel, X, diag, mean):
        self.cov = kernel(X, X) + jnp.diag(diag)
        self.mean = mean

    def log_probability(self, y):
        r = y - self.mean
        L = jnp.linalg.cholesky(self.cov)
        a = jax.scipy.linalg.solve_triangular(L, r, lower=True)
        return -0.5 * a @ a - jnp.sum(jnp.log(jnp.diag(L))) - 0.5 * len(y) * jnp.log(2 * jnp.pi)


class FixedMean:
    sampled_parameters = 0

    def __init__(self, lightcurve):
        self.mean_value = lightcurve.mean

    def compute_mean(self, params=None):
        return self.mean_value


class Lightcurve:
    def __init__(self, times, y, dy):
        self.times, self.y, self.dy = times, y, dy
        self.mean = float(np.mean(y))


class TinyGP:
    def __init__(self, kernel_spec, lightcurve):
        self.kernel_spec = kernel_spec
        self._lightcurve = lightcurve
        self.meanmodel = FixedMean(lightcurve)
        init_params = self.kernel_spec.get_param_array()
        self.compute_fit(self._lightcurve.times, params=init_params)

    def compute_fit(self, t, params=None, log_like=False):
        mean_params = params[: self.meanmodel.sampled_parameters]
        kernel_params = params[self.meanmodel.sampled_parameters :]

        self.kernel_spec.update_params_from_array(kernel_params)
        mean = self.meanmodel.compute_mean(params=mean_params)
        kernel = self.kernel_spec._get_jax_kernel_fit()
        self.gp = GaussianProcess(  # expect: JIT202
            kernel=kernel,
            X=t,
            diag=self._lightcurve.dy**2 + 1e-12,
            mean=mean,
        )
        if log_like:
            return self.gp.log_probability(self._lightcurve.y)

    def negative_log_likelihood(self, params, fit=True):
        self.compute_fit(self._lightcurve.times, params=params)
        nll_value = -self.gp.log_probability(y=self._lightcurve.y)
        return nll_value


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    t = jnp.asarray(np.sort(rng.uniform(0, 10, 20)))
    lc = Lightcurve(t, jnp.asarray(rng.normal(size=20)), jnp.full(20, 0.1))
    spec = KernelSpec([
        KernelTermSpec(Exp, {
            "scale": KernelParameterSpec(0.0, prior=object, bounds=(-3.0, 3.0)),
            "sigma": KernelParameterSpec(0.0, prior=object, bounds=(-3.0, 3.0)),
        })
    ])
    gp = TinyGP(spec, lc)

    value_and_grad = jax.jit(jax.value_and_grad(gp.negative_log_likelihood))
    loss, grad = value_and_grad(jnp.array([0.5, -0.2]))
    print("nll", loss)

    leaked = spec.terms[0].parameters["scale"].value
    assert isinstance(leaked, jax.core.Tracer), type(leaked)
    print("kernel_spec value after jit:", type(leaked).__name__)
    try:
        spec.get_param_array()
    except jax.errors.UnexpectedTracerError as e:
        print("get_param_array:", type(e).__name__)
    else:
        raise SystemExit("expected UnexpectedTracerError")
    assert isinstance(gp.gp.cov, jax.core.Tracer), type(gp.gp.cov)
