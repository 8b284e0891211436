# source: https://github.com/maxencefaldor/cax/issues/17
#   (the cell of cax's examples/00_getting_started.ipynb the reporter ran; the library code
#   is cax at commit 5954188798d68ae5997ba5a4e0ac539197c0155d, the notebook's version then)
# observed on jax 0.10.2 CPU: with flax 0.12.8, the Life CA runs 128 steps under its nnx.jit
#   __call__ (an nnx.scan over nnx.jit step); then `jax.vmap(ca.render)` calls the nnx.jit
#   method `render` inside a jax.vmap trace with `self` = ca, a module from outside that
#   trace: nnx refuses to write its state back across trace levels and raises
#   TraceContextError "Cannot mutate Param from a different trace level" on the vmap line.
#   The maintainer's fix (cax#16, commit 9d523a2) passes ca through nnx.vmap instead.
# gap: other
# added: the imports; the library modules the notebook imports from cax (types.Rule, the
#   kernels identity_kernel/neighbors_kernel, utils.clip_and_uint8, Perceive, ConvPerceive,
#   Update, CA, LifePerceive, LifeUpdate, Life), pasted in dependency order with their own
#   imports dropped; the notebook's cells under __main__, without the pip installs and
#   mediapy.show_video.
from collections.abc import Callable
from functools import partial
from typing import Any, TypeAlias

import jax
import jax.numpy as jnp
from flax import nnx
from jax import Array
# ---- cax src/cax/types.py
PyTree: TypeAlias = Any


class Rule(nnx.Param):
	"""Rule for a CA."""

	pass


State: TypeAlias = PyTree
Perception: TypeAlias = PyTree
Input: TypeAlias = PyTree

Metrics: TypeAlias = PyTree


# ---- cax src/cax/core/perceive/kernels.py (identity_kernel, neighbors_kernel)
def identity_kernel(ndim: int) -> Array:
	"""Create an identity kernel for the given number of dimensions.

	Args:
		ndim: Number of dimensions for the kernel.

	Returns:
		The identity kernel.

	"""
	kernel = jnp.zeros((3,) * ndim)
	center_idx = (1,) * ndim
	kernel = kernel.at[center_idx].set(1.0)
	return jnp.expand_dims(kernel, axis=-1)


def neighbors_kernel(ndim: int) -> Array:
	"""Create a neighbors kernel for the given number of dimensions.

	Args:
		ndim: Number of dimensions for the kernel.

	Returns:
		The neighbors kernel.

	"""
	kernel = identity_kernel(ndim)
	return 1.0 - kernel


# ---- cax src/cax/utils/render.py (clip_and_uint8)
def clip_and_uint8(frame: Array) -> Array:
	"""Clip values to valid range and convert to uint8."""
	frame = jnp.clip(frame, min=0.0, max=1.0)
	return (frame * 255).astype(jnp.uint8)


# ---- cax src/cax/core/perceive/perceive.py
class Perceive(nnx.Module):
	"""A base class for perception modules.

	This class is designed to be subclassed by specific perception implementations.
	It inherits from flax.nnx.Module to leverage Flax's neural network functionalities.

	"""

	def __call__(self, state: State) -> Perception:
		"""Process the current state and return a perception.

		This method should be implemented by subclasses to define specific perception logic.

		Args:
			state: State of the cellular automaton.

		Returns:
			The resulting perception based on the input state.

		Raises:
			NotImplementedError: This base method raises an error if not overridden by subclasses.

		"""
		raise NotImplementedError


# ---- cax src/cax/core/perceive/conv_perceive.py
class ConvPerceive(Perceive):
	"""Convolution Perceive class."""

	def __init__(
		self,
		channel_size: int,
		perception_size: int,
		rngs: nnx.Rngs,
		*,
		kernel_size: int | tuple[int, ...] = (3, 3),
		padding: str = "SAME",
		feature_group_count: int = 1,
		use_bias: bool = False,
		activation_fn: Callable | None = None,
	):
		"""Initialize the ConvPerceive layer.

		Args:
			channel_size: Number of input channels.
			perception_size: Number of output perception features.
			rngs: Random number generators.
			kernel_size: Size of the convolutional kernel.
			padding: Padding to use.
			feature_group_count: Number of feature groups.
			use_bias: Whether to use bias in convolutional layers.
			activation_fn: Activation function to use.

		"""
		self.conv = nnx.Conv(
			in_features=channel_size,
			out_features=perception_size,
			kernel_size=kernel_size,
			padding=padding,
			feature_group_count=feature_group_count,
			use_bias=use_bias,
			rngs=rngs,
		)
		self.activation_fn = activation_fn

	def __call__(self, state: State) -> Perception:
		"""Apply perception to the input state.

		Args:
			state: State of the cellular automaton.

		Returns:
			The perceived state after applying convolutional layers.

		"""
		perception = self.conv(state)
		return self.activation_fn(perception) if self.activation_fn else perception


# ---- cax src/cax/core/update/update.py
class Update(nnx.Module):
	"""A base class for update modules.

	This class is designed to be subclassed by specific update implementations.
	It inherits from flax.nnx.Module to leverage Flax's neural network functionalities.
	"""

	def __call__(self, state: State, perception: Perception, input: Input | None = None) -> State:
		"""Process the current state, perception, and input to produce a new state.

		This method should be implemented by subclasses to define specific update logic.

		Args:
			state: The current state of the environment or system.
			perception: The current perception of the environment.
			input: The input provided to the system.

		Returns:
			The new state after applying the update.

		Raises:
			NotImplementedError: This base method raises an error if not overridden by subclasses.

		"""
		raise NotImplementedError


# ---- cax src/cax/core/ca.py
def metrics_fn(next_state: State, state: State, perception: Perception, input: Input) -> Metrics:
	"""Metrics function returning the state.

	Args:
		next_state: Next state.
		state: Current state.
		perception: Perception.
		input: Input.

	Returns:
		A PyTree of metrics.

	"""
	return next_state


class CA(nnx.Module):
	"""Cellular Automata class."""

	def __init__(self, perceive: Perceive, update: Update, *, metrics_fn: Callable = metrics_fn):
		"""Initialize the CA.

		Args:
			perceive: Perception module.
			update: Update module.
			metrics_fn: Metrics function.

		"""
		self.perceive = perceive
		self.update = update
		self.metrics_fn = metrics_fn

	@nnx.jit
	def step(self, state: State, input: Input | None = None) -> tuple[State, Metrics]:
		"""Perform a single step.

		Args:
			state: Current state.
			input: Optional input.

		Returns:
			Updated state.

		"""
		perception = self.perceive(state)
		next_state = self.update(state, perception, input)
		return next_state, self.metrics_fn(next_state, state, perception, input)

	@partial(nnx.jit, static_argnames=("num_steps", "input_in_axis"))
	def __call__(
		self,
		state: State,
		input: Input | None = None,
		*,
		num_steps: int = 1,
		input_in_axis: int | None = None,
	) -> tuple[State, Metrics]:
		"""Run the CA for multiple steps.

		Args:
			state: Initial state.
			input: Optional input.
			num_steps: Number of steps to run.
			input_in_axis: Axis for input if provided for each step.

		Returns:
			Final state and all intermediate metrics.

		"""

		def step(carry: tuple[CA, State], input: Input | None) -> tuple[tuple[CA, State], State]:
			ca, state = carry
			state, metrics = ca.step(state, input)
			return (ca, state), metrics

		(_, state), metrics = nnx.scan(
			step,
			in_axes=(nnx.Carry, input_in_axis),
			length=num_steps,
		)((self, state), input)

		return state, metrics

	@nnx.jit
	def render(self, state: State) -> Array:
		"""Render state to RGB.

		Args:
			state: An array with two spatial/time dimensions.

		Returns:
			The rendered RGB image in uint8 format.

		"""
		raise NotImplementedError


# ---- cax src/cax/systems/life/life_perceive.py
class LifePerceive(ConvPerceive):
	"""Life perceive class."""

	def __init__(self, rngs: nnx.Rngs, *, padding: str = "CIRCULAR"):
		"""Initialize LifePerceive."""
		channel_size = 1
		super().__init__(
			channel_size=channel_size,
			perception_size=2 * channel_size,
			rngs=rngs,
			kernel_size=(3, 3),
			padding=padding,
			feature_group_count=channel_size,
		)

		kernel = jnp.concatenate([identity_kernel(2), neighbors_kernel(2)], axis=-1)
		kernel = jnp.expand_dims(kernel, axis=-2)
		self.conv.kernel = nnx.Param(kernel)


# ---- cax src/cax/systems/life/life_update.py
class LifeUpdate(Update):
	"""Life update class."""

	def __init__(self, rngs: nnx.Rngs):
		"""Initialize LifeUpdate."""
		self.rngs = rngs
		self.birth = Rule(jax.random.bernoulli(self.rngs(), shape=(9,)).astype(jnp.float32))
		self.survival = Rule(jax.random.bernoulli(self.rngs(), shape=(9,)).astype(jnp.float32))

	def __call__(self, state: State, perception: Perception, input: Input | None = None) -> State:
		"""Apply the Life rules based on birth/survival.

		Args:
			state: Current state of the cellular automaton.
			perception: Perceived state, including cell state and neighbor count.
			input: Input to the cellular automaton (unused in this implementation).

		Returns:
			Updated state of the cellular automaton.

		"""
		self_alive = perception[..., 0:1]
		num_alive_neighbors = perception[..., 1:2].astype(jnp.int32)

		# Birth
		birth = jnp.logical_and(1.0 - self_alive, self.birth[num_alive_neighbors])

		# Survival
		survival = jnp.logical_and(self_alive, self.survival[num_alive_neighbors])

		# Combine the conditions for the next state
		state = jnp.where(birth | survival, 1.0, 0.0)
		return state

	@nnx.jit
	def update_birth_survival(self, birth: Array, survival: Array) -> None:
		"""Update the birth/survival."""
		self.birth.value = birth
		self.survival.value = survival

	def update_birth_survival_from_string(self, rule_string: str) -> None:
		"""Update the birth/survival rules from a rule string.

		Args:
			rule_string: A string in the format "B{birth_numbers}/S{survival_numbers}",
				where birth_numbers and survival_numbers are lists of digits.
				For example, "B3/S23" for Conway"s Game of Life.

		"""
		assert "/" in rule_string, (
			f"Invalid rule string format: {rule_string}. Expected format: B{{digits}}/S{{digits}}"
		)

		# Split the rule string into birth and survival parts
		birth_string, survival_string = rule_string.split("/")

		assert birth_string.startswith("B"), (
			f"Invalid rule string format: {rule_string}. Expected format: B{{digits}}/S{{digits}}"
		)
		assert survival_string.startswith("S"), (
			f"Invalid rule string format: {rule_string}. Expected format: B{{digits}}/S{{digits}}"
		)

		# Extract the birth and survival numbers
		birth_numbers = [int(digit) for digit in birth_string[1:]]
		survival_numbers = [int(digit) for digit in survival_string[1:]]

		assert all(0 <= num <= 8 for num in birth_numbers + survival_numbers), (
			"Numbers in rule string must be between 0 and 8."
		)

		# Update the birth and survival rules
		birth = jnp.array(
			[1.0 if num_neighbors in birth_numbers else 0.0 for num_neighbors in range(9)]
		)
		survival = jnp.array(
			[1.0 if num_neighbors in survival_numbers else 0.0 for num_neighbors in range(9)]
		)
		self.update_birth_survival(birth, survival)


# ---- cax src/cax/systems/life/life.py
class Life(CA):
	"""Life model."""

	def __init__(self, rngs: nnx.Rngs, *, metrics_fn: Callable = metrics_fn):
		"""Initialize Life."""
		perceive = LifePerceive(rngs=rngs)
		update = LifeUpdate(rngs=rngs)
		super().__init__(perceive, update, metrics_fn=metrics_fn)

	@nnx.jit
	def render(self, state: State) -> Array:
		"""Render state to RGB.

		Args:
			state: An array with two spatial/time dimensions.

		Returns:
			The rendered RGB image in uint8 format.

		"""
		rgb = jnp.repeat(state, 3, axis=-1)

		# Clip values to valid range and convert to uint8
		return clip_and_uint8(rgb)


if __name__ == "__main__":
	# ---- the notebook's cells (examples/00_getting_started.ipynb)
	seed = 0

	spatial_dims = (32, 32)

	num_steps = 128

	key = jax.random.key(seed)
	rngs = nnx.Rngs(seed)

	ca = Life(rngs=rngs)

	ca.update.update_birth_survival_from_string("B3/S23")

	def sample_state():
		"""Sample a state with a glider for the Game of Life."""
		state = jnp.zeros((*spatial_dims, 1))

		mid_x, mid_y = spatial_dims[0] // 2, spatial_dims[1] // 2
		glider = jnp.array(
			[
				[0.0, 1.0, 0.0],
				[0.0, 0.0, 1.0],
				[1.0, 1.0, 1.0],
			]
		)
		return state.at[mid_x : mid_x + 3, mid_y : mid_y + 3, 0].set(glider)

	state_init = sample_state()
	state_final, states = ca(state_init, num_steps=num_steps)

	states = jnp.concatenate([state_init[None], states])  # concatenate initial state with other states
	frames = jax.vmap(ca.render)(states)  # render each frame  # expect: JIT202
