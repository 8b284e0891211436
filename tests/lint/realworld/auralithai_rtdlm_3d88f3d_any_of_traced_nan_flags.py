# source: https://github.com/AuralithAI/RT-DLM/blob/3d88f3d0802da30812418017f98028d71136e967/train.py
#   (training script of a small haiku transformer LM, commit "use tree map." in a run of
#   commits adding NaN checks to the jitted update; a later commit, 93a91ad "remove jax.jit",
#   drops the jit)
# observed on jax 0.10.2 CPU: the first call of update raises TracerBoolConversionError at
#   `if any(jax.tree_util.tree_leaves(nan_grads))`: the leaves are traced booleans under
#   @jax.jit and Python's any() converts each to bool.
#   Changed: jax.config "jax_platform_name" "gpu" -> "cpu"; jax.tree_map ->
#   jax.tree_util.tree_map; an f-string nesting double quotes in double quotes (Python 3.12
#   only) gets single inner quotes; TrainConfig sizes smaller (vocab_size 64, d_model 16,
#   max_seq_length 8, num_epochs 1). Added: DataProcessor and preprocess_batch from
#   data_utils.py at the same commit (docstrings kept); stand-ins for the elided parts (haiku
#   is not installed): `model`, an init/apply pair with hk.transform_with_state's
#   signatures (embedding + linear over a nested params dict like haiku's), and load_data
#   returning a few lines instead of reading data/dataset.txt; TrainConfig as in
#   train_config.py. train.py calls model.apply(params, state, subkey, inputs) although the
#   model takes (inputs, rng); kept as written, and the stand-in, like RTDLMModel, pads
#   what it is given to max_seq_length (token ids taken modulo vocab_size). Not labelled:
#   init_rng draws the dummy inputs and also initialises the parameters (the inputs only
#   give shapes).
# gap: types
import re
from typing import List, Dict, Tuple, Optional

import jax
import jax.numpy as jnp
import optax
import os

jax.config.update("jax_platform_name", "cpu")


# --- train_config.py (sizes smaller) ---
class TrainConfig:
    def __init__(self):
        self.vocab_size = 64
        self.d_model = 16
        self.num_heads = 2
        self.num_layers = 2
        self.moe_experts = 2
        self.moe_top_k = 1
        self.max_seq_length = 8
        self.batch_size = 1
        self.learning_rate = 3e-5
        self.num_epochs = 1
        self.eval_interval = 50


# --- stand-in for model_module.model (haiku transform_with_state) ---
class _ModelStandIn:
    def init(self, rng, inputs, rng2):
        cfg = TrainConfig()
        k1, k2 = jax.random.split(rng)
        params = {
            "embedding_layer": {"embeddings": jax.random.normal(k1, (cfg.vocab_size, cfg.d_model))},
            "linear": {"w": jax.random.normal(k2, (cfg.d_model, cfg.vocab_size)) * 0.1,
                       "b": jnp.zeros((cfg.vocab_size,))},
        }
        return params, {}

    def apply(self, params, state, inputs, rng):
        inputs = jnp.asarray(inputs).astype(jnp.int32) % TrainConfig().vocab_size
        if len(inputs.shape) == 1:
            inputs = inputs.reshape(1, -1)
        if inputs.shape[1] != TrainConfig().max_seq_length:  # as RTDLMModel.__call__ does
            pad_width = TrainConfig().max_seq_length - inputs.shape[1]
            inputs = jnp.pad(inputs, ((0, 0), (0, pad_width)), constant_values=0)
        x = params["embedding_layer"]["embeddings"][inputs]
        x = x @ params["linear"]["w"] + params["linear"]["b"]
        return x, state


model = _ModelStandIn()


# --- stand-in for data_utils.load_data (no data/dataset.txt here) ---
def load_data(file_path: str) -> List[str]:
    return ["the cat sat on the mat", "a dog ran in the park", "jax traces python code",
            "the model learns words", "tokens go in and logits come out"]


# --- data_utils.py (same commit) ---
class DataProcessor:
    """
        Constructor for DataProcessor class.
    """
    def __init__(self, vocab: Optional[Dict[str, int]] = None):
        self.vocab = vocab or {}

    def preprocess_text(self, text: str) -> str:
        """
        Remove special characters and extra whitespaces.
        """
        text = text.lower()
        text = re.sub(r'[^a-zA-Z0-9\s]', '', text)  
        text = re.sub(r'\s+', ' ', text).strip()    
        return text

    def tokenize(self, text: str) -> List[str]:
        return text.split()

    def build_vocab(self, texts: List[str]) -> None:
        word_set = set()
        for text in texts:
            tokens = self.tokenize(self.preprocess_text(text))
            word_set.update(tokens)

        self.vocab = {word: idx for idx, word in enumerate(sorted(word_set), start=2)}
        self.vocab['<PAD>'] = 0  
        self.vocab['<UNK>'] = 1 

    def convert_text_to_tokens(self, text: str) -> List[int]:
        if not self.vocab:
            raise ValueError("Vocabulary is not initialized. Call `build_vocab` first.")
        tokens = self.tokenize(self.preprocess_text(text))
        return [self.vocab.get(word, self.vocab['<UNK>']) for word in tokens]

    def pad_sequence(self, tokens: List[int], max_length: int) -> List[int]:
        if len(tokens) < max_length:
            tokens += [self.vocab['<PAD>']] * (max_length - len(tokens))
        return tokens[:max_length]


def preprocess_batch(batch, processor, max_seq_length):
    """
    Preprocess a batch of text data into tokenized and padded input and target tensors.
    Args:
        batch (List[str]): List of text strings.
        processor (DataProcessor): DataProcessor instance with an initialized vocabulary.
        max_seq_length (int): Maximum sequence length for padding.
    Returns:
        Tuple[jnp.ndarray, jnp.ndarray]: Tokenized and padded input and target tensors.
    """
    inputs, targets = [], []
    for text in batch:
        tokens = processor.convert_text_to_tokens(text)
        padded = processor.pad_sequence(tokens, max_seq_length)
        inputs.append(padded)
        targets.append(padded)

    inputs = jnp.array(inputs, dtype=jnp.int32)
    targets = jnp.array(targets, dtype=jnp.int32)

    if len(inputs.shape) == 1:
        inputs = inputs.reshape(1, -1)

    if len(targets.shape) == 1:
        targets = targets.reshape(1, -1)

    if inputs.shape[1] != max_seq_length or targets.shape[1] != max_seq_length:
        print(f"[DEBUG] Fixing incorrect shape: inputs.shape={inputs.shape}, targets.shape={targets.shape}")
        pad_width = max_seq_length - inputs.shape[1]
        inputs = jnp.pad(inputs, ((0, 0), (0, pad_width)), constant_values=0)
        targets = jnp.pad(targets, ((0, 0), (0, pad_width)), constant_values=0)

    return inputs, targets


# --- train.py ---
MAX_GRAD_NORM = 1.0 # Prevent exploding gradients

config = TrainConfig()
optimizer = optax.adamw(config.learning_rate)

@jax.jit
def update(params, state, opt_state, rng, inputs, targets):
    def loss_fn(params, state, rng, targets):
        rng, subkey = jax.random.split(rng)  
        predictions, new_state = model.apply(params, state, subkey, inputs)

        jax.debug.print("[DEBUG] Checking for NaN in predictions: {}", jnp.isnan(predictions).any())
        jax.debug.print("[DEBUG] Predictions Sample: {}", predictions[:2, :2, :5])  # Print first few values

        targets_one_hot = jax.nn.one_hot(targets, config.vocab_size)

        jax.debug.print("[DEBUG] Checking for NaN in targets_one_hot: {}", jnp.isnan(targets_one_hot).any())

        log_probs = jax.nn.log_softmax(predictions, axis=-1)
        loss = -jnp.sum(targets_one_hot * log_probs) / targets.shape[1]

        jax.debug.print("[DEBUG] Checking for NaN in loss: {}", jnp.isnan(loss))

        return loss, new_state  

    (loss, new_state), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, state, rng, targets)

    nan_grads = jax.tree_util.tree_map(lambda g: jnp.isnan(g).any(), grads)
    
    if any(jax.tree_util.tree_leaves(nan_grads)):  # expect: JIT101
        jax.debug.print("[ERROR] NaN detected in gradients!")

    grads = jax.tree_util.tree_map(lambda g: jnp.clip(g, -MAX_GRAD_NORM, MAX_GRAD_NORM), grads)
    updates, opt_state = optimizer.update(grads, opt_state, params)  
    new_params = optax.apply_updates(params, updates)

    return loss, new_params, new_state, opt_state

def train():
    processor = DataProcessor()
    data = load_data(os.path.join(os.getcwd(), f"data{os.sep}dataset.txt"))
    print(f"[DEBUG] Loading dataset from: {os.path.join(os.getcwd(), f'data{os.sep}dataset.txt')}")
    print(f"[DEBUG] Loaded {len(data)} lines from dataset.txt")
    print(f"[DEBUG] Sample Data: {data[:5]}")
    processor.build_vocab(data)
    print(f"[DEBUG] Vocabulary Size: {len(processor.vocab)}")

    train_data, val_data = data[:int(0.9 * len(data))], data[int(0.9 * len(data)):]

    def data_generator(data, batch_size):
        for i in range(0, len(data), batch_size):
            batch = data[i:i + batch_size]
            if len(batch) < batch_size:
                pad_count = batch_size - len(batch)
                batch.extend([""] * pad_count) 
            print(f"[DEBUG] Raw Batch: {batch}")
            inputs, targets = preprocess_batch(batch, processor, config.max_seq_length)
            print(f"[DEBUG] Processed Batch: inputs.shape={inputs.shape}, targets.shape={targets.shape}")
            print(f"[DEBUG] Sample Tokens: {inputs[:1]}")
            yield inputs, targets

    rng = jax.random.PRNGKey(42)
    rng, init_rng = jax.random.split(rng)

    dummy_inputs = jax.random.randint(init_rng, shape=(config.batch_size, config.max_seq_length), minval=0, maxval=config.vocab_size)
    print(f"Dummy Inputs Shape: {dummy_inputs.shape}")

    params, state = model.init(init_rng, dummy_inputs, init_rng)
    opt_state = optimizer.init(params)

    for epoch in range(config.num_epochs):
        print(f"[Training] Starting Epoch {epoch + 1}")
        for step, (inputs, targets) in enumerate(data_generator(train_data, config.batch_size)):
            print(f"[DEBUG] Step {step}: inputs.shape={inputs.shape}, targets.shape={targets.shape}")

            if inputs.shape[1] != config.max_seq_length:
                print(f"[DEBUG] Fixing inputs shape: {inputs.shape} → (1, {config.max_seq_length})")
                pad_width = config.max_seq_length - inputs.shape[1]
                inputs = jnp.pad(inputs, ((0, 0), (0, pad_width)), constant_values=0)

            rng, step_rng = jax.random.split(rng)
            loss, params, state, opt_state = update(params, state, opt_state, step_rng, inputs, targets)
            print(f"[Training] Step {step}, Loss: {loss:.4f}")

    print("Training complete!")

if __name__ == "__main__":
    train()
