# source: https://github.com/young-geng/EasyLM/blob/fe5b2c354e25d697fce7cd225e23bbbe72570da3/EasyLM/models/llama/llama_model.py
# observed on jax 0.10.2 CPU: apply_rotary_emb builds its frequency table inside
#   `jax.ensure_compile_time_eval()` from the static head size and `max_pos` (a Python int
#   from the config), and gathers it with the traced position ids, so it runs under jax.jit
#   (as FlaxLLaMAAttention calls it, with max_pos=config.max_position_embeddings) and
#   matches the eager result; RMSNorm runs through jax.jit(model.apply). RMSNorm and
#   apply_rotary_emb are kept verbatim; the jitted attention-input function and the inputs
#   stand in for FlaxLLaMAAttention's call.
# gap: exemption-vs-JAX
import functools

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np



class RMSNorm(nn.Module):
    dim: int
    eps: float=1e-6
    dtype: jnp.dtype=jnp.float32
    param_dtype: jnp.dtype=jnp.float32

    def setup(self) -> None:
        self.weight = self.param(
            'kernel',
            nn.initializers.ones,
            (self.dim,),
            self.param_dtype,
        )

    def _norm(self, x: jnp.ndarray) -> jnp.ndarray:
        return x * jax.lax.rsqrt(jnp.square(x).mean(-1, keepdims=True) + self.eps)

    def __call__(self, x: jnp.ndarray) -> jnp.ndarray:
        x = x.astype(jnp.promote_types(self.dtype, jnp.float32))
        output = self._norm(x).astype(self.dtype)
        weight = jnp.asarray(self.weight, self.dtype)
        return output * weight


def apply_rotary_emb(
        xq: jnp.ndarray,
        xk: jnp.ndarray,
        position_ids: jnp.ndarray,
        max_pos: int,
        theta: float=10000.0
):
    input_dtype = xq.dtype
    with jax.ensure_compile_time_eval():
        dim = xq.shape[-1]
        freqs = 1.0 / (theta ** (jnp.arange(0, dim, 2)[: (dim // 2)].astype(jnp.float32) / dim))
        t = jnp.arange(max_pos)
        freqs = jnp.outer(t, freqs).astype(jnp.float32)
        sin, cos = jnp.sin(freqs), jnp.cos(freqs)
        freqs_cis = jnp.complex64(cos + 1j * sin)
    freqs_cis = jnp.take(freqs_cis, position_ids, axis=0)
    reshape_xq = xq.astype(jnp.float32).reshape(*xq.shape[:-1], -1, 2)
    reshape_xk = xk.astype(jnp.float32).reshape(*xk.shape[:-1], -1, 2)

    xq_ = jax.lax.complex(reshape_xq[..., 0], reshape_xq[..., 1])
    xk_ = jax.lax.complex(reshape_xk[..., 0], reshape_xk[..., 1])
    # add head dim
    freqs_cis = jnp.reshape(freqs_cis, (*freqs_cis.shape[:2], 1, *freqs_cis.shape[2:]))
    xq_out = xq_ * freqs_cis
    xq_out = jnp.stack((jnp.real(xq_out), jnp.imag(xq_out)), axis=-1).reshape(*xq_out.shape[:-1], -1)
    xk_out = xk_ * freqs_cis
    xk_out = jnp.stack((jnp.real(xk_out), jnp.imag(xk_out)), axis=-1).reshape(*xk_out.shape[:-1], -1)
    return xq_out.astype(input_dtype), xk_out.astype(input_dtype)


if __name__ == "__main__":
  batch, seq, heads, head_dim, max_pos = 2, 5, 3, 8, 16
  kq, kk, kx = jax.random.split(jax.random.key(0), 3)
  xq = jax.random.normal(kq, (batch, seq, heads, head_dim))
  xk = jax.random.normal(kk, (batch, seq, heads, head_dim))
  position_ids = jnp.broadcast_to(jnp.arange(seq) + 3, (batch, seq))

  @jax.jit
  def rotate(xq, xk, position_ids):
    # stand-in for FlaxLLaMAAttention.__call__: max_pos comes from the config
    return apply_rotary_emb(xq, xk, position_ids, max_pos=max_pos)

  q_jit, k_jit = rotate(xq, xk, position_ids)
  q_eager, k_eager = apply_rotary_emb(xq, xk, position_ids, max_pos=max_pos)
  np.testing.assert_allclose(q_jit, q_eager, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(k_jit, k_eager, rtol=1e-5, atol=1e-5)

  norm = RMSNorm(dim=head_dim)
  x = jax.random.normal(kx, (batch, seq, head_dim))
  variables = norm.init(jax.random.key(1), x)
  out = jax.jit(norm.apply)(variables, x)
  np.testing.assert_allclose(out, norm.apply(variables, x), rtol=1e-5, atol=1e-5)
  print(q_jit.shape, out.shape)
