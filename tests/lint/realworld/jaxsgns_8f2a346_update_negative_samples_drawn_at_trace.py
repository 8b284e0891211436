# source: https://github.com/ddehueck/jax-skip-gram-negative-sampling/blob/8f2a34635ab3194c8cbd4f9c8102326d2d73f039/trainer.py
#   (an individual's word2vec skip-gram with negative sampling in JAX, "about 5x-10x faster
#   than a raw pytorch implementation on the CPU"; trainer.py with the modules it imports
#   from the same commit: sgns_loss.py, utils.py, model.py, dataloader.py,
#   datasets/dataset.py, datasets/world_order.py)
# observed on jax 0.10.2 CPU: Trainer.update is jitted with a static self, and the loss it
#   differentiates, SGNSLoss.forward, draws its 15 rounds of negative words with
#   AliasMultinomial.draw, which calls np.random.randint (and a Bernoulli draw) on the
#   host: under jit that runs once per trace, so every step of an epoch reuses the same
#   negative words baked into the compiled program (15 draws per trace: one trace for the
#   full batches, one for the shorter last batch), and two calls of update on the same
#   params and batch return identical gradients where the eager loss draws new negatives
#   each call.
#   Added: stand-ins for gensim's Dictionary (token2id, dfs, filter_extremes, doc2idx)
#   and torch's DataLoader (NumpyLoader keeps numpy_collate), neither installed; a small
#   generated text in place of data/world_order_kissinger.txt; the args of train.py as a
#   Namespace (epochs 2 instead of 15); the __main__ block. Changed: utils.AliasMultinomial
#   ported from torch tensors to NumPy arrays (same alias tables; draw keeps
#   np.random.randint, and torch.bernoulli becomes np.random.random(N) < q); model.py's
#   torch.nn.Embedding initialisation (standard normal) drawn with np.random.randn. Left
#   out: SkipGramDataset.save/load (torch.save), the PyPI dataset and spaCy tokenizer.
# gap: stale-state-attributes
import argparse
import random
import re
from functools import partial

import numpy as onp
import jax
import jax.numpy as np
import jax.nn as nn
import optax as optim
from jax import jit, grad
from tqdm import tqdm


# ---- stand-ins (added): gensim.corpora.Dictionary, torch DataLoader, the book's text
class Dictionary:
    def __init__(self, documents):
        self.token2id, self.dfs = {}, {}
        self.num_docs = 0
        for doc in documents:
            self.num_docs += 1
            for tok in set(doc):
                if tok not in self.token2id:
                    self.token2id[tok] = len(self.token2id)
                i = self.token2id[tok]
                self.dfs[i] = self.dfs.get(i, 0) + 1

    def filter_extremes(self, no_below=5, no_above=0.5):
        keep = [t for t, i in self.token2id.items()
                if no_below <= self.dfs[i] <= no_above * self.num_docs]
        old = self.token2id
        self.token2id = {t: n for n, t in enumerate(keep)}
        self.dfs = {self.token2id[t]: self.dfs[old[t]] for t in keep}

    def doc2idx(self, doc):
        return [self.token2id.get(t, -1) for t in doc]

    def __len__(self):
        return len(self.token2id)

    def __getitem__(self, idx):
        return {i: t for t, i in self.token2id.items()}[idx]


_rnd = random.Random(0)
_WORDS = ("nuclear mankind khomeini ronald order world power peace war state europe "
          "china iran balance history system treaty nation legitimacy alliance").split()
WORLD_ORDER_TEXT = "\n".join(" ".join(_rnd.choice(_WORDS) for _ in range(12)) for _ in range(60))


# ---- dataloader.py
def numpy_collate(batch):
    if isinstance(batch[0], onp.ndarray):
        return onp.stack(batch)
    elif isinstance(batch[0], (tuple, list)):
        transposed = zip(*batch)
        return [numpy_collate(samples) for samples in transposed]
    else:
        return onp.array(batch)


class NumpyLoader:  # stand-in for torch.utils.data.DataLoader(..., collate_fn=numpy_collate)
    def __init__(self, dataset, batch_size=1, shuffle=False, num_workers=0):
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle

    def __len__(self):
        return -(-len(self.dataset) // self.batch_size)

    def __iter__(self):
        order = onp.random.permutation(len(self.dataset)) if self.shuffle else onp.arange(len(self.dataset))
        for s in range(0, len(order), self.batch_size):
            yield numpy_collate([self.dataset[i] for i in order[s:s + self.batch_size]])


# ---- datasets/dataset.py
class SkipGramDataset:

    def __init__(self, args):
        self.args = args
        self.dictionary = None
        self.examples = []
        self.name = ''

    def __getitem__(self, index):
        center, context = self.examples[index]
        return onp.array([center]), onp.array(context)

    def __len__(self):
        return len(self.examples)

    def generate_examples_serial(self):
        # Now we have a Gensim Dictionary to work with
        self._build_dictionary()
        # Remove any tokens with a frequency less than 10
        self.dictionary.filter_extremes(no_below=10, no_above=0.75)

        self.examples = []
        for file in tqdm(self.load_files(), desc="Generating Examples (serial)"):
            file = self.dictionary.doc2idx(file)
            self.examples.extend(self._generate_examples_from_file(file))

    def _build_dictionary(self):
        print("Building Dictionary...")
        self.dictionary = Dictionary(self.load_files())

    def _generate_examples_from_file(self, file):
        examples = []
        for i, token in enumerate(file):
            if token == -1:
                # Out of dictionary token
                continue

            # Generate context tokens for the current token
            context_words = self._generate_contexts(i, file)

            # Form Examples:
            # center, context - follows form: (input, target)
            new_examples = [(token, ctxt) for ctxt in context_words if ctxt != -1]

            # Add to class
            examples.extend(new_examples)
        return examples

    def _generate_contexts(self, token_idx, tokenized_doc):
        contexts = []
        # Iterate over each position in window
        for w in range(-self.args.window_size, self.args.window_size + 1):
            context_pos = token_idx + w

            # Make sure current center and context are valid
            is_outside_doc = context_pos < 0 or context_pos >= len(tokenized_doc)
            center_is_context = token_idx == context_pos

            if is_outside_doc or center_is_context:
                # Not valid - skip to next window position
                continue

            contexts.append(tokenized_doc[context_pos])
        return contexts


# ---- datasets/world_order.py
class WorldOrderDataset(SkipGramDataset):

    def __init__(self, args, examples_path=None, dict_path=None):
        SkipGramDataset.__init__(self, args)
        self.name = 'World Order Book Dataset'
        self.queries = ['nuclear', 'mankind', 'khomeini', 'ronald']

        self.files = self.tokenize_files()
        self.generate_examples_serial()

        print(f'There are {len(self.dictionary)} tokens and {len(self.examples)} examples.')

    def load_files(self):
        return self.files

    def tokenize_files(self):
        files = []
        for line in WORLD_ORDER_TEXT.splitlines(keepends=True):  # was: open('data/world_order_kissinger.txt')
            words_no_dig_punc = (re.sub(r'[^\w]', ' ', line.lower())).split()
            words_no_dig_punc = [x for x in words_no_dig_punc if not any(c.isdigit() for c in x)]
            files.append(words_no_dig_punc)
        return files


# ---- utils.py (torch tensors ported to NumPy)
class AliasMultinomial(object):
    """
    Fast sampling from a multinomial distribution.
    Code taken from: https://github.com/TropComplique/lda2vec-pytorch/blob/master/utils/alias_multinomial.py
    """

    def __init__(self, probs):
        K = len(probs)
        self.q = onp.zeros(K)
        self.J = onp.zeros(K, dtype=onp.int64)

        smaller = []
        larger = []
        for kk, prob in enumerate(probs):
            self.q[kk] = K * prob
            if self.q[kk] < 1.0:
                smaller.append(kk)
            else:
                larger.append(kk)

        while len(smaller) > 0 and len(larger) > 0:
            small = smaller.pop()
            large = larger.pop()

            self.J[small] = large
            self.q[large] = (self.q[large] - 1.0) + self.q[small]

            if self.q[large] < 1.0:
                smaller.append(large)
            else:
                larger.append(large)

    def draw(self, N):
        """Draw N samples from the distribution."""

        K = self.J.shape[0]
        r = onp.random.randint(0, K, size=N)  # expect: JIT204
        q = self.q[r].clip(0.0, 1.0)
        j = self.J[r]
        b = (onp.random.random(N) < q).astype(onp.int64)  # tolerate: JIT204
        oq = r * b
        oj = j * (1 - b)

        return oq + oj


# ---- model.py
class SkipGramEmbeddings:

    def __init__(self, vocab_size, embed_len):
        super(SkipGramEmbeddings, self).__init__()
        # This initialization is important!
        torch_embed_weight = onp.random.randn(vocab_size, embed_len).astype(onp.float32)  # was: torch.nn.Embedding(...).weight
        self.word_embeds = jax.numpy.array(torch_embed_weight)

    @staticmethod
    def nearest_neighbors(word, dictionary, vectors):
        vectorsW = onp.asarray(vectors)
        index = dictionary.token2id[word]
        query = vectors[index]

        ranks = vectorsW.dot(query).squeeze()
        denom = query.T.dot(query).squeeze()
        denom = denom * onp.sum(vectorsW ** 2, 1)
        denom = onp.sqrt(denom)
        ranks = ranks / denom
        mostSimilar = []
        [mostSimilar.append(idx) for idx in ranks.argsort()[::-1]]
        nearest_neighbors = mostSimilar[:10]
        nearest_neighbors = [dictionary[comp] for comp in nearest_neighbors]

        return nearest_neighbors


# ---- sgns_loss.py
class SGNSLoss:
    BETA = 0.75  # exponent to adjust sampling frequency
    NUM_SAMPLES = 15

    def __init__(self, dataset):
        super(SGNSLoss, self).__init__()
        self.dataset = dataset
        self.vocab_len = len(dataset.dictionary)

        self.transformed_freq_vec = np.array([dataset.dictionary.dfs[i] for i in range(self.vocab_len)]) ** self.BETA
        self.freq_sum = np.sum(self.transformed_freq_vec)
        # Generate table
        self.unigram_table = self.generate_unigram_table()

    def forward(self, params, batch):
        # Unpack data
        center_ids, context_ids = batch
        # Get vectors
        center, context = params[center_ids], params[context_ids]
        # Squeeze into dimensions we want
        center, context = center.squeeze(), context.squeeze()  # batch_size x embed_size

        # Compute true portion
        true_scores = (center * context).sum(-1)  # batch_size
        loss = self.bce_loss_w_logits(true_scores, np.ones_like(true_scores))

        # Compute negatively sampled portion - NUM_SAMPLES # of negative samples for each true context
        for i in range(self.NUM_SAMPLES):
            samples = self.get_unigram_samples(n=center.shape[0], word_embeds=params)
            neg_sample_scores = (center * samples).sum(-1)
            # Update loss
            loss += self.bce_loss_w_logits(neg_sample_scores, np.zeros_like(neg_sample_scores))

        return loss

    @staticmethod
    def bce_loss_w_logits(x, y):
        max_val = np.clip(-x, 0, None)
        loss = (1-y) * x + max_val + np.log(np.exp(-max_val) + np.exp((-x - max_val)))
        return loss.mean()

    def get_unigram_samples(self, n, word_embeds):
        rand_idxs = self.unigram_table.draw(n)
        return word_embeds[rand_idxs].squeeze()

    def get_unigram_prob(self, token_idx):
        return (self.transformed_freq_vec[token_idx].item()) / self.freq_sum.item()

    def generate_unigram_table(self):
        # Probability at each index corresponds to probability of selecting that token
        pdf = [self.get_unigram_prob(t_idx) for t_idx in range(0, self.vocab_len)]
        # Generate the table from PDF
        return AliasMultinomial(pdf)


# ---- trainer.py
class Trainer:

    def __init__(self, args):
        # Load data
        self.args = args
        self.dataset = WorldOrderDataset(args)
        self.vocab_size = len(self.dataset.dictionary)
        print("Finished loading dataset")

        self.dataloader = NumpyLoader(self.dataset, batch_size=args.batch_size,
                                     shuffle=True, num_workers=args.workers)

        self.model = SkipGramEmbeddings(self.vocab_size, args.embedding_len)
        self.sgns = SGNSLoss(self.dataset)
        # Set up optimizer - rmsprop seems to work the best
        optimizer = optim.adam(args.lr)
        self.opt_init = optimizer.init
        self.opt_update = optimizer.update
        self.apply_updates = optim.apply_updates

    @partial(jit, static_argnums=(0,))
    def update(self, params, opt_state, batch):
        g = grad(self.sgns.forward)(params, batch)
        updates, opt_state = self.opt_update(g, opt_state)
        params = self.apply_updates(params, updates)
        return opt_state, params, g

    def train(self):
        # Initialize optimizer state!
        params = self.model.word_embeds
        opt_state = self.opt_init(params)
        for epoch in range(self.args.epochs):
            print(f'Beginning epoch: {epoch + 1}/{self.args.epochs}')
            for i, batch in enumerate(tqdm(self.dataloader)):
                opt_state, params, g = self.update(params, opt_state, batch)
            self.log_step(epoch, params, g)

    def log_step(self, epoch, params, g):
        print(f'EPOCH: {epoch} | GRAD MAGNITUDE: {onp.sum(g)}')
        # Log embeddings!
        print('\nLearned embeddings:')
        for word in self.dataset.queries:
            print(f'word: {word} neighbors: {self.model.nearest_neighbors(word, self.dataset.dictionary, params)}')


if __name__ == "__main__":
    # train.py's defaults, epochs 2 instead of 15
    args = argparse.Namespace(dataset_dir='data/', workers=1, window_size=5, file_batch_size=250,
                              embedding_len=128, epochs=2, batch_size=1024, lr=1e-3, seed=42,
                              log_step=250)
    trainer = Trainer(args)

    draws = []
    _draw = AliasMultinomial.draw
    AliasMultinomial.draw = lambda self, N: draws.append(N) or _draw(self, N)
    trainer.train()

    # observed: line 226 runs only while update is traced: 2 epochs of 5 full batches and
    # a short one call update 12 times, yet NUM_SAMPLES draws happened for 2 traces only
    n_batches = len(trainer.dataloader)
    assert n_batches == 6 and len(trainer.dataset) % args.batch_size != 0, (n_batches, len(trainer.dataset))
    assert len(draws) == 2 * SGNSLoss.NUM_SAMPLES, len(draws)

    params = trainer.model.word_embeds
    opt_state = trainer.opt_init(params)
    batch = next(iter(trainer.dataloader))
    _, _, g1 = trainer.update(params, opt_state, batch)
    _, _, g2 = trainer.update(params, opt_state, batch)
    assert len(draws) == 2 * SGNSLoss.NUM_SAMPLES  # no new negatives: the compiled step replays them
    assert bool(np.array_equal(g1, g2))
    e1 = grad(trainer.sgns.forward)(params, batch)
    e2 = grad(trainer.sgns.forward)(params, batch)
    assert not bool(np.array_equal(e1, e2))  # the eager loss draws new negatives each call
