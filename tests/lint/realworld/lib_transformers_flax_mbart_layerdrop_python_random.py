# source: https://github.com/huggingface/transformers/blob/00661e38a9e1393472adae9ac71f777b74ccdcde/src/transformers/models/mbart/modeling_flax_mbart.py
# observed on jax 0.10.2 CPU: with flax 0.12.8, LayerDrop in `FlaxMBartEncoderLayerCollection`
#   draws `random.uniform(0, 1)` from Python's `random` module, which runs only while the jitted
#   training forward is traced: the compiled function keeps the layers chosen then, later calls
#   leave Python's random state untouched and return identical outputs, so no layer is ever
#   dropped again. (Separately, and under jit or not, a skipped layer sets `hidden_states` to
#   None, since `hidden_states = layer_outputs[0]` follows the if/else; the driver's seed keeps
#   the traced draws above `layerdrop`, so this path is not taken.) Kept:
#   `FlaxMBartEncoderLayerCollection` as in the file. Added as stand-ins: the imports, an
#   `MBartConfig` dataclass with the fields the collection reads, a one-Dense
#   `FlaxMBartEncoderLayer` with the library layer's call signature, and `FlaxBaseModelOutput`
#   as a namedtuple; the driver seeds `random`, builds a 6-layer collection with
#   `encoder_layerdrop=0.1` and jits a forward with `deterministic=False`.
# gap: other
import random
from collections import namedtuple
from dataclasses import dataclass

import flax.linen as nn
import jax
import jax.numpy as jnp


@dataclass(frozen=True)
class MBartConfig:
    d_model: int = 8
    encoder_layers: int = 6
    encoder_layerdrop: float = 0.1


FlaxBaseModelOutput = namedtuple(
    "FlaxBaseModelOutput", ["last_hidden_state", "hidden_states", "attentions"]
)


class FlaxMBartEncoderLayer(nn.Module):
    config: MBartConfig
    dtype: jnp.dtype = jnp.float32

    @nn.compact
    def __call__(self, hidden_states, attention_mask, output_attentions=True, deterministic=True):
        return (hidden_states + nn.Dense(self.config.d_model, dtype=self.dtype)(hidden_states),)


class FlaxMBartEncoderLayerCollection(nn.Module):
    config: MBartConfig
    dtype: jnp.dtype = jnp.float32  # the dtype of the computation

    def setup(self):
        self.layers = [
            FlaxMBartEncoderLayer(self.config, name=str(i), dtype=self.dtype)
            for i in range(self.config.encoder_layers)
        ]
        self.layerdrop = self.config.encoder_layerdrop

    def __call__(
        self,
        hidden_states,
        attention_mask,
        deterministic: bool = True,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
        return_dict: bool = True,
    ):
        all_attentions = () if output_attentions else None
        all_hidden_states = () if output_hidden_states else None

        for encoder_layer in self.layers:
            if output_hidden_states:
                all_hidden_states = all_hidden_states + (hidden_states,)
            # add LayerDrop (see https://arxiv.org/abs/1909.11556 for description)
            dropout_probability = random.uniform(0, 1)  # expect: JIT204
            if not deterministic and (dropout_probability < self.layerdrop):  # skip the layer
                layer_outputs = (None, None)
            else:
                layer_outputs = encoder_layer(
                    hidden_states,
                    attention_mask,
                    output_attentions,
                    deterministic,
                )
            hidden_states = layer_outputs[0]
            if output_attentions:
                all_attentions = all_attentions + (layer_outputs[1],)

        if output_hidden_states:
            all_hidden_states += (hidden_states,)

        outputs = (hidden_states, all_hidden_states, all_attentions)

        if not return_dict:
            return tuple(v for v in outputs if v is not None)

        return FlaxBaseModelOutput(
            last_hidden_state=hidden_states, hidden_states=all_hidden_states, attentions=all_attentions
        )


random.seed(0)
config = MBartConfig()
layers = FlaxMBartEncoderLayerCollection(config)
hidden = jnp.ones((2, 3, config.d_model))
mask = jnp.ones((2, 3))
params = layers.init(jax.random.PRNGKey(0), hidden, mask)


@jax.jit
def train_forward(params, hidden, mask):
    return layers.apply(params, hidden, mask, deterministic=False, return_dict=False)[0]


if __name__ == "__main__":
    first = train_forward(params, hidden, mask)  # traces: the six LayerDrop draws happen here
    state = random.getstate()
    later = [train_forward(params, hidden, mask) for _ in range(5)]
    # observed: line 72 draws at trace time only: five more calls leave Python's random state
    # unchanged and give the same output, so the layer choice never changes
    assert random.getstate() == state
    assert all(bool(jnp.array_equal(first, y)) for y in later)
