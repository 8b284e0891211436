# source: https://www.creativeworksofknowledge.com/cwk-quests/jax-quest/random/5/
# observed on jax 0.10.2 CPU: runs clean; every example in the batch gets its own dropout mask
# gap: other
# (added: imports, the batch and key inputs and the __main__ check; the page's sections "올바른 패턴" (correct pattern)
#  and "학습 loop 에서" (in the training loop), its comments kept)
import jax
import jax.numpy as jnp
from jax import random


def add_noise(x, key):
    return x + random.normal(key, x.shape) * 0.1


key = random.PRNGKey(0)
x_batch = jnp.zeros((32, 10))  # 32 examples
# 32 개의 독립적 key
keys = random.split(key, 32)
# vmap 으로 — 각 example 이 자기 key
batched = jax.vmap(add_noise, in_axes=(0, 0))
y = batched(x_batch, keys)
# 32 examples 다 다른 noise!


def per_example_dropout(x, key, p=0.5):
    '''단일 example 의 dropout'''
    mask = random.bernoulli(key, 1 - p, x.shape)
    return x * mask / (1 - p)


@jax.jit
def model_step(params, x_batch, key):
    '''batch 에 dropout 적용'''
    keys = random.split(key, x_batch.shape[0])
    apply = jax.vmap(per_example_dropout, in_axes=(0, 0))
    return apply(x_batch, keys)


if __name__ == "__main__":
    assert not bool(jnp.all(y == y[0]))
    out = model_step(None, jnp.ones((8, 16)), random.PRNGKey(1))
    masks = out != 0
    assert not bool(jnp.all(masks == masks[0])), "all masks equal"
    print("distinct per-example masks:", out.shape)
