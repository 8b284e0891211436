# source: https://github.com/Dafidofff/ponita-jax/blob/1679421840ac6d9e23b1f4912dd0dec05e623b81/ponita/utils/generative/edm_diffusion.py
# observed on jax 0.10.2 CPU: EDMLoss.__call__ builds jax.random.PRNGKey(0) afresh for each of its three draws, so every training step gets the same noise levels and the same noise, and the x and pos noise come from one key
# gap: other
# added: only EDMLoss of the file is kept (EDMPrecond and its Ponita import are left out); fully_connected_edge_index
#   is copied from ponita/utils/graph.py of the same commit; subtract_mean is a stand-in (segment_sum) because that
#   file's scatter_mean raises on (N, 3) positions; the __main__ block, a toy two-molecule batch per step and an
#   identity stand-in for the preconditioned network `net` are added.
import jax
import flax.linen as nn
import jax.numpy as jnp


def fully_connected_edge_index(batch_idx):
    edge_indices = []
    for batch_num in jnp.unique(batch_idx):
        # Find indices of nodes in the current batch
        node_indices = jnp.where(batch_idx == batch_num)[0]
        grid = jnp.meshgrid(node_indices, node_indices, indexing='ij')
        edge_indices.append(jnp.stack([grid[0].reshape(-1), grid[1].reshape(-1)], axis=0))
    edge_index = jnp.concatenate(edge_indices, axis=1)
    return edge_index


def subtract_mean(pos, batch, batch_size=None):
    # stand-in: the repository's scatter_mean fails on (N, 3) positions
    if batch_size is None:
        batch_size = int(batch.max()) + 1
    sums = jax.ops.segment_sum(pos, batch, num_segments=batch_size)
    counts = jax.ops.segment_sum(jnp.ones_like(batch, dtype=pos.dtype), batch, num_segments=batch_size)
    return pos - (sums / counts[:, None])[batch]


class EDMLoss(nn.Module):
    P_mean: float = -1.2
    P_std: float = 1.2
    sigma_data: float = 0.5
    normalize_x_factor: float = 4.

    def __call__(self, net, inputs):
        # The point clouds and fully connected edge_index
        pos, x, edge_index, batch = inputs['pos'], inputs['x'], inputs['edge_index'], inputs['batch']
        edge_index = fully_connected_edge_index(batch)
        pos = subtract_mean(pos, batch)
        x = x / self.normalize_x_factor

        # Random noise level per point cloud in the batch
        rnd_normal = jax.random.normal(jax.random.PRNGKey(0), (jnp.max(batch) + 1, 1))  # expect: JIT502
        rnd_normal = rnd_normal[batch]
        sigma = jnp.exp(rnd_normal * self.P_std + self.P_mean)
        weight = (sigma**2 + self.sigma_data**2) / (sigma * self.sigma_data) ** 2

        # Noised inputs
        x_noisy = x + jax.random.normal(jax.random.PRNGKey(0), x.shape) * sigma  # expect: JIT502
        pos_noisy = pos + subtract_mean(jax.random.normal(jax.random.PRNGKey(0), pos.shape), batch) * sigma  # expect: JIT502

        # The network net is a the precondioned version of the model, including noise dependent skip-connections
        D_x, D_pos = net(x_noisy, pos_noisy, edge_index, sigma)
        error_x = (D_x - x) ** 2
        error_pos = (D_pos - pos) ** 2
        loss = jnp.mean(weight * error_x) + jnp.mean(weight * error_pos)

        return loss, (D_x, D_pos)


if __name__ == "__main__":
    import numpy as np

    def net(x_noisy, pos_noisy, edge_index, sigma):
        seen_sigma.append(sigma)
        return x_noisy, pos_noisy

    seen_sigma = []
    loss_mod = EDMLoss()
    rng = np.random.default_rng(0)
    results = []
    for step in range(2):
        # a different batch of molecules at every step
        inputs = {
            'pos': jnp.asarray(rng.normal(size=(6, 3)), jnp.float32),
            'x': jnp.asarray(rng.normal(size=(6, 5)), jnp.float32),
            'edge_index': None,
            'batch': jnp.array([0, 0, 0, 1, 1, 1]),
        }
        loss, (D_x, D_pos) = loss_mod.apply({}, net, inputs)
        x = inputs['x'] / loss_mod.normalize_x_factor
        pos = subtract_mean(inputs['pos'], inputs['batch'])
        results.append((D_x - x, D_pos - pos))

    # line 47: the noise levels drawn at step 0 and step 1 are the same
    assert np.array_equal(seen_sigma[0], seen_sigma[1])
    # line 53: the noise added to x is the same at both steps
    assert np.allclose(results[0][0], results[1][0])
    # line 54: the noise added to pos is the same at both steps
    assert np.allclose(results[0][1], results[1][1])
    print("sigma per molecule at both steps:", np.asarray(seen_sigma[0][::3, 0]))
    print("x noise equal across steps:", bool(np.allclose(results[0][0], results[1][0])))

# observed: line 47 the per-molecule noise levels sigma are identical at two training steps with different batches
# observed: line 53 the noise added to x is identical at two training steps
# observed: line 54 the noise added to pos is identical at two training steps
