# source: https://github.com/neel04/ReAct_Jax/blob/6e5a7fdf10826bfc61a4e93a69f9bd930b774a07/ReAct/model/react.py
#   (an equinox research model, the recurrent attention blocks of react.py with the layers of
#   ReAct/model/blocks.py and the Trainer's get_n_k of ReAct/utils/trainer.py at the same commit)
# observed on jax 0.10.2 CPU: RecurrentModule keeps its init key as a field and hands
#   `self.key` to every block's dropout on every call, so the jitted forward pass applies the
#   same dropout mask at every step and in every block (two calls give identical outputs;
#   the same module with another key gives different ones). Trainer.get_n_k splits the
#   never-updated `self.key`, so every epoch draws the same random n and k. The author later
#   passed a per-step key to RecurrentModule and a per-epoch key to get_n_k (a318785); the
#   stored key is the one the maintainer answers about in equinox#498 ("you'll get the exact
#   same dropout mask every time").
#   Changed: `self.ln1(x)` / `self.ln2(x)` on (seqlen, dim) inputs are spelled
#   `jax.vmap(self.ln1)(x)` as the author's later commit does (equinox >= 0.11 requires it).
#   Left out: class React (its eqx.nn.Embedding call on an index array no longer runs),
#   Trainer's logger set-up in __init__ and its other methods. Added: imports, get_rand_nums
#   from ReAct/utils/helpers.py, the __main__ block.
# gap: other
import math
from typing import Optional, Tuple

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float16, PRNGKeyArray


# ---- ReAct/utils/helpers.py
def get_rand_nums(key: PRNGKeyArray, lower_bound: int, upper_bound: int, bsz: int) -> Array:
  random_numbers = jax.random.randint(key, shape=(bsz,), minval=lower_bound, maxval=upper_bound)
  return random_numbers


# ---- ReAct/model/blocks.py
class NewGELU(eqx.Module):
	def __call__(self, x: jax.Array) -> jax.Array:
		c: float = math.sqrt(2.0 / math.pi)
		a: float = 0.044715
		return 0.5 * x * (1.0 + jax.nn.tanh(c * (x + a * jnp.power(x, 3.0))))

class MLP(eqx.Module):
    '''A simple MLP - w/ Dropout'''
    layers: eqx.nn.Sequential
    dropout: eqx.nn.Dropout

    def __init__(self, input_dim: int, output_dim: int, p: float, key: PRNGKeyArray):
        key1, key2 = jax.random.split(key, 2)

        self.layers = [
            LinearProj(input_dim, output_dim, key=key1),
            eqx.nn.Lambda(NewGELU()),
            LinearProj(output_dim, output_dim, key=key2),
            ]

        self.dropout = eqx.nn.Dropout(p=p)

    def __call__(self, x: Array, key: Optional[PRNGKeyArray] = None):
        for layer in self.layers:
            x = layer(x)
        
        if key is None:
            return self.dropout(x)
        else:
            return self.dropout(x, key=key, inference=False)

class LinearProj(eqx.Module):

	bias: Optional[jax.Array]
	weight: jax.Array

	input_dim: int = eqx.field(static=True)
	output_dim: int = eqx.field(static=True)
	use_bias: bool = eqx.field(static=True)

	def __init__(self, input_dim, output_dim, key: PRNGKeyArray, use_bias=True):
		assert input_dim >= 1 or output_dim >= 1, f'input_dim: {input_dim} | output_dim: {output_dim} are too small'
		wkey, bkey = jax.random.split(key, 2)

		self.input_dim = input_dim
		self.output_dim = output_dim
		self.use_bias = use_bias

		lim = 1 / math.sqrt(input_dim)
		self.weight = jax.random.uniform(bkey, (input_dim, output_dim), minval=-lim, maxval=lim)

		if use_bias:
			self.bias = jax.random.uniform(wkey, (output_dim,), minval=-lim, maxval=lim)
		else:
			self.bias = jnp.zeros((output_dim,))

	@jax.jit
	def __call__(self, input: Float16[Array, 'batch in_dim']):
		return input @ self.weight + self.bias

class LiteAttention(eqx.Module):
	input_dim: int = eqx.field(static=True)
	weight: eqx.Module

	def __init__(self, input_dim: int, key: PRNGKeyArray):
		self.input_dim = input_dim
		self.weight = LinearProj(input_dim, input_dim, use_bias=False, key=key)

	@jax.jit
	def __call__(self, x: Float16[Array, 'batch in_dim']):
		attn_weights = jax.nn.softmax(self.weight(x), axis=1) # type: ignore
		return x * attn_weights


# ---- ReAct/model/react.py
class AttentionBlock(eqx.Module):
    """Basic Block for LiteAttention"""

    activation: eqx.Module
    attn_gate: eqx.Module
    ln1: eqx.Module
    ln2: eqx.Module
    mlp: eqx.Module

    def __init__(self, drop_rate: float, bottleneck: int, key: PRNGKeyArray):
        key1, key2 = jax.random.split(key, 2)

        self.activation = NewGELU()
        input_dim = bottleneck

        self.attn_gate = LiteAttention(input_dim, key1)

        self.ln1 = eqx.nn.LayerNorm(input_dim)
        self.ln2 = eqx.nn.LayerNorm(input_dim)

        self.mlp = MLP(input_dim, input_dim, drop_rate, key2)

    def __call__(self, x: Array, key: Optional[PRNGKeyArray]):
        x = jax.vmap(self.ln1)(x)
        x += self.attn_gate(x)
        x = jax.vmap(self.ln2)(x)
        x += self.mlp(x, key)

        return self.activation(x)  # skip connection

class RecurrentModule(eqx.Module):
    '''
    Bunch of AttentionBlocks
    '''
    gelu: eqx.Module
    reshape_layer: eqx.Module
    key: Array
    attention_blocks: list

    def __init__(self, num_blocks: int, drop_rate: float, bottleneck: int, key: PRNGKeyArray):  # noqa: E501
        self.key = key
        key1, key2 = jax.random.split(self.key)

        self.gelu = NewGELU()
        self.reshape_layer = LinearProj(bottleneck * 2, bottleneck, key=key1)

        self.attention_blocks = [
            AttentionBlock(drop_rate, bottleneck * 2, key2)
        ] * num_blocks

    def __call__(self, x: Float16[Array, 'batch seqlen in_dim']) -> Float16[Array, 'batch seqlen out_dim']:
        for block in self.attention_blocks:
            x = block(x, self.key)  # expect: JIT502

        # handling recurrence
        x =  self.gelu(self.reshape_layer(x))

        return x


# ---- ReAct/utils/trainer.py
class Trainer:
    def __init__(self, args: dict, key: PRNGKeyArray, logger=None):
        self.key = key

        for k, v in vars(args).items():
                setattr(self, k, v)

    def get_n_k(self) -> Tuple[Array, Array]:
        n_key, k_key = jax.random.split(self.key, 2)  # expect: JIT502

        rndm_n = get_rand_nums(n_key, 0, self.max_iters, self.batch_size)
        rndm_k = get_rand_nums(k_key, jnp.ones(self.batch_size),
                               self.max_iters - rndm_n + 1, self.batch_size)

        return rndm_n, rndm_k


if __name__ == "__main__":
    from argparse import Namespace

    key = jax.random.PRNGKey(0)
    # React(seqlen=8, max_iters=15, num_blocks=2, width=32, drop_rate=0.5, ...) builds
    # RecurrentModule(num_blocks, drop_rate, width // 2, key2)
    main_block = RecurrentModule(2, 0.5, 16, key)
    thought = jax.random.normal(jax.random.PRNGKey(1), (8, 32))
    forward = eqx.filter_jit(lambda block, x: block(x))
    step1 = forward(main_block, thought)
    step2 = forward(main_block, thought)
    other_key = eqx.tree_at(lambda m: m.key, main_block, jax.random.PRNGKey(7))
    # observed: line 161 passes the stored init key to dropout on every call: two steps
    #   apply the same mask (identical outputs), another key gives another mask
    assert jnp.array_equal(step1, step2)
    assert not jnp.array_equal(step1, forward(other_key, thought))

    trainer = Trainer(Namespace(max_iters=15, batch_size=8), key)
    draws = [trainer.get_n_k() for epoch in range(3)]
    # observed: line 178 splits the unchanged self.key: every epoch draws the same n and k
    for rndm_n, rndm_k in draws[1:]:
        assert jnp.array_equal(rndm_n, draws[0][0]) and jnp.array_equal(rndm_k, draws[0][1])
    print("same dropout mask every step; same n, k every epoch:", draws[0][0], draws[0][1])
