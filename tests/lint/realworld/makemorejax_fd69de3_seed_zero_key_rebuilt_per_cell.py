# source: https://github.com/dogatekin/makemore-jax/blob/fd69de3409fb589ebf639d6e121053aa2af1eda8/makemore.ipynb
#   ("Jit and speed up!": an individual's JAX port of Karpathy's makemore MLP, a character
#   level name model with a 2-d character embedding table C; the notebook's code cells)
# observed on jax 0.10.2 CPU: the notebook builds jrandom.PRNGKey(0) three times: the
#   init cell splits it into 6 keys and draws C from the second; the training cell rebuilds
#   PRNGKey(0) and splits it again, so the first training batch's indices are drawn with
#   the very key C was drawn from (split(k, 2)[1] == split(k, 6)[1]); and the sampling cell
#   rebuilds PRNGKey(0) once more, so every name is sampled with the keys that drew the
#   training batches, in the same order (its first character with C's key too). The
#   jitted train and loss_fn run correctly: train reads the global lr, set before its
#   first call and never changed.
#   Added: a stand-in list of names in place of names.txt; the __main__ block, which
#   replays the key arithmetic of the three cells. Changed: the training loop runs 2000
#   steps instead of 10000. Left out: the matplotlib scatter plot of C (cell 32;
#   matplotlib is not installed).
# gap: other
# In[1]:
import random

import numpy as np
import jax.numpy as jnp
import jax.random as jrandom

from jax import grad, value_and_grad, jit

# In[2]:
# stand-in (added) for open('names.txt').read().splitlines()
words = """emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily
elizabeth mila ella avery sofia camila aria scarlett victoria madison luna grace chloe
penelope layla riley zoey nora lily eleanor hannah lillian addison aubrey ellie stella
natalie zoe leah hazel violet aurora savannah audrey brooklyn bella claire skylar lucy
paisley everly anna caroline nova genesis emilia kennedy samantha maya willow kinsley
naomi aaliyah elena sarah ariana allison gabriella alice madelyn cora ruby eva serenity
autumn adeline hailey gianna valentina isla eliana quinn nevaeh ivy sadie piper lydia
alexa josephine emery julia delilah arianna vivian kaylee sophie brielle madeline""".split()

len(words)

# In[3]:
chars = sorted(set(''.join(words)))
stoi = {s: i+1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}

len(stoi)

# In[4]:
def build_dataset(words, block_size=3):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return np.array(X), np.array(Y)

random.seed(42)
random.shuffle(words)
n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))

Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])

len(Ytr), len(Ydev), len(Yte)

# In[24]:
d = 2
neurons = 100

key = jrandom.PRNGKey(0)
key, *subkeys = jrandom.split(key, 6)
subkeys = iter(subkeys)

C = jrandom.normal(next(subkeys), shape=(27, d))
W1 = jrandom.normal(next(subkeys), shape=(d * 3, neurons))
b1 = jrandom.normal(next(subkeys), shape=(neurons, ))
W2 = jrandom.normal(next(subkeys), shape=(neurons, 27))
b2 = jrandom.normal(next(subkeys), shape=(27, ))

parameters = [C, W1, b1, W2, b2]
sum(p.size for p in parameters)

# In[25]:
@jit
def loss_fn(C, W1, b1, W2, b2, X, Y):
    emb = C[X]
    h = jnp.tanh(emb.reshape((-1, 6)) @ W1 + b1)
    logits = h @ W2 + b2
    logits -= logits.max(1, keepdims=True)
    counts = jnp.exp(logits)
    probs = counts / counts.sum(1, keepdims=True)
    loss = -jnp.log(probs[jnp.arange(X.shape[0]), Y]).mean()
    return loss

# In[30]:
@jit
def train(C, W1, b1, W2, b2, Xb, Yb):
    loss, (gC, gW1, gb1, gW2, gb2) = value_and_grad(loss_fn, argnums=(0, 1, 2, 3, 4))(C, W1, b1, W2, b2, Xb, Yb)

    C -= lr * gC
    W1 -= lr * gW1
    b1 -= lr * gb1
    W2 -= lr * gW2
    b2 -= lr * gb2

    return C, W1, b1, W2, b2

key = jrandom.PRNGKey(0)  # expect: JIT502
lr = 0.1
for _ in range(2000):
    key, subkey = jrandom.split(key)
    ix = jrandom.randint(subkey, shape=(32,), minval=0, maxval=Xtr.shape[0])
    Xb, Yb = Xtr[ix], Ytr[ix]
    C, W1, b1, W2, b2 = train(C, W1, b1, W2, b2, Xb, Yb)

# In[31]:
loss_fn(C, W1, b1, W2, b2, Xtr, Ytr), loss_fn(C, W1, b1, W2, b2, Xdev, Ydev)

# In[33]:
key = jrandom.PRNGKey(0)  # expect: JIT502
for _ in range(20):
    out = []
    context = [0] * 3
    while True:
        emb = C[jnp.array(context)]
        h = jnp.tanh(emb.reshape((-1, 6)) @ W1 + b1)
        logits = h @ W2 + b2
        logits -= logits.max(1, keepdims=True)

        key, subkey = jrandom.split(key)
        ix = jrandom.categorical(subkey, logits).item()

        if ix == 0:
            break
        context = context[1:] + [ix]
        out.append(ix)

    print("".join(itos[i] for i in out))


if __name__ == "__main__":
    assert bool(jnp.isfinite(loss_fn(C, W1, b1, W2, b2, Xdev, Ydev)))

    # replay of the key arithmetic of cells 24, 30 and 33 (their PRNGKey(0) lines repeated)
    k24 = jrandom.PRNGKey(0)
    k24, *keys24 = jrandom.split(k24, 6)
    C_key = keys24[0]                            # next(subkeys): the key C is drawn from
    k30 = jrandom.PRNGKey(0)  # tolerate: JIT502
    train_keys = []
    for _ in range(2000):
        k30, sub30 = jrandom.split(k30)
        train_keys.append(sub30)
    # observed: line 112 rebuilds PRNGKey(0): the first batch's indices are drawn with C's key
    assert jnp.array_equal(train_keys[0], C_key)
    k33 = jrandom.PRNGKey(0)  # tolerate: JIT502
    for i in range(50):
        k33, sub33 = jrandom.split(k33)
        # observed: line 124 rebuilds PRNGKey(0) again: the i-th character sampled is drawn
        # with the key of the i-th training batch
        assert jnp.array_equal(sub33, train_keys[i])
