# source: https://github.com/RPegoud/neat-jax/blob/1e7a7cf1a2e3f36f3199b9467dd3e51aa5b1f662/neat_jax/mutations.py
# observed on jax 0.10.2 CPU: runs without error, but add_node, add_connection and activation_fn_mutation each draw the "should I mutate" coin with jax.random.uniform(key) and then hand the same key to the mutation itself; in add_connection the new weight is jax.random.normal(key), a monotone function of the coin, so with add_connection_rate=0.5 every added connection gets a negative weight
# gap: flow-sensitive
# observed: line 353 add_node: the key whose uniform draw decided the mutation is split again inside _mutate_fn
# observed: line 487 add_connection: the key whose uniform draw decided the mutation is split again inside _mutate_fn
# observed: line 494 add_connection: the same key is drawn again by jax.random.normal for the new weight; with add_connection_rate=0.5 every added weight is negative
# observed: line 548 activation_fn_mutation: the key whose uniform draw decided the mutation is split again inside _mutate_fn
# (added: the Network/ActivationState dataclasses of neat_jax/neat_dataclasses.py, activation_fns_list of neat_jax/activation_fns.py and sample_from_mask of neat_jax/utils/utils.py (its `random.choice` spelled `jax.random.choice`) at the same commit, copied in place of the package imports;
#  a stand-in for neat_jax.nn.update_depth, whose branch lax.cond traces but never takes here because outdated_depths is False;
#  a __main__ block that builds the 10-node network of tests/test_mutations.py and records, through jax.debug.callback, which key each jax.random call receives; it hands one key to each mutation in turn, lines 650 and 666, which JAX's key-reuse checker names: tolerated)
from functools import partial

import chex
import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class Network:
    """
    Stores data relative to a Neat Network's topology.

    Attributes:
        node_indices (chex.Array): Index of each node
        node_types (chex.Array): Type of each node:
        ```
        - 0: Input node
        - 1: Hidden node
        - 2: Output node
        - 3: Disabled or uninitialized node
        ```

        activation_fns (chex.Array): Mapping index of the activation function used
        by node `i`:

        ```python
        0: jnp.float32(x) # identity function
        1: 1 / (1 + jnp.exp(-x)),  # sigmoid
        2: jnp.divide(1, x),  # inverse
        3: jnp.sinh(x) / jnp.cosh(x),  # hyperbolic cosine
        4: jnp.float32(jnp.maximum(0, x)),  # relu
        5: jnp.float32(jnp.abs(x)),  # absolute value
        6: jnp.sin(x),  # sine
        7: jnp.exp(jnp.square(-x)),  # gaussian
        8: jnp.float32(jnp.sign(x)),  # step
        ```
        edges (chex.Array): Weight of the connection between sender and receiver `i`
        senders (chex.Array): Array of node indices used as inputs to receiver nodes
        receivers (chex.Array): Array of node indices used as outputs to sender nodes
    """

    input_size: int
    output_size: int
    max_nodes: int
    node_indices: chex.Array
    node_types: chex.Array
    activation_fns: chex.Array
    senders: chex.Array
    receivers: chex.Array
    weights: chex.Array

    def __repr__(self) -> str:
        for atr in Network.__dataclass_fields__.keys():
            print(f"{atr}: {self.__getattribute__(atr)}")
        return ""

    @property
    def n_nodes(self) -> int:
        return len(self.node_indices)

    @property
    def n_enabled_connections(self) -> jnp.int32:
        return jnp.int32(sum(self.senders > 0))

    @property
    def n_enabled_nodes(
        self,
    ) -> jnp.int32:
        return jnp.max(jnp.concatenate([self.senders, self.receivers]))

    @property
    def node_type_counts(self) -> chex.Array:
        return jnp.bincount(self.node_types, length=4)


@struct.dataclass
class ActivationState:
    """
    Stores the data related to the network state at runtime.

    Attributes:
        values (chex.Array): Current node activation values
        toggled (chex.Array): Boolean array indicating which neurons should
        fire at the next step
        activation_counts (chex.Array): Number of times each node received an activation
        node_depths (chex.Array): Depth of each node in the network, used to add new connections in
        topological order (and avoid recurrent connections)
        input_mappings (chex.Array): An array of size `max_nodes` where the n-th element points to
        outdated_depths (bool, Optional): Boolean flag indicating whether `node_depths` is up to date
        for the current network topology, usually set to `True` when a mutation adds an edge or a node
    """

    values: chex.Array
    toggled: chex.Array
    activation_counts: chex.Array
    has_fired: chex.Array
    node_depths: chex.Array
    outdated_depths: bool = True

    def __repr__(self) -> str:
        for atr in ActivationState.__dataclass_fields__.keys():
            print(f"{atr}: {self.__getattribute__(atr)}")
        return ""


activation_fns_list = [
    lambda x: jnp.float32(x),  # identity
    lambda x: 1 / (1 + jnp.exp(-x)),  # sigmoid
    lambda x: jnp.divide(1, x),  # inverse
    lambda x: jnp.sinh(x) / jnp.cosh(x),  # hyperbolic cosine
    lambda x: jnp.float32(jnp.maximum(0, x)),  # relu
    lambda x: jnp.float32(jnp.abs(x)),  # absolute value
    lambda x: jnp.sin(x),  # sine
    lambda x: jnp.exp(jnp.square(-x)),  # gaussian
    lambda x: jnp.float32(jnp.sign(x)),  # step
]


def sample_from_mask(
    key: jax.random.PRNGKey,
    mask: jnp.ndarray,
    indices: jnp.ndarray,
) -> jnp.ndarray:
    """
    Samples an index uniformly given a masked array.
    """
    return jax.random.choice(key, indices * mask, p=mask / mask.sum())


def update_depth(activation_state, net, max_nodes):  # stand-in for neat_jax.nn.update_depth
    return activation_state


@struct.dataclass
class Mutations:
    max_nodes: int
    weight_shift_rate: jnp.float32
    weight_mutation_rate: jnp.float32
    add_node_rate: jnp.float32
    add_connection_rate: jnp.float32
    activation_fn_mutation_rate: jnp.float32

    @partial(jax.jit, static_argnames=("self", "scale_weights"))
    def weight_shift(
        self, key: jax.random.PRNGKey, net: Network, scale_weights: float = 0.1
    ) -> Network:
        """
        Shifts the network's weights by a small value sampled from the normal distribution.

        Args:
            net (Network): The network to shift weights from
            key (jax.random.PRNGKey): The random key used to sample from the normal distribution
            scale (float): A scaling factor applied to the sampled values. By default, ``0.1``
            adjusts the standard deviation of the distribution to be ``0.01``

        Returns:
            Network: The network with updated weights
        """

        def _single_shift(
            weight: jnp.float32,
            epsilon: jnp.float32,
            mutate: jnp.bool_,
        ) -> jnp.float32:
            """
            Updates a single weight with a probability of `weight_shift_rate`.
            Unitialized weights (i.e. with a value of 0) are ignored.
            """

            def _shift(val: tuple):
                weight, epsilon = val
                return weight + epsilon

            def _bypass(val: tuple):
                weight, _ = val
                return jnp.float32(weight)

            return jax.lax.cond(
                jnp.logical_and(mutate, weight != 0),
                _shift,
                _bypass,
                operand=(weight, epsilon),
            )

        eps_key, mutate_key = jax.random.split(key, num=2)
        epsilons = jax.random.normal(eps_key, shape=(self.max_nodes,)) * scale_weights
        mutate_i = (
            jax.random.uniform(mutate_key, shape=(self.max_nodes,))
            < self.weight_shift_rate
        )
        shifted_weights = jax.vmap(_single_shift)(net.weights, epsilons, mutate_i)
        return net.replace(weights=shifted_weights)

    @partial(jax.jit, static_argnums=(0))
    def weight_mutation(
        self, key: jax.random.PRNGKey, net: Network, scale_weights: float = 0.1
    ) -> Network:
        """
        Randomly mutates connections from the network by sampling new weights from the normal distribution.

        Args:
            net (Network): The network to mutate
            key (jax.random.PRNGKey): The random key used to sample from the normal distribution
            scale (float): A scaling factor applied to the sampled values. By default, ``0.1``
            adjusts the standard deviation of the distribution to be ``0.01``

        Returns:
            Network: The network with updated weights
        """

        def _single_mutation(
            weight: jnp.float32,
            new_value: jnp.float32,
            mutate: jnp.bool_,
        ) -> jnp.float32:
            """
            Updates a single weight with a probability of `weight_mutation_rate`.
            Unitialized weights (i.e. with a value of 0) are ignored.
            """

            def _mutate(val: tuple):
                _, new_value = val
                return new_value

            def _bypass(val: tuple):
                weight, _ = val
                return jnp.float32(weight)

            return jax.lax.cond(
                jnp.logical_and(mutate, weight != 0),
                _mutate,
                _bypass,
                operand=(weight, new_value),
            )

        sample_key, mutate_key = jax.random.split(key, num=2)
        new_values = (
            jax.random.normal(sample_key, shape=(self.max_nodes,)) * scale_weights
        )
        mutate_i = (
            jax.random.uniform(mutate_key, shape=(self.max_nodes,))
            < self.weight_mutation_rate
        )
        mutated_weights = jax.vmap(_single_mutation)(net.weights, new_values, mutate_i)
        return net.replace(weights=mutated_weights)

    @partial(jax.jit, static_argnames=("self", "scale_weights"))
    def add_node(
        self,
        key: chex.PRNGKey,
        net: Network,
        scale_weights: float = 0.1,
    ) -> Network:
        """
        Inserts a new node in the network by splitting an existing connection.
        In practice, an existing `sender -> receiver` connection is replaced by
        `sender -> new_node` & `new_node -> receiver`.

        Args:
            net (Network): The network to mutate

            key (jax.random.PRNGKey): Random key used to:
                ```
                * Sample the connection to split
                * Sample weights for new sub connections
                * Sample an activation function for the new node
                ```
            scale_weight (float, optional): The constant used to scale weights sampled from the
            normal distribution

        Returns:
            Network: The mutated network with updated fields
            ActivationState: The ActivationState with updated `input_indices` if the mutated connection
            had an input node as sender.
        """

        def _mutate_fn(
            net: Network,
            key: chex.PRNGKey,
            scale_weights: float,
        ) -> Network:
            """Applies the mutation function."""

            node_key, weight_key = jax.random.split(key, num=2)
            new_node_index = net.n_enabled_nodes + 1

            # sample a connection to modify
            valid_senders = jnp.int32(net.node_types < 2)  # input and hidden nodes
            selected = jax.random.choice(
                node_key,
                jnp.arange(self.max_nodes) * valid_senders,
                p=valid_senders / valid_senders.sum(),
            )

            selected_sender = net.senders[selected]
            selected_receiver = net.receivers[selected]

            senders = net.senders.at[selected].mul(-1)
            receivers = net.receivers.at[selected].mul(-1)

            # determine where to append the new connection
            connection_pos = jnp.int32(
                jnp.where(net.senders == -self.max_nodes, size=1)[0][0]
            )

            # add sender -> new_node and new_node -> receiver connections
            senders = senders.at[connection_pos].set(selected_sender)
            senders = senders.at[connection_pos + 1].set(new_node_index)
            receivers = receivers.at[connection_pos].set(new_node_index)
            receivers = receivers.at[connection_pos + 1].set(selected_receiver)

            # declare new node as hidden node (1)
            node_types = net.node_types.at[new_node_index].set(1)

            # initialize new weights, disable old sender -> receiver connection
            new_weights = jax.random.normal(weight_key, shape=(2,)) * scale_weights
            weights = net.weights.at[
                jnp.array([connection_pos, connection_pos + 1])
            ].set(new_weights)
            weights = weights.at[selected].set(0)

            activation_fns = net.activation_fns.at[connection_pos].set(0)

            return net.replace(
                senders=senders,
                receivers=receivers,
                weights=weights,
                node_types=node_types,
                activation_fns=activation_fns,
            )

        def _bypass_fn(net: Network, *args) -> Network:
            """Bypasses the mutation function depending on the `mutate` flag."""
            return net

        can_add_node = (
            sum(net.senders == -self.max_nodes) >= 2
        )  # we need at least two uninitialized node
        mutate = jax.random.uniform(key) < self.add_node_rate
        net = jax.lax.cond(
            jnp.logical_and(mutate, can_add_node),
            lambda _: _mutate_fn(net, key, scale_weights),  # expect: JIT502
            lambda _: _bypass_fn(net),
            operand=None,
        )

        return net

    @partial(jax.jit, static_argnames=("self", "scale_weights"))
    def add_connection(
        self,
        key: jax.random.PRNGKey,
        net: Network,
        activation_state: ActivationState,
        scale_weights: float = 0.1,
    ) -> tuple[Network, ActivationState]:
        """
        Samples a new connection between nodes, ensuring it adheres to network topology order
        (i.e. the depth of the sender is lower than the depth of the receiver).

        Args:
            key (jax.jax.random.PRNGKey): A PRNG key used for random operations.
            net (Network): The current state of the network, containing node types and connections.
            activation_state (ActivationState): The current activation state of the network, including node depths.
            max_nodes (int): The maximum number of nodes in the network, used for defining array sizes.

        Returns:
            Network: The mutated network with a new connection
            ActivationState: The activation state of the network with updated node depths
        """

        def _mutate_fn(
            key: jax.random.PRNGKey,
            net: Network,
            activation_state: ActivationState,
        ) -> tuple[jnp.int32, jnp.int32, ActivationState]:
            """
            Samples a new connection to be added to the network, ensuring it complies with
            topological order.
            """
            node_key, receiver_key = jax.random.split(key, num=2)

            # connections can only be added to input and hidden nodes
            valid_senders = jnp.int32(net.node_types < 2)
            selected_sender = jax.random.choice(
                node_key,
                jnp.arange(self.max_nodes),
                p=valid_senders / valid_senders.sum(),  # uniform sampling
            )

            # conditionally compute node depths if current values are outdated
            activation_state = jax.lax.cond(
                activation_state.outdated_depths,
                lambda _: update_depth(activation_state, net, self.max_nodes),
                lambda _: activation_state,
                operand=(None),
            )
            node_depths = activation_state.node_depths
            selected_depth = node_depths.at[selected_sender].get()

            # receivers that are already linked with the selected sender
            existing_receivers = net.receivers * jnp.int32(
                net.senders == selected_sender
            )
            compatible_receivers = jnp.int32(node_depths > selected_depth) * jnp.arange(
                self.max_nodes
            )

            # receiver indices with higher depths than selected sender and no prior connection
            receiver_candidates = jnp.setdiff1d(
                compatible_receivers, existing_receivers, size=self.max_nodes
            )
            receiver_candidates_mask = jnp.sign(receiver_candidates)

            selected_receiver = jax.random.choice(
                receiver_key,
                receiver_candidates,
                p=(
                    receiver_candidates_mask / receiver_candidates_mask.sum()
                ),  # uniform sampling
            )

            return selected_sender, selected_receiver, activation_state

        def _bypass_mutate_fn(*args):
            return (
                jnp.int32(0),
                jnp.int32(0),
                activation_state,
            )

        def _apply_mutation_fn(
            key: jax.random.PRNGKey,
            selected_sender: jnp.ndarray,
            selected_receiver: jnp.ndarray,
            net: Network,
            scale_weights: float = 0.1,
        ) -> Network:
            """
            Adds the sampled connection to the network topology.

            This function is bypassed if the sampled receiver is equal to 0 (i.e., if no valid
            index could be sampled).
            """
            # determine where to append the new connection
            connection_pos = jnp.int32(
                jnp.min(
                    jnp.where(
                        net.senders == -self.max_nodes,
                        size=self.max_nodes,
                        fill_value=jnp.inf,
                    )[0]
                )
            )

            # add new connection
            senders = net.senders.at[connection_pos].set(selected_sender)
            receivers = net.receivers.at[connection_pos].set(selected_receiver)

            # initialize new weights, disable old sender -> receiver connection
            new_weight = jax.random.normal(key) * scale_weights
            weights = net.weights.at[jnp.array([connection_pos])].set(new_weight)

            return net.replace(
                senders=senders,
                receivers=receivers,
                weights=weights,
            )

        def _bypass_apply_mutation(*args):
            return net

        mutate = jax.random.uniform(key) < self.add_connection_rate
        selected_sender, selected_receiver, activation_state = jax.lax.cond(
            mutate,
            lambda _: _mutate_fn(key, net, activation_state),  # expect: JIT502
            lambda _: _bypass_mutate_fn(),
            operand=None,
        )

        net = jax.lax.cond(
            selected_receiver > 0,  # if no receiver was sampled
            lambda _: _apply_mutation_fn(  # expect: JIT502
                key, selected_sender, selected_receiver, net, scale_weights
            ),
            lambda _: _bypass_apply_mutation(),
            operand=None,
        )

        return net, activation_state

    def activation_fn_mutation(self, key: chex.PRNGKey, net: Network) -> Network:
        """
        Mutates the activation function of a randomly selected node in the network.

        This function selects a random node from the hidden and output nodes and assigns it a new activation
        function that is different from its current one.

        Args:
            key (chex.PRNGKey): A PRNG key used for random operations.
            net (Network): The current state of the network.

        Returns:
            Network: The mutated network with an updated activation function for a selected node, if the mutation occurs.
        """

        def _mutate_fn(val: tuple) -> Network:
            key, net = val
            mutation_selector, mutation_rng = jax.random.split(key)

            # sample a node to mutate from hidden and output nodes (type 1 & 2)
            node_selection_mask = jnp.int32(jnp.isin(net.node_types, jnp.array([1, 2])))
            node_to_mutate = sample_from_mask(
                mutation_selector, node_selection_mask, net.node_indices
            )

            # sample an activation function index for the mutation
            valid_activation_fns = jnp.arange(len(activation_fns_list))
            current_activation_fn = net.activation_fns[node_to_mutate]
            possible_fn_mask = jnp.int32(valid_activation_fns != current_activation_fn)
            new_activation_fn = sample_from_mask(
                mutation_rng, possible_fn_mask, valid_activation_fns
            )

            # update the network
            updated_activation_fns = net.activation_fns.at[node_to_mutate].set(
                new_activation_fn
            )

            return net.replace(activation_fns=updated_activation_fns)

        def _bypass(val: tuple) -> Network:
            _, net = val
            return net

        mutate = jax.random.uniform(key) < self.activation_fn_mutation_rate
        net = jax.lax.cond(mutate, _mutate_fn, _bypass, operand=(key, net))  # expect: JIT502

        return net

    def mutate(
        self,
        key: jax.random.PRNGKey,
        net: Network,
        activation_state: ActivationState,
        scale_weights: float = 0.1,
    ) -> tuple[Network, ActivationState]:
        """
        Applies a series of mutations to the network, including weight mutations, node addition,
        connection addition, and activation function mutation.

        This function sequentially applies different types of mutations to the network, each controlled by
        a separate random key. It updates the network weights, adds new nodes and connections, and mutates
        the activation functions of selected nodes.

        Args:
            key (jax.random.PRNGKey): A PRNG key used for random operations.
            net (Network): The current state of the network.
            activation_state (ActivationState): The current activation state of the network.
            scale_weights (float, optional): A scaling factor for weight mutations and shifts. Defaults to 0.1.

        Returns:
            tuple[Network, ActivationState]: The mutated network and updated activation state.
        """

        w_mutation_key, w_shift_key, node_key, connection_key, activation_key = (
            jax.random.split(key, num=5)
        )

        net = self.weight_mutation(w_mutation_key, net, scale_weights)
        net = self.weight_shift(w_shift_key, net, scale_weights)
        net = self.add_node(node_key, net, scale_weights)
        net, activation_state = self.add_connection(
            connection_key, net, activation_state, scale_weights
        )
        net = self.activation_fn_mutation(activation_key, net)

        return net, activation_state


if __name__ == "__main__":
    import numpy as np

    # harness: record which key data each jax.random.uniform/split/normal call of the code above receives
    seen = []
    _orig = {name: getattr(jax.random, name) for name in ("uniform", "split", "normal")}

    def _recording(name):
        def wrapper(key, *args, **kwargs):
            jax.debug.callback(
                lambda k: seen.append((name, tuple(np.asarray(k).ravel().tolist()))),
                jax.random.key_data(key),
            )
            return _orig[name](key, *args, **kwargs)

        return wrapper

    for _name in _orig:
        setattr(jax.random, _name, _recording(_name))

    max_nodes = 10  # the topology of tests/test_mutations.py
    pad = jnp.full(6, -max_nodes)
    net = Network(
        input_size=3,
        output_size=1,
        max_nodes=max_nodes,
        node_indices=jnp.arange(max_nodes),
        node_types=jnp.array([0, 0, 0, 2, 1, 3, 3, 3, 3, 3]),
        activation_fns=jnp.zeros(max_nodes, dtype=jnp.int32),
        senders=jnp.concatenate([jnp.array([0, 1, 2, 4]), pad]),
        receivers=jnp.concatenate([jnp.array([4, 4, 3, 3]), pad]),
        weights=jnp.concatenate([jnp.ones(4), jnp.zeros(6)]),
    )
    state = ActivationState(
        values=jnp.zeros(max_nodes),
        toggled=jnp.zeros(max_nodes, dtype=jnp.int32),
        activation_counts=jnp.zeros(max_nodes, dtype=jnp.int32),
        has_fired=jnp.zeros(max_nodes, dtype=jnp.int32),
        node_depths=jnp.array([0, 0, 0, 2, 1, 0, 0, 0, 0, 0]),
        outdated_depths=False,
    )

    def mutations(rate):
        return Mutations(max_nodes, rate, rate, rate, rate, rate)

    def keys_of(name):
        return {k for n, k in seen if n == name}

    certain = mutations(1.0)
    key = jax.random.key(0)

    seen.clear()
    jax.block_until_ready(certain.add_node(key, net))
    jax.effects_barrier()
    assert keys_of("uniform") & keys_of("split"), seen
    print("observed: line 353 add_node splits the key its coin was drawn from")

    seen.clear()
    jax.block_until_ready(certain.add_connection(key, net, state))  # tolerate: JIT502
    jax.effects_barrier()
    coin = keys_of("uniform")
    assert coin & keys_of("split"), seen
    print("observed: line 487 add_connection splits the key its coin was drawn from")
    assert coin & keys_of("normal"), seen
    half = mutations(0.5)
    added = []
    for k in _orig["split"](jax.random.key(1), 64):
        new_net, _ = half.add_connection(k, net, state)
        if int(new_net.senders[4]) != -max_nodes:
            added.append(float(new_net.weights[4]))
    assert added and all(w < 0 for w in added), added
    print("observed: line 494 normal(key) reuses the coin's key: all %d added weights are negative" % len(added))

    seen.clear()
    jax.block_until_ready(certain.activation_fn_mutation(key, net))  # tolerate: JIT502
    jax.effects_barrier()
    assert keys_of("uniform") & keys_of("split"), seen
    print("observed: line 548 activation_fn_mutation splits the key its coin was drawn from")
