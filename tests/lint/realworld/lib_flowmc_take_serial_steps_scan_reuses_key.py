# source: https://github.com/kazewong/flowMC/blob/3b1c04ccd3dffbc265fb973e909510d806d44bda/src/flowMC/strategy/take_steps.py
#   (TakeSerialSteps before commit fa16c10, "Caught a critical bug of keys not propagating
#   right"; gathered here with the classes it uses at the same commit: Resource
#   (resource/base.py), ProposalBase (resource/local_kernel/base.py), GaussianRandomWalk
#   (resource/local_kernel/Gaussian_random_walk.py), Buffer (resource/buffers.py) and
#   Strategy (strategy/base.py); TakeGroupSteps and StrategiesBundle are left out)
# observed on jax 0.10.2 CPU: the scan body hands the same carried key to the kernel at
#   every step and returns it unchanged, so every step of a chain proposes the same
#   Gaussian move and draws the same acceptance uniform: a chain repeats one move while
#   it is accepted and, after its first rejection, stays where it is for the rest of the
#   run. Added: the __main__ block (a 2-d standard Gaussian posterior).
# gap: other
from abc import ABC, abstractmethod
from typing import Callable, Self, TypeVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float, Int, PRNGKeyArray, PyTree


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


class GaussianRandomWalk(ProposalBase):
    """
    Gaussian random walk sampler class.

    """

    step_size: Float

    def __repr__(self):
        return "Gaussian Random Walk with step size " + str(self.step_size)

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
        Random walk gaussian kernel.
        This is a kernel that only evolve a single chain.

        Args:
            rng_key (PRNGKeyArray): Jax PRNGKey
            position (Float[Array, "n_dim"]): current position of the chain
            log_prob (Float[Array, "1"]): current log-probability of the chain
            data (PyTree): data to be passed to the logpdf function

        Returns:
            position (Float[Array, "n_dim"]): new position of the chain
            log_prob (Float[Array, "1"]): new log-probability of the chain
            do_accept (Int[Array, "1"]): whether the new position is accepted
        """

        key1, key2 = jax.random.split(rng_key)
        move_proposal: Float[Array, "n_dim"] = (
            jax.random.normal(key1, shape=position.shape) * self.step_size
        )

        proposal = position + move_proposal
        proposal_log_prob: Float[Array, "n_dim"] = log_pdf(proposal, data)

        log_uniform = jnp.log(jax.random.uniform(key2))
        do_accept = log_uniform < proposal_log_prob - log_prob

        position = jnp.where(do_accept, proposal, position)
        log_prob = jnp.where(do_accept, proposal_log_prob, log_prob)
        return position, log_prob, do_accept

    def print_parameters(self):
        print("Gaussian Random Walk parameters:")
        print("Step size: ", self.step_size)

    
    def save_resource(self, path):
        pass
    
    def load_resource(self, path):
        raise NotImplementedError


TBuffer = TypeVar("TBuffer", bound="Buffer")

class Buffer(Resource):

    name: str
    buffer: Float[Array, "n_chains n_steps n_dims"]
    current_position: int = 0

    def __repr__(self):
        return str(self.buffer)

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
        self.buffer = jnp.zeros((n_chains, n_steps, n_dims)) - jnp.inf

    def __call__(self):
        return self.buffer
    
    def update_buffer(self, updates: Array, length: int, start: int = 0):
        self.buffer = self.buffer.at[:, start: start + length].set(updates)

    def print_parameters(self):
        print(
            f"Buffer: {self.n_chains} chains, {self.n_steps} steps, {self.n_dims} dimensions"
        )

    def get_distribution(self, n_bins: int = 100):
        assert self.n_dims == 1, "Only 1D buffers are supported for now"
        return np.histogram(self.buffer.flatten(), bins=n_bins)

    def save_resource(self, path: str):
        np.savez(
            path + self.name,
            name=self.name,
            buffer=self.buffer,
        )

    def load_resource(self: TBuffer, path: str) -> TBuffer:
        data = np.load(path)
        buffer: Float[Array, "n_chains n_steps n_dims"] = data["buffer"]
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


class TakeSteps(Strategy):
    logpdf: Callable[[Float[Array, " n_dim"], dict], Float]
    kernel_name: str
    buffer_names: list[str]
    n_steps: int
    current_position: int
    thinning: int
    verbose: bool

    def __init__(
        self,
        logpdf: Callable[[Float[Array, " n_dim"], dict], Float],
        kernel_name: str,
        buffer_names: list[str],
        n_steps: int,
        thinning: int = 1,
        verbose: bool = False,
    ):
        self.logpdf = logpdf
        self.kernel_name = kernel_name
        self.buffer_names = buffer_names
        self.n_steps = n_steps
        self.current_position = 0
        self.thinning = thinning
        self.verbose = verbose

    @abstractmethod
    def sample(
        self,
        kernel: ProposalBase,
        rng_key: PRNGKeyArray,
        initial_position: Float[Array, " n_dim"],
        data: dict,
    ):
        raise NotImplementedError
    
    def set_current_position(self, current_position: int):
        self.current_position = current_position

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
        rng_key, subkey = jax.random.split(rng_key)
        subkey = jax.random.split(subkey, initial_position.shape[0])
        position_buffer = resources[self.buffer_names[0]]
        assert isinstance(
            position_buffer, Buffer
        ), "Position buffer resource must be a Buffer"
        log_prob_buffer = resources[self.buffer_names[1]]
        assert isinstance(
            log_prob_buffer, Buffer
        ), "Log probability buffer resource must be a Buffer"
        acceptance_buffer = resources[self.buffer_names[2]]
        assert isinstance(
            acceptance_buffer, Buffer
        ), "Acceptance buffer resource must be a Buffer"

        kernel = resources[self.kernel_name]

        # Filter jit will bypass the compilation of the function if not clearing the cache
        positions, log_probs, do_accepts = eqx.filter_jit( 
            eqx.filter_vmap(jax.tree_util.Partial(self.sample, kernel), in_axes=(0, 0, None))
        )(subkey, initial_position, data)

        positions = positions[:, :: self.thinning]
        log_probs = log_probs[:, :: self.thinning][..., None]
        do_accepts = do_accepts[:, :: self.thinning][..., None]

        position_buffer.update_buffer(positions, self.n_steps // self.thinning, self.current_position)
        log_prob_buffer.update_buffer(log_probs, self.n_steps // self.thinning, self.current_position)
        acceptance_buffer.update_buffer(do_accepts, self.n_steps // self.thinning, self.current_position)
        self.current_position += self.n_steps // self.thinning
        return rng_key, resources, positions[:,-1]

class TakeSerialSteps(TakeSteps):
    
    """
    TakeSerialSteps is a strategy that takes a number of steps in a serial manner, i.e. one after the other.
    This uses jax.lax.scan to iterate over the steps and apply the kernel to the current position.
    This is intended to be used for most local kernels that are dependent on the previous step.
    """

    def body(self, kernel, carry, aux):
        key, position, log_prob, data = carry
        position, log_prob, do_accept = kernel.kernel(  # expect: JIT502
            key, self.logpdf, position, log_prob, data
        )
        return (key, position, log_prob, data), (position, log_prob, do_accept)

    def sample(
        self,
        kernel: ProposalBase,
        rng_key: PRNGKeyArray,
        initial_position: Float[Array, " n_dim"],
        data: dict,
    ):
        (last_key, last_position, last_log_prob, data), (positions, log_probs, do_accepts) = (
            jax.lax.scan(
                jax.tree_util.Partial(self.body, kernel),
                (rng_key, initial_position, self.logpdf(initial_position, data), data),
                length=self.n_steps,
            )
        )
        return positions, log_probs, do_accepts


if __name__ == "__main__":
    def log_posterior(x, data):
        return -0.5 * jnp.sum(x ** 2)

    n_chains, n_steps, n_dim = 4, 50, 2
    resources = {
        "positions": Buffer("positions", n_chains, n_steps, n_dim),
        "log_prob": Buffer("log_prob", n_chains, n_steps, 1),
        "acceptance": Buffer("acceptance", n_chains, n_steps, 1),
        "GRW": GaussianRandomWalk(step_size=0.3),
    }
    strategy = TakeSerialSteps(
        log_posterior, "GRW", ["positions", "log_prob", "acceptance"], n_steps
    )
    key = jax.random.PRNGKey(0)
    initial_position = jax.random.normal(jax.random.PRNGKey(1), (n_chains, n_dim))
    key, resources, last = strategy(key, resources, initial_position, {})
    positions = resources["positions"].buffer
    accepted = resources["acceptance"].buffer[..., 0] > 0
    # observed: line 346 passes one key to every step of the scan: each chain proposes
    # the same move with the same acceptance draw at every step, so it walks in a straight
    # line while that move is accepted and, after its first rejection, never moves again
    for c in range(n_chains):
        acc = accepted[c]
        assert not jnp.any(acc[1:] & ~acc[:-1])  # no acceptance after a rejection
        steps = jnp.diff(jnp.concatenate([initial_position[c][None], positions[c]]), axis=0)
        moves = steps[acc]
        if moves.shape[0] > 0:
            assert jnp.allclose(moves, moves[0])
        assert jnp.all(steps[~acc] == 0)
    assert int(accepted.sum()) < n_chains * n_steps // 2
