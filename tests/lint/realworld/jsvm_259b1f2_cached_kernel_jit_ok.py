# source: https://github.com/KeithLin724/j-svm/blob/259b1f2362ba1b1604bda3a2997f29a39bbad550/JSVM/SupportVectorMachine.py
# observed on jax 0.10.2 CPU: runs clean; with the functools.cache on Kernel.fast_build_jit_function (commit "add cache to speed up jit") all SVMs of the one-vs-one loop share one set of jitted kernel functions, each traced once
# gap: per-call-recompile
# (excerpt: the superseded, no longer called Kernel.build_fast_jit_function, save/load_from (core.SVMParameter) and the __str__/short_name helpers are left out; _find_alpha solved the dual QP with cvxpy/CLARABEL, replaced by a small projected-gradient stand-in since cvxpy is not installed; the one-vs-one model loop of JSVM/MultiSupportVectorMachine.py and synthetic 3-class data are in __main__)
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float
from typing import Callable
from dataclasses import dataclass
import time

from pathlib import Path

from functools import cache


def rbf(sigma: float) -> Callable[[jnp.ndarray, jnp.ndarray], jnp.ndarray]:

    @jax.jit
    def rbf_jit(x_1: jnp.ndarray, x_2: jnp.ndarray) -> jnp.ndarray:
        # 计算欧氏距离的平方
        distance_squared = jnp.sum((x_1 - x_2) ** 2, axis=0)

        # 计算 RBF 核函数值
        kernel_value = jnp.exp(-distance_squared / (2 * sigma**2))

        return kernel_value

    def run(x_1: jnp.ndarray, x_2: jnp.ndarray) -> jnp.ndarray:
        # 检查维度是否匹配
        # assert x_1.shape[0] == x_2.shape[0], "输入的两个向量必须有相同的特征数"

        kernel_value = rbf_jit(x_1, x_2)

        if x_2.ndim != 1 and x_2.shape[1] == 1:
            kernel_value = kernel_value.reshape(-1, 1)

        return kernel_value

    _ = rbf_jit(jnp.zeros((1,)), jnp.zeros((1,))).block_until_ready()  # warm up

    return run


def poly(p: int) -> Callable[[jnp.ndarray, jnp.ndarray], jnp.ndarray]:

    @jax.jit
    def run(x_1: jnp.ndarray, x_2: jnp.ndarray) -> jnp.ndarray:
        # assert x_1.shape[0] == x_2.shape[0], "输入的两个向量必须有相同的特征数"

        return (x_1.T @ x_2) ** p

    _ = run(jnp.zeros((1,)), jnp.zeros((1,))).block_until_ready()  # warm up

    return run


def linear() -> Callable[[jnp.ndarray, jnp.ndarray], jnp.ndarray]:

    @jax.jit
    def run(x_1: jnp.ndarray, x_2: jnp.ndarray) -> jnp.ndarray:
        # assert x_1.shape[0] == x_2.shape[0], "输入的两个向量必须有相同的特征数"

        return x_1.T @ x_2

    _ = run(jnp.zeros((1,)), jnp.zeros((1,))).block_until_ready()  # warm up

    return run


@dataclass(slots=True)
class KernelResult:
    kernel_function: Callable[[jnp.ndarray, jnp.ndarray], jnp.ndarray]
    fast_forward_jit: Callable
    build_k_matrix: Callable[[jnp.ndarray], jnp.ndarray]


class Kernel:
    kernel_dict = {
        "linear": linear,
        "rbf": rbf,
        "poly": poly,
    }

    @staticmethod
    def get_kernel(
        name: str, config: dict
    ) -> Callable[[jnp.ndarray, jnp.ndarray], jnp.ndarray]:
        if name not in Kernel.kernel_dict:
            raise NotImplementedError(
                f"{name} kernel not implemented. Available kernels: {list(Kernel.kernel_dict.keys())}"
            )

        func = Kernel.kernel_dict[name]

        return func(**config)

    @cache
    @staticmethod
    def fast_build_jit_function(name: str, config: tuple):

        kernel = Kernel.get_kernel(name, dict(config))

        @jax.jit
        def build_k_matrix(x: Float[Array, "N D"]) -> jnp.ndarray:

            # 先對 x 的每一列做 vmap，然後再對每一列的每一個元素做 vmap
            # K[i, j] = kernel(x[i], x[j])
            return jax.vmap(lambda xi: jax.vmap(lambda xj: kernel(xi, xj))(x))(x)

        @jax.jit
        def cal_one_item(
            ay: jnp.ndarray, x_kernel: jnp.ndarray, x_item: jnp.ndarray, b: float
        ):
            return jnp.sum(ay * kernel(x_kernel.T, x_item.reshape(-1, 1))) + b

        @jax.jit
        def fast_forward_jit(
            a_y_x: jnp.ndarray, x: jnp.ndarray, b: float
        ) -> jnp.ndarray:

            a, y, x_kernel = (
                a_y_x[:, 0].reshape(-1, 1),
                a_y_x[:, 1].reshape(-1, 1),
                a_y_x[:, 2:],
            )

            process_x = jax.vmap(
                lambda x_item: cal_one_item(a * y, x_kernel, x_item, b)
            )

            result = process_x(x)
            res = jnp.hstack(result)

            return res

        ## warm up

        _ = build_k_matrix(jnp.zeros((1, 1))).block_until_ready()

        _ = cal_one_item(
            jnp.zeros((1, 1)), jnp.zeros((1, 1)), jnp.zeros((1, 1)), 0
        ).block_until_ready()

        _ = fast_forward_jit(
            jnp.zeros((1, 1)), jnp.zeros((1, 1)), 0
        ).block_until_ready()

        return KernelResult(
            kernel_function=kernel,
            fast_forward_jit=fast_forward_jit,
            build_k_matrix=build_k_matrix,
        )

    @staticmethod
    def build_fast_jit_function_v2(name: str, config: dict, with_time: bool = None):
        # 這裡 config 是一個字典，所以要轉換成 tuple

        return Kernel.fast_build_jit_function(name, tuple(config.items()))



class SupportVectorMachine:
    def __init__(
        self,
        C: int,
        kernel_name: str = "linear",
        kernel_arg: dict = dict(),
        threshold: float = 1e-20,
    ):
        self._c = C
        self._threshold = threshold
        # like ("ay": ... , "x": ...,)
        self._a_y_x: jnp.ndarray = None
        self._b: float = None
        # self._kernel = Kernel.get_kernel(kernel_name, kernel_arg)
        self._kernel_info = {"name": kernel_name, "arg": kernel_arg}

        self.__kernel_result = Kernel.build_fast_jit_function_v2(
            kernel_name, kernel_arg, with_time=True
        )

        self._build_k_matrix = self.__kernel_result.build_k_matrix
        self._kernel = self.__kernel_result.kernel_function
        self._fast_forward_jit = self.__kernel_result.fast_forward_jit

        return

    @staticmethod
    def warm_up():
        ## jit warm up

        key = jax.random.PRNGKey(0)
        alpha = jax.random.uniform(key, (5,))
        support_vectors = jnp.array([0, 2, 4])
        y = jax.random.choice(key, jnp.array([-1.0, 1.0]), (5,))  # tolerate: JIT502
        K = jax.random.normal(key, (5, 5))  # tolerate: JIT502

        _ = SupportVectorMachine.__find_bias(
            alpha, support_vectors, y, K
        ).block_until_ready()

    @property
    def alpha(self) -> jnp.ndarray:
        return self._a_y_x[:, 0].reshape(-1, 1)

    @property
    def bias(self) -> jnp.ndarray:
        return self._b

    def _find_alpha(
        self, K: jnp.ndarray, x: jnp.ndarray, y: jnp.ndarray
    ) -> tuple[jnp.ndarray, jnp.ndarray]:
        size = x.shape[0]

        # stand-in for the cvxpy dual QP (maximise sum(alpha) - 1/2 alpha' (yy' * K) alpha, 0 <= alpha <= C)
        big_k = jnp.outer(y, y) * K
        alpha = jnp.zeros(size)
        for _ in range(100):
            alpha = jnp.clip(alpha + 0.05 * (1.0 - big_k @ alpha), 0.0, self._c)

        # filter the important one
        support_vectors = jnp.where((self._c >= alpha) & (alpha > self._threshold))[0]
        return alpha, support_vectors

    @staticmethod
    @jax.jit
    def __find_bias(
        alpha: jnp.ndarray,
        support_vectors: jnp.ndarray,
        y: jnp.ndarray,
        K: jnp.ndarray,
    ):
        K_hat = K[support_vectors][:, support_vectors]
        alpha_hat = alpha[support_vectors]
        y_hat = y[support_vectors]

        res = y_hat - K_hat @ (alpha_hat * y_hat)

        return jnp.mean(res)

    def train(
        self, x: Float[Array, "batch feature"], y: Float[Array, "batch 1"]
    ):  # [batch, feature]   [batch, 1]
        # get the a
        K = self._build_k_matrix(x)
        # print(K)
        alpha, support_vector = self._find_alpha(K, x, y)
        # find the best b
        self._b = SupportVectorMachine.__find_bias(alpha, support_vector, y, K)

        alpha, y = alpha.reshape(-1, 1), y.reshape(-1, 1)

        table = jnp.hstack((alpha, y, x))

        self._a_y_x = table[support_vector]

        return

    def __call__(self, x: jnp.ndarray, with_sign: bool = False) -> jnp.ndarray:
        # x [batch, feature]
        res = self._fast_forward_jit(self._a_y_x, x, self._b)

        if with_sign:
            res = jnp.sign(res)

        return res

    def acc(self, x: jnp.ndarray, y: jnp.ndarray) -> tuple[float, jnp.ndarray]:

        y_hat = self(x, True)

        return jnp.mean(y_hat == y), y_hat


if __name__ == "__main__":
    import logging
    from collections import Counter
    from itertools import combinations
    import numpy as np

    traced = Counter()

    class _CountTraces(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            if msg.startswith("Finished tracing ") and msg.endswith("sec"):
                traced[msg.split()[2]] += 1

    jax.config.update("jax_log_compiles", True)
    logging.getLogger("jax").addHandler(_CountTraces())
    logging.getLogger("jax").propagate = False

    rng = np.random.default_rng(0)
    centers = {"setosa": (0.0, 0.0), "versicolor": (3.0, 0.0), "virginica": (0.0, 3.0)}
    data = {c: rng.normal(m, 0.5, size=(8, 2)).astype(np.float32) for c, m in centers.items()}

    SupportVectorMachine.warm_up()
    # JSVM/MultiSupportVectorMachine.py: one SupportVectorMachine per class pair
    models = {}
    for pos, neg in combinations(centers, 2):
        x = jnp.asarray(np.vstack([data[pos], data[neg]]))
        y = jnp.asarray(np.r_[np.ones(8), -np.ones(8)].astype(np.float32))
        model = SupportVectorMachine(C=10, kernel_name="rbf", kernel_arg={"sigma": 2})
        model.train(x, y)
        acc, _ = model.acc(x, y)
        assert float(acc) > 0.9, acc
        models[(pos, neg)] = model

    print("traces per function:", dict(traced))
    assert traced["rbf_jit"] == 1, traced["rbf_jit"]
    assert traced["build_k_matrix"] == 2, traced["build_k_matrix"]  # warm-up shape + data shape
    n_sv_shapes = len({m._a_y_x.shape for m in models.values()})
    assert traced["fast_forward_jit"] <= 1 + n_sv_shapes, traced["fast_forward_jit"]  # only new shapes retrace
    print(f"OK: {len(models)} SVMs share one compiled set of kernel functions")
