# source: https://github.com/dfm/tinygp/blob/3c338bfe5122a06dbbf3a495f792d1eeb158339b/src/tinygp/kernels/quasisep.py
#   (CARMA, verbatim but for its docstring, as fixed by commit 3c338bf "Attempt to make
#   CARMA kernel jit-compliant (#188)", https://github.com/dfm/tinygp/pull/188:
#   `jnp.roots(..., strip_zeros=False)` and jnp.roll for np.roll. tinygp is not installed:
#   its `dataclass` helper is copied from tinygp/helpers.py at the parent commit (without
#   the typing-only __dataclass_transform__), and a plain class stands in for the Quasisep
#   base class, whose solver methods CARMA.init does not reach. The __main__ block builds
#   the kernel from traced parameters under jax.jit, under jax.grad, and evaluates a
#   transition matrix under jit)
# observed on jax 0.10.2 CPU: runs clean under jit and grad: the roots keep their static
#   count, and the roll is a JAX operation.
# gap: other
import dataclasses
from typing import Any, Union

import jax
import jax.numpy as jnp
import numpy as np

JAXArray = Union[np.ndarray, jnp.ndarray]


def dataclass(clz: type[Any]) -> type[Any]:  # tinygp/helpers.py at the same commit
    data_clz: Any = dataclasses.dataclass(frozen=True)(clz)
    meta_fields = []
    data_fields = []
    for name, field_info in data_clz.__dataclass_fields__.items():
        is_pytree_node = field_info.metadata.get("pytree_node", True)
        if is_pytree_node:
            data_fields.append(name)
        else:
            meta_fields.append(name)

    def replace(self: Any, **updates):
        return dataclasses.replace(self, **updates)

    data_clz.replace = replace

    def iterate_clz(x: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        meta = tuple(getattr(x, name) for name in meta_fields)
        data = tuple(getattr(x, name) for name in data_fields)
        return data, meta

    def clz_from_iterable(meta: tuple[Any, ...], data: tuple[Any, ...]) -> Any:
        meta_args = tuple(zip(meta_fields, meta))
        data_args = tuple(zip(data_fields, data))
        kwargs = dict(meta_args + data_args)
        return data_clz(**kwargs)

    jax.tree_util.register_pytree_node(data_clz, iterate_clz, clz_from_iterable)

    # Hack to make this class act as a tuple when unpacked
    data_clz.iter_elems = lambda self: iterate_clz(self)[0].__iter__()

    return data_clz


class Quasisep:  # stand-in for tinygp.kernels.quasisep.Quasisep
    pass


@dataclass
class CARMA(Quasisep):
    alpha: JAXArray
    beta: JAXArray
    sigma: JAXArray
    roots: JAXArray
    proj: JAXArray
    proj_inv: JAXArray
    stn: JAXArray

    @classmethod
    def init(
        cls, alpha: JAXArray, beta: JAXArray, sigma: JAXArray | None = None
    ) -> "CARMA":
        r"""Construct a CARMA kernel

        Args:
            alpha: The parameter :math:`\alpha` in the definition above. This
                should be an array of length ``p``.
            beta: The parameter :math:`\beta` in the definition above. This
                should be an array of length ``q``, where ``q <= p``.
            sigma: The parameter :math:`\sigma` in the definition above.
        """
        sigma = jnp.ones(()) if sigma is None else sigma
        alpha = jnp.atleast_1d(alpha)
        beta = jnp.atleast_1d(beta)
        assert alpha.ndim == 1
        assert beta.ndim == 1
        p = alpha.shape[0]
        assert beta.shape[0] <= p

        # We find the roots of the autoregressive polynomial as a means to find
        # the eigendecomposition of the design matrix.
        alpha_ext = jnp.append(alpha, 1.0)
        roots = jnp.roots(alpha_ext[::-1], strip_zeros=False)
        proj = roots[:, None] ** jnp.arange(p)[None, :]
        proj_inv = jnp.linalg.inv(proj)

        # Compute the stationary covariance - there is almost certainly a more
        # elegant way, but this works! I worked this out kind of by trial and
        # error using sympy. There is a lot of known structure in the P_inf
        # matrix that can be exploited to "simplify" this calculation.
        # Specifically, there are only `p` degrees of freedom, and P_inf has the
        # following structure:
        #
        #   P_inf = [
        #     [ p0   0   -p1   0    p2 ]
        #     [ 0    p1   0   -p2   0  ]
        #     [-p1   0    p2   0   -p3 ]
        #     [ 0   -p2   0    p3   0  ]
        #     [ p2   0   -p3   0    p4 ]
        #   ]
        #
        # Using this structure, we get can solve the usual:
        #
        #  A @ P + P @ A.T + L @ L.T = 0
        #
        # for `P`, and we get something like the following. Kelly et al. (2104)
        # also have an expression for this (their V_{ij}), but I prefer to use
        # this since it is probably roughly just as fast to compute, and it is
        # strictly real-valued.
        f = 2 * ((np.arange(2 * p) // 2) % 2) - 1
        x = f * jnp.append(alpha_ext, jnp.zeros(p - 1))
        params = jnp.stack([jnp.roll(x, k)[::2] for k in range(p)], axis=0)
        params = jnp.linalg.solve(params, 0.5 * sigma**2 * jnp.eye(p, 1, k=-p + 1))[
            :, 0
        ]
        stn_ = []
        for j in range(p):
            stn_.append([jnp.zeros(()) for _ in range(p)])
            for n, k in enumerate(range(j - 2, -1, -2)):
                stn_[-1][k] = (2 * (n % 2) - 1) * params[j - n - 1]
            for n, k in enumerate(range(j, p, 2)):
                stn_[-1][k] = (1 - 2 * (n % 2)) * params[n + j]
        stn = jnp.array(list(map(jnp.stack, stn_)))

        return cls(
            sigma=sigma,
            alpha=alpha,
            beta=beta,
            roots=roots,
            proj=proj,
            proj_inv=proj_inv,
            stn=stn,
        )

    def design_matrix(self) -> JAXArray:
        p = self.alpha.shape[0]
        return jnp.concatenate((jnp.eye(p - 1, p, k=1), -self.alpha[None]))

    def stationary_covariance(self) -> JAXArray:
        return self.stn

    def observation_model(self, X: JAXArray) -> JAXArray:
        return jnp.append(
            self.beta, jnp.zeros(self.alpha.shape[0] - self.beta.shape[0])
        )

    def transition_matrix(self, X1: JAXArray, X2: JAXArray) -> JAXArray:
        dt = X2 - X1
        return (self.proj_inv @ (jnp.exp(self.roots * dt)[:, None] * self.proj)).real


if __name__ == "__main__":
    alpha = jnp.array([1.0, 0.5])
    beta = jnp.array([1.0])

    build = jax.jit(lambda a, b: CARMA.init(a, b).stationary_covariance())
    print(build(alpha, beta))

    loss = jax.grad(lambda a: jnp.sum(CARMA.init(a, beta).stationary_covariance()))
    print(loss(alpha))

    transition = jax.jit(lambda a, b, dt: CARMA.init(a, b).transition_matrix(0.0, dt))
    print(transition(alpha, beta, 0.1))
