# source: https://github.com/kazewong/flowMC/blob/d03432e66030f86524eb766f76031bc157e9ca9a/src/flowMC/strategy/take_steps.py
#   (TakeLocalSteps at commit d03432e, "It seems like TakeLocalSteps would recompile",
#   before 7eefc4c, "Turns out we don't have to complicate things to not recompile", and
#   fa16c10, which split the key; gathered here with the classes it uses at the same
#   commit: Resource (resource/base.py), LogPDF (resource/log_pdf.py), ProposalBase
#   (resource/local_kernel/base.py), MALA (resource/local_kernel/MALA.py), Buffer
#   (resource/buffers.py) and Strategy (strategy/base.py))
# observed on jax 0.10.2 CPU: every call of the strategy defines new `body` and `sample`
#   closures and filter_jits them, so a second call with the same shapes traces and
#   compiles again (MALA's "Compiling MALA body" prints twice); and the scan body hands
#   the same key to the kernel at every step, so each chain proposes the same noise and
#   draws the same acceptance uniform at every step: after its first rejection a chain
#   never moves again. Added: the __main__ block, which makes the two calls of the
#   project's test_take_local_MALA_step with a 20-step strategy.
# gap: per-call-recompile
from abc import ABC, abstractmethod
from typing import Callable, Self, TypeVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.stats import multivariate_normal
from jaxtyping import Array, Bool, Float, Int, PRNGKeyArray, PyTree


class Resource(ABC):

    """
    Base class for resources.
    Resources are objects such as local sampler and neural networks.

    This is an abstract template that should not be directly used.    
    """

    @abstractmethod
    def __init__(self):
        raise NotImplementedError
    
    @abstractmethod
    def print_parameters(self):
        """
        Function to print the tunable parameters of the resource.
        """
        raise NotImplementedError
    
    @abstractmethod
    def save_resource(self, path: str):
        """
        Function to save the resource.
        
        Args:
            path (str): Path to save the resource.
        """
        raise NotImplementedError
    
    @abstractmethod
    def load_resource(self, path: str) -> Self:
        """
        Function to load the resource.
        
        Args:
            path (str): Path to load the resource.
        """
        raise NotImplementedError


class LogPDF(Resource):
    def __init__(
        self,
        logpdf: Callable[[Float[Array, " n_dim"], dict], Float],
    ):
        """
        Initialize the sampler class
        """
        self.logpdf = logpdf

    def __call__(
        self,
        position: Float[Array, "nstep  n_dim"],
        data: dict,
    ) -> Float[Array, "nstep 1"]:
        """
        Kernel for one step in the proposal cycle.
        """
        return self.logpdf(position, data)
    
    def print_parameters(self):
        raise NotImplementedError

    def save_resource(self, path):
        raise NotImplementedError

    def load_resource(self, path) -> Self:
        raise NotImplementedError


@jax.tree_util.register_pytree_node_class
class ProposalBase(Resource):
    def __init__(
        self,
        **kwargs,
    ):
        """
        Initialize the sampler class
        """
        self.kwargs = kwargs

    @abstractmethod
    def kernel(
        self,
        rng_key: PRNGKeyArray,
        log_pdf: Callable[[Float[Array, " n_dim"], PyTree], Float[Array, "1"]],
        position: Float[Array, "nstep  n_dim"],
        log_prob: Float[Array, "nstep 1"],
        data: PyTree,
    ) -> tuple[
        Float[Array, "nstep  n_dim"], Float[Array, "nstep 1"], Int[Array, "n_step 1"]
    ]:
        """
        Kernel for one step in the proposal cycle.
        """

    def tree_flatten(self):
        children = ()

        aux_data = {"kwargs": self.kwargs}
        return (children, aux_data)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children, **aux_data)


class MALA(ProposalBase):
    """
    Metropolis-adjusted Langevin algorithm sampler clas
    builiding the mala_sampler method

    Args:
        logpdf: target logpdf function
        jit: whether to jit the sampler
        params: dictionary of parameters for the sampler
    """

    step_size: Float

    def __init__(
        self,
        step_size: Float,
    ):
        super().__init__()
        self.step_size = step_size

    def kernel(
        self,
        rng_key: PRNGKeyArray,
        log_pdf: Callable[[Float[Array, " n_dim"], PyTree], Float[Array, "1"]],
        position: Float[Array, " n_dim"],
        log_prob: Float[Array, "1"],
        data: PyTree,
    ) -> tuple[Float[Array, " n_dim"], Float[Array, "1"], Int[Array, "1"]]:
        """
        Metropolis-adjusted Langevin algorithm kernel.
        This is a kernel that only evolve a single chain.

        Args:
            rng_key (PRNGKeyArray): Jax PRNGKey
            position (Float[Array, " n_dim"]): current position of the chain
            log_prob (Float[Array, "1"]): current log-probability of the chain
            data (PyTree): data to be passed to the logpdf function

        Returns:
            position (Float[Array, " n_dim"]): new position of the chain
            log_prob (Float[Array, "1"]): new log-probability of the chain
            do_accept (Int[Array, "1"]): whether the new position is accepted
        """

        def body(
            carry: tuple[Float[Array, " n_dim"], float, dict],
            this_key: PRNGKeyArray,
        ) -> tuple[
            tuple[Float[Array, " n_dim"], float, dict],
            tuple[Float[Array, " n_dim"], Float[Array, "1"], Float[Array, " n_dim"]],
        ]:
            print("Compiling MALA body")  # tolerate: JIT203
            this_position, dt, data = carry
            dt2 = dt * dt
            this_log_prob, this_d_log = jax.value_and_grad(log_pdf)(this_position, data)
            proposal = this_position + jnp.dot(dt2, this_d_log) / 2
            proposal += jnp.dot(
                dt, jax.random.normal(this_key, shape=this_position.shape)
            )
            return (proposal, dt, data), (proposal, this_log_prob, this_d_log)

        key1, key2 = jax.random.split(rng_key)

        dt: Float = self.step_size
        dt2 = dt * dt

        _, (proposal, logprob, d_logprob) = jax.lax.scan(
            body, (position, dt, data), jnp.array([key1, key1])
        )

        ratio = logprob[1] - logprob[0]
        ratio -= multivariate_normal.logpdf(
            proposal[0], position + jnp.dot(dt2, d_logprob[0]) / 2, dt2
        )
        ratio += multivariate_normal.logpdf(
            position, proposal[0] + jnp.dot(dt2, d_logprob[1]) / 2, dt2
        )

        log_uniform = jnp.log(jax.random.uniform(key2))
        do_accept: Bool[Array, " n_dim"] = log_uniform < ratio

        position = jnp.where(do_accept, proposal[0], position)
        log_prob = jnp.where(do_accept, logprob[1], logprob[0])

        return position, log_prob, do_accept

    def print_parameters(self):
        print("MALA parameters:")
        print(f"step_size: {self.step_size}")

    def save_resource(self, path):
        pass

    def load_resource(self, path):
        raise NotImplementedError


TBuffer = TypeVar("TBuffer", bound="Buffer")

class Buffer(Resource):

    name: str
    buffer: np.ndarray
    current_position: int = 0

    @property
    def n_chains(self) -> int:
        return self.buffer.shape[0]
    
    @property
    def n_steps(self) -> int:
        return self.buffer.shape[1]
    
    @property
    def n_dims(self) -> int:
        return self.buffer.shape[2]

    def __init__(self, name: str, n_chains: int, n_steps: int, n_dims: int):
        self.name = name
        self.buffer = np.zeros((n_chains, n_steps, n_dims))
        self.current_position = 0

    def update_buffer(self, updates: Array, length: int, start: int = 0):
        self.buffer[:, start: start + length] = updates
        self.current_position = start + length

    def print_parameters(self):
        print(
            f"Buffer: {self.n_chains} chains, {self.n_steps} steps, {self.n_dims} dimensions"
        )

    def save_resource(self, path: str):
        np.savez(
            path + self.name,
            name=self.name,
            buffer=self.buffer,
        )

    def load_resource(self: TBuffer, path: str) -> TBuffer:
        data = np.load(path)
        buffer = data["buffer"]
        result = Buffer(data["name"], buffer.shape[0], buffer.shape[1], buffer.shape[2])
        result.buffer = buffer
        return result # type: ignore


class Strategy(ABC):
    """
    Base class for strategies, which are basically wrapper blocks that modify the state of the sampler

    This is an abstract template that should not be directly used.
    
    """

    @abstractmethod
    def __init__(self):
        raise NotImplementedError
    
    @abstractmethod
    def __call__(
        self,
        rng_key: PRNGKeyArray,
        resources: dict[str, Resource],
        initial_position: Float[Array, "n_chains n_dim"],
        data: dict,
    ) -> tuple[
        PRNGKeyArray,
        dict[str, Resource],
        Float[Array, "n_chains n_dim"],
    ]:
        raise NotImplementedError


class TakeLocalSteps(Strategy):

    kernel_name: str
    buffer_name: str
    n_steps: int
    thinning: int
    verbose: bool

    def __str__(self):
        return "Take " + str(self.n_steps) + " local steps with " + self.kernel_name

    def __init__(
        self,
        kernel_name: str,
        buffer_name: str,
        n_steps: int,
        thinning: int = 1,
        verbose: bool = False,
    ):
        self.kernel_name = kernel_name
        self.buffer_name = buffer_name
        self.n_steps = n_steps
        self.thinning = thinning
        self.verbose = verbose

    def __call__(
        self,
        rng_key: PRNGKeyArray,
        resources: dict[str, Resource],
        initial_position: Float[Array, "n_chains n_dim"],
        data: dict,
    ) -> tuple[
        PRNGKeyArray,
        dict[str, Resource],
        Float[Array, "n_chains n_dim"],
    ]:
        logpdf = resources['LogPDF']
        assert isinstance(logpdf, LogPDF), "LogPDF resource must be a LogPDF"
        logpdf = logpdf.logpdf
        kernel = resources[self.kernel_name]
        assert isinstance(kernel, ProposalBase), "Kernel resource must be a ProposalBase"
        buffer = resources[self.buffer_name]
        assert isinstance(buffer, Buffer), "Buffer resource must be a Buffer"

        def body(carry, data):
            key, position, log_prob = carry
            position, log_prob, do_accept = kernel.kernel(key, logpdf, position, log_prob, data)  # expect: JIT502
            return (key, position, log_prob), (position, log_prob, do_accept)

        def sample(rng_key, initial_position, data):
            (last_key, last_position, last_log_prob), (positions, log_probs, do_accepts) = jax.lax.scan(body, (rng_key, initial_position, logpdf(initial_position, data)), length=self.n_steps)
            return positions, log_probs, do_accepts

        positions, log_probs, do_accepts = eqx.filter_jit(eqx.filter_vmap(sample, in_axes=(0, 0, None)))(rng_key, initial_position, data)  # expect: JIT301

        buffer.update_buffer(positions, self.n_steps, buffer.current_position)

  
        return rng_key, resources, positions


if __name__ == "__main__":
    import contextlib
    import io

    import jax.monitoring

    def log_posterior(x, data={}):
        return -0.5 * jnp.sum(x**2)

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    n_steps = 20
    PDF_resource = LogPDF(log_posterior)
    buffer_resource = Buffer("test_buffer", 5, 2 * n_steps, 2)
    kernel = MALA(1.0)
    resources = {
        "LogPDF": PDF_resource,
        "test_buffer": buffer_resource,
        "MALA": kernel,
    }
    strategy = TakeLocalSteps("MALA", "test_buffer", n_steps, 1)

    printed = io.StringIO()
    counts = []
    with contextlib.redirect_stdout(printed):
        for seed in (42, 43):
            before = len(compiles)
            _, _, positions = strategy(rng_key=jax.random.split(jax.random.PRNGKey(seed), 5), resources=resources, initial_position=jax.random.normal(jax.random.PRNGKey(seed), shape=(5, 2)), data={})
            counts.append(len(compiles) - before)
    # observed: line 361 filter_jits a new closure on every call of the strategy: the second
    # call, with the same shapes, compiles again and traces the MALA body again
    assert counts[0] > 0 and counts[1] > 0, counts
    assert printed.getvalue().count("Compiling MALA body") == 2
    # observed: line 354 hands the one key of a chain to every step of the scan: a chain
    # makes the same move while it is accepted and never moves after its first rejection
    positions = jnp.asarray(buffer_resource.buffer[:, n_steps:])
    moves = jnp.diff(positions, axis=1)
    moved = jnp.any(moves != 0, axis=-1)
    assert not jnp.any(moved[:, 1:] & ~moved[:, :-1])
    assert not jnp.all(moved)
