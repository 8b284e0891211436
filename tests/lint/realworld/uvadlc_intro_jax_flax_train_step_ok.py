# source: https://github.com/phlippe/uvadlc_notebooks/blob/0da8037c7abc32f478ff6142acceb72dbcf088ee/docs/tutorial_notebooks/JAX/tutorial2/Introduction_to_JAX.ipynb
#   (UvA Deep Learning course, JAX tutorial 2 "Introduction to JAX+Flax", the XOR classifier:
#   cells 27 (the key), 68, 73, 75, 83, 96, 98, 101, 105, 107, 110, 112, 113, 123, 125, 126)
# observed on jax 0.10.2 CPU: runs clean and reaches 100% test accuracy: `train_step` and
#   `eval_step` are jitted over a flax TrainState, whose `apply_fn` is a static field; the
#   smaller last batch compiles once more, as shapes do.
#   Stand-ins: the torch `data.Dataset`/`DataLoader` with `numpy_collate` (torch is not
#   installed) are replaced by a plain class and a generator yielding the same numpy batches
#   (shuffled with NumPy), and the dataset's docstring and comments are trimmed; `num_epochs`
#   is lowered from 100 to 20. Added: the imports.
# gap: other
import numpy as np
import jax
import jax.numpy as jnp
from flax import linen as nn
import optax
from flax.training import train_state
from tqdm.auto import tqdm


class SimpleClassifier(nn.Module):
    num_hidden : int   # Number of hidden neurons
    num_outputs : int  # Number of output neurons

    def setup(self):
        # Create the modules we need to build the network
        # nn.Dense is a linear layer
        self.linear1 = nn.Dense(features=self.num_hidden)
        self.linear2 = nn.Dense(features=self.num_outputs)

    def __call__(self, x):
        # Perform the calculation of the model to determine the prediction
        x = self.linear1(x)
        x = nn.tanh(x)
        x = self.linear2(x)
        return x

rng = jax.random.PRNGKey(42)

model = SimpleClassifier(num_hidden=8, num_outputs=1)

rng, inp_rng, init_rng = jax.random.split(rng, 3)
inp = jax.random.normal(inp_rng, (8, 2))  # Batch size 8, input size 2
# Initialize the model
params = model.init(init_rng, inp)


class XORDataset:  # stand-in base class for torch's data.Dataset

    def __init__(self, size, seed, std=0.1):
        super().__init__()
        self.size = size
        self.np_rng = np.random.RandomState(seed=seed)
        self.std = std
        self.generate_continuous_xor()

    def generate_continuous_xor(self):
        data = self.np_rng.randint(low=0, high=2, size=(self.size, 2)).astype(np.float32)
        label = (data.sum(axis=1) == 1).astype(np.int32)
        data += self.np_rng.normal(loc=0.0, scale=self.std, size=data.shape)

        self.data = data
        self.label = label

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        data_point = self.data[idx]
        data_label = self.label[idx]
        return data_point, data_label


class DataLoader:  # stand-in for torch's DataLoader with the notebook's numpy_collate
    def __init__(self, dataset, batch_size, shuffle=False, drop_last=False):
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle

    def __iter__(self):
        order = np.random.permutation(len(self.dataset)) if self.shuffle else np.arange(len(self.dataset))
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            yield [self.dataset.data[idx], self.dataset.label[idx]]


# Input to the optimizer are optimizer settings like learning rate
optimizer = optax.sgd(learning_rate=0.1)

model_state = train_state.TrainState.create(apply_fn=model.apply,
                                            params=params,
                                            tx=optimizer)

def calculate_loss_acc(state, params, batch):
    data_input, labels = batch
    # Obtain the logits and predictions of the model for the input data
    logits = state.apply_fn(params, data_input).squeeze(axis=-1)
    pred_labels = (logits > 0).astype(jnp.float32)
    # Calculate the loss and accuracy
    loss = optax.sigmoid_binary_cross_entropy(logits, labels).mean()
    acc = (pred_labels == labels).mean()
    return loss, acc

@jax.jit  # Jit the function for efficiency
def train_step(state, batch):
    # Gradient function
    grad_fn = jax.value_and_grad(calculate_loss_acc,  # Function to calculate the loss
                                 argnums=1,  # Parameters are second argument of the function
                                 has_aux=True  # Function has additional outputs, here accuracy
                                )
    # Determine gradients for current model, parameters and batch
    (loss, acc), grads = grad_fn(state, state.params, batch)
    # Perform parameter update with gradients and optimizer
    state = state.apply_gradients(grads=grads)
    # Return state and any other value we might want
    return state, loss, acc

@jax.jit  # Jit the function for efficiency
def eval_step(state, batch):
    # Determine the accuracy
    _, acc = calculate_loss_acc(state, state.params, batch)
    return acc

train_dataset = XORDataset(size=2500, seed=42)
train_data_loader = DataLoader(train_dataset, batch_size=128, shuffle=True)

def train_model(state, data_loader, num_epochs=100):
    # Training loop
    for epoch in tqdm(range(num_epochs)):
        for batch in data_loader:
            state, loss, acc = train_step(state, batch)
            # We could use the loss and accuracy for logging here, e.g. in TensorBoard
            # For simplicity, we skip this part here
    return state

trained_model_state = train_model(model_state, train_data_loader, num_epochs=20)

test_dataset = XORDataset(size=500, seed=123)
# drop_last -> Don't drop the last batch although it is smaller than 128
test_data_loader = DataLoader(test_dataset, 
                              batch_size=128, 
                              shuffle=False, 
                              drop_last=False) 

def eval_model(state, data_loader):
    all_accs, batch_sizes = [], []
    for batch in data_loader:
        batch_acc = eval_step(state, batch)
        all_accs.append(batch_acc)
        batch_sizes.append(batch[0].shape[0])
    # Weighted average since some batches might be smaller
    acc = sum([a*b for a,b in zip(all_accs, batch_sizes)]) / sum(batch_sizes)
    print(f"Accuracy of the model: {100.0*acc:4.2f}%")


if __name__ == "__main__":
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        eval_model(trained_model_state, test_data_loader)
    assert float(out.getvalue().split(":")[1].strip(" %\n")) > 90, out.getvalue()
