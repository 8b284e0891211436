# source: https://github.com/borisdayma/dalle-mini/commit/4b8c3a87758bfeba53ec8331c0e41a74181a0731
#   (encoding/vqgan-jax-encoding.ipynb before "JIT outside the loop": the notebook's `encode`
#   and `encode_dataset` cells as written. Added: imports; stand-ins for the VQGAN model
#   (VQModel.from_pretrained("valhalla/vqgan-imagenet-f16-1024"), here a fixed projection
#   whose encode returns (quant_states, indices)), for torch's DataLoader and tensors (numpy
#   batches with .numpy()), and for the notebook's superbatch_generator (which stacks 8
#   torch batches); the __main__ block with 3 superbatches on one CPU device.)
# observed on jax 0.10.2 CPU: encode_dataset calls pmap on a new lambda for every
#   superbatch, so every superbatch traces and compiles the encoder again (3 superbatches, 3
#   compilations of the pmapped lambda, reported as jit(_fun)); the commit hoists `p_encoder = pmap(...)` above the loop
#   ("there is a noticeable performance improvement doing it this way": 13.64s/it -> 2.61s/it).
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import numpy as np
from jax import pmap
from tqdm import tqdm


class _VQModelStandIn:
    # stand-in for modeling_flax_vqgan.VQModel: 16x16 patches, 1024 codes
    def __init__(self):
        self.codebook = jax.random.normal(jax.random.PRNGKey(0), (1024, 16 * 16 * 3))

    def encode(self, pixel_values):
        b, h, w, c = pixel_values.shape
        patches = pixel_values.reshape(b, h // 16, 16, w // 16, 16, c)
        patches = patches.transpose(0, 1, 3, 2, 4, 5).reshape(b, -1, 16 * 16 * c)
        scores = patches @ self.codebook.T
        indices = jnp.argmax(scores, axis=-1)
        quant_states = self.codebook[indices]
        return quant_states, indices


class _Tensor:
    # stand-in for a torch tensor: only .numpy() is used
    def __init__(self, array):
        self._array = array

    def numpy(self):
        return self._array


class _DataLoaderStandIn:
    # stand-in for torch.utils.data.DataLoader over 3 * 8 random image batches
    def __init__(self, dataset, batch_size, num_workers):
        self.dataset = dataset
        self.batch_size = batch_size

    def __iter__(self):
        rng = np.random.default_rng(0)
        for _ in range(len(self.dataset) // self.batch_size):
            yield rng.standard_normal((self.batch_size, 32, 32, 3)).astype(np.float32)


DataLoader = _DataLoaderStandIn


def superbatch_generator(dataloader):
    # stand-in for the notebook's generator (stacks 8 batches, here 1 per device)
    for batch in dataloader:
        yield _Tensor(np.stack([batch], axis=0))


model = _VQModelStandIn()


def encode(model, batch):
    _, indices = model.encode(batch)
    return indices


def encode_dataset(dataset, batch_size=32):
    num_workers = 16
    dataloader = DataLoader(dataset, batch_size=batch_size, num_workers=num_workers)
    superbatches = superbatch_generator(dataloader)
    
    # TODO: save to disk as we go, do not accumulate everything in RAM
#     encoder = pmap(lambda batch: encode(model, batch))
    results = None
    for superbatch in tqdm(superbatches):
        encoded = pmap(lambda batch: encode(model, batch))(superbatch.numpy())  # expect: JIT301
        encoded = encoded.reshape(encoded.shape[0] * encoded.shape[1], -1)
        results = np.concatenate((results, encoded), axis=0) if results is not None else encoded
    return results


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    dataset = list(range(12))
    encoded_dataset = encode_dataset(dataset, batch_size=4)
    assert encoded_dataset.shape == (12, 4), encoded_dataset.shape
    # observed: line 82 builds a new pmap(lambda) for each of the 3 superbatches: 3 compiles
    # (jax 0.10.2 names a pmap's compiled computation jit(_fun))
    assert compiles.count("jit(_fun)") == 3, compiles
