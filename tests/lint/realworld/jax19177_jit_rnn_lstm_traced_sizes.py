# source: https://github.com/jax-ml/jax/issues/19177 (the reporter's script: jax.jit of
#   jax.experimental.rnn.lstm, called with its sizes and flags as keyword arguments)
# observed on jax 0.10.2 CPU: jax.jit(rnn.lstm) traces every argument, so input_size,
#   hidden_size, num_layers, dropout and bidirectional reach lstm as tracers; lstm hands
#   them to a custom_vjp function as nondiff arguments and the call raises
#   UnexpectedTracerError (they have to be static: static_argnames=...).
# gap: other
# added: nothing; the script is as posted.
import jax
import jax.numpy as jnp
from jax.experimental import rnn

batch_size = 8
input_size = 8
hidden_size = 4
num_layers = 1
bidirectional = True
num_directions = 2 if bidirectional else 1

seq_lengths = jnp.array([4, 5, 4, 1, 1, 1, 1, 1], dtype=jnp.int32)
max_seq_length = 5

root_key = jax.random.PRNGKey(1)
k1, k2, k3, k4 = jax.random.split(root_key, 4)
x = jax.random.normal(
    k1, (batch_size, max_seq_length, input_size), dtype=jnp.float32)
h_0 = jax.random.normal(
    k2, (num_directions * num_layers, batch_size, hidden_size),
    dtype=jnp.float32)
c_0 = jax.random.normal(
    k3, (num_directions * num_layers, batch_size, hidden_size),
    dtype=jnp.float32)
weights = rnn.init_lstm_weight(k4, input_size, hidden_size, num_layers,
                               bidirectional)

out = jax.jit(rnn.lstm)
y, h, c = out(  # expect: JIT404
    x,
    h_0,
    c_0,
    weights,
    seq_lengths=seq_lengths,
    input_size=input_size,
    hidden_size=hidden_size,
    num_layers=num_layers,
    dropout=False,
    bidirectional=bidirectional)
