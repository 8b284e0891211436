# source: https://github.com/sunritc/lda_jax/blob/d5db692e53de93f3c3e4434facbf744470561c57/src/lda_jax/inference/sampler.py (with src/lda_jax/models/lda.py, utils/generator.py, utils/process.py and experiments/lda_example.ipynb at the same commit: a collapsed Gibbs sampler for LDA in JAX)
# observed on jax 0.10.2 CPU: GibbsSampler.run hands its key to `model.init_state`, which splits it, and then splits the same
#   key again for the first sweep, so the first sweep's key is the key the initial topics were drawn from; each sweep runs
#   collapsed_gibbs_step eagerly, whose lax.scan of a fresh `_update_token` closure is traced and compiled again on every sweep
#   (the notebook's 1000 sweeps took 87 s); run_gibbs likewise hands `_scan_gibbs` the key init_state already split, and the
#   notebook calls run_gibbs with the key the synthetic corpus was drawn from. With typed keys and jax_debug_key_reuse, JAX names
#   lines 217 and 134, and line 60 (init_state's split, reached from the notebook's call on line 248: tolerated)
# gap: other
# (merged: Corpus from utils/process.py, LDAState/LDAModel/collapsed_gibbs_step/run_gibbs from models/lda.py, generate_lda_corpus
#  from utils/generator.py, SamplerConfig/GibbsSampler from inference/sampler.py; trimmed: docstrings, the spaCy pre-processing,
#  log_likelihood, posterior_theta, the GibbsKernelFn Protocol, SamplerConfig.__post_init__, the tqdm progress bar
#  (show_progress=False), run_gibbs's keep_history branch and the generator's branch for a list of document lengths; the
#  module-level script is the notebook's cells with num_docs 100 -> 6, num_topics 5 -> 3, vocab_size 30 -> 10, doc_length 35 -> 5,
#  num_iters 1000 -> 6 / 3 and burn_in 500 -> 2 (CPU time); added: the __main__ checks)
from dataclasses import dataclass, field
from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple, Union

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array


class Corpus(NamedTuple):
    word_ids: jnp.ndarray              # shape (N,)
    doc_ids:  jnp.ndarray              # shape (N,)
    vocab:    List[str]
    doc_ptrs: jnp.ndarray              # shape (D + 1,)

    @property
    def num_tokens(self) -> int:
        return int(self.word_ids.size)

    @property
    def num_docs(self) -> int:
        return int(self.doc_ptrs.size - 1)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)


class LDAState(NamedTuple):
    z: Array      # (N,)  topic per token
    n_dk: Array   # (D,K) doc-topic counts
    n_kw: Array   # (K,V) topic-word counts
    n_k: Array    # (K,)   topic totals


@dataclass(frozen=True)
class LDAModel:
    num_topics: int  # K
    vocab_size: int  # V
    alpha: float = 0.1  # symmetric Dir_K(alpha)
    eta: float = 0.1    # symmetric Dir_V(eta)

    def init_state(self, corpus: Corpus, *, key: Array) -> LDAState:
        D, K, V = corpus.num_docs, self.num_topics, self.vocab_size

        key, sub = jax.random.split(key)  # tolerate: JIT502
        z = jax.random.randint(sub, shape=(corpus.num_tokens,), minval=0, maxval=K, dtype=jnp.int32)

        n_dk = jnp.zeros((D, K), dtype=jnp.int32)
        n_kw = jnp.zeros((K, V), dtype=jnp.int32)
        n_k  = jnp.zeros((K,),   dtype=jnp.int32)

        n_dk = n_dk.at[corpus.doc_ids, z].add(1)
        n_kw = n_kw.at[z, corpus.word_ids].add(1)
        n_k  = n_k.at[z].add(1)

        return LDAState(z, n_dk, n_kw, n_k)


def _token_conditional_probs(state: LDAState, word_id: int, doc_id: int, model: LDAModel) -> Array:
    K, V = model.num_topics, model.vocab_size
    alpha, eta = model.alpha, model.eta

    theta = state.n_dk[doc_id] + alpha             # (K,)
    phi   = (state.n_kw[:, word_id] + eta) / (state.n_k + V * eta)  # (K,)
    probs = theta * phi
    return probs / probs.sum()


def collapsed_gibbs_step(state: LDAState, corpus: Corpus, model: LDAModel, *, key: Array) -> Tuple[LDAState, Array]:
    """One full sweep over **all tokens** (word-level Gibbs)."""

    def _update_token(carry, idx):
        st, k = carry
        k_old  = st.z[idx]
        d      = corpus.doc_ids[idx]
        w      = corpus.word_ids[idx]

        # Remove token -------------------------------------------------------
        st = st._replace(
            z    = st.z.at[idx].set(-1),
            n_dk = st.n_dk.at[d, k_old].add(-1),
            n_kw = st.n_kw.at[k_old, w].add(-1),
            n_k  = st.n_k.at[k_old].add(-1),
        )

        # Sample new topic ---------------------------------------------------
        probs      = _token_conditional_probs(st, w, d, model)
        k, subkey  = jax.random.split(k)
        k_new      = jax.random.categorical(subkey, jnp.log(probs))

        # Add token back -----------------------------------------------------
        st = st._replace(
            z    = st.z.at[idx].set(k_new),
            n_dk = st.n_dk.at[d, k_new].add(1),
            n_kw = st.n_kw.at[k_new, w].add(1),
            n_k  = st.n_k.at[k_new].add(1),
        )
        return (st, k), None

    (state, key), _ = jax.lax.scan(_update_token, (state, key), jnp.arange(corpus.num_tokens))  # expect: JIT301
    return state, key


def run_gibbs(corpus: Corpus, model: LDAModel, *, num_iters: int, key: Array, keep_history: bool = False):
    """Fully-jitted Gibbs driver that optionally returns a trace."""
    init_state = model.init_state(corpus, key=key)

    def _one_sweep(carry, _):
        state, rng = carry
        rng, sub = jax.random.split(rng)
        state, rng = collapsed_gibbs_step(state, corpus, model, key=sub)  # word- or doc-blocked
        return (state, rng), state  # 2nd value is what scan will stack

    @jax.jit
    def _scan_gibbs(state, rng):
        (state, rng), states = jax.lax.scan(_one_sweep, (state, rng), None, length=num_iters)
        return state, states  # final state + stack [num_iters, ...]

    final_state, all_states = _scan_gibbs(init_state, key)  # expect: JIT502
    return final_state, None


class LDASynthetic(NamedTuple):
    corpus: Corpus
    z:      Array  # (N,) topic assignment per token
    theta:  Array  # (D, K) document–topic dists
    beta:   Array  # (K, V) topic–word dists


def _draw_dirichlet(key: Array, alpha: Array, shape: Tuple[int, ...]) -> Tuple[Array, Array]:
    key, sub = jax.random.split(key)
    return key, jax.random.dirichlet(sub, alpha, shape=shape)


def generate_lda_corpus(key: Array, *, num_docs: int, num_topics: int, vocab_size: int,
                        doc_length: Union[int, Sequence[int]], alpha: float = 0.1, eta: float = 0.1) -> LDASynthetic:
    key, beta = _draw_dirichlet(key, jnp.full((vocab_size,), eta), (num_topics,))
    key, theta = _draw_dirichlet(key, jnp.full((num_topics,), alpha), (num_docs,))
    doc_lengths = jnp.full((num_docs,), doc_length, dtype=jnp.int32)

    def _sample_doc(rng: Array, d_idx: int):
        L_d       = int(doc_lengths[d_idx])  # cast to python int for type checker
        rng, sub1 = jax.random.split(rng)
        z_dn      = jax.random.categorical(sub1, jnp.log(theta[d_idx]), shape=(L_d,))
        rng, sub2 = jax.random.split(rng)
        w_dn      = jax.random.categorical(sub2, jnp.log(beta[z_dn]), axis=-1)
        return rng, (z_dn, w_dn)

    keys = jax.random.split(key, num_docs + 1)
    key  = keys[0]
    z_all, w_all, d_all = [], [], []
    for d in range(num_docs):
        _, (z_dn, w_dn) = _sample_doc(keys[d + 1], d)
        z_all.append(z_dn)
        w_all.append(w_dn)
        d_all.append(jnp.full_like(z_dn, d))

    z        = jnp.concatenate(z_all)
    word_ids = jnp.concatenate(w_all)
    doc_ids  = jnp.concatenate(d_all)
    doc_ptrs = jnp.concatenate([jnp.array([0], dtype=jnp.int32), jnp.cumsum(doc_lengths, dtype=jnp.int32)])
    vocab  = [f"w{i}" for i in range(vocab_size)]
    return LDASynthetic(Corpus(word_ids, doc_ids, vocab, doc_ptrs), z, theta, beta)


@dataclass(slots=True)
class SamplerConfig:
    num_iters: int                   # total sweeps (including burn-in)
    burn_in: int = 0                 # number of initial sweeps to discard
    thin: int = 1                    # record every `thin`-th sweep
    rng_key: Array | None = None     # seed for reproducibility
    show_progress: bool = True       # tqdm progress bar


@dataclass
class GibbsSampler:
    corpus: Corpus
    model: LDAModel
    config: SamplerConfig
    kernel: Callable = collapsed_gibbs_step
    store_state: Optional[Callable[[LDAState], dict]] = None

    _rng_key: Array = field(init=False, repr=False)
    _state: LDAState = field(init=False, repr=False)
    _trace: List = field(init=False, repr=False, default_factory=list)

    def run(self) -> Sequence[dict]:
        self._rng_key = (
            self.config.rng_key if self.config.rng_key is not None else jax.random.PRNGKey(0)
        )
        self._state = self.model.init_state(self.corpus, key=self._rng_key)

        if self.store_state is None:
            self.store_state = lambda s: {
                "n_kw": s.n_kw.copy(),
                "n_dk": s.n_dk.copy(),
            }

        iterator = range(self.config.num_iters)

        for it in iterator:
            self._rng_key, sub = jax.random.split(self._rng_key)  # expect: JIT502
            self._state, self._rng_key = self.kernel(self._state, self.corpus, self.model, key=sub)

            if it >= self.config.burn_in and (it - self.config.burn_in) % self.config.thin == 0:
                self._trace.append(self.store_state(self._state))

        return self._trace

    def posterior_phi(self) -> Array:
        K, V, eta = self.model.num_topics, self.model.vocab_size, self.model.eta
        n_kw_stack = jnp.stack([d["n_kw"] for d in self._trace])  # (T, K, V)
        n_k_stack = n_kw_stack.sum(axis=2, keepdims=True)  # (T, K, 1)
        phi_stack = (n_kw_stack + eta) / (n_k_stack + V * eta)  # (T, K, V)
        return phi_stack.mean(axis=0)  # (K, V)


key = jax.random.PRNGKey(0)
synth = generate_lda_corpus(key, num_docs=6, num_topics=3, vocab_size=10, doc_length=5)
corpus     = synth.corpus
true_beta  = np.asarray(synth.beta)  # (K, V)

model   = LDAModel(num_topics=3, vocab_size=corpus.vocab_size)
config  = SamplerConfig(num_iters=6, burn_in=2, thin=2, rng_key=jax.random.PRNGKey(1), show_progress=False)
sampler = GibbsSampler(corpus, model, config)
sampler.run()
est_phi = np.asarray(sampler.posterior_phi())  # (K, V)

# directly use run_gibbs for much faster lax.scan gibbs
final_state, _ = run_gibbs(corpus,
                           model,
                           num_iters=3,
                           key=key)  # expect: JIT502


if __name__ == "__main__":
    import logging

    # the first sweep's key is the key init_state drew the initial topics from
    seen = []

    def recording_kernel(state, corpus, model, *, key):
        seen.append(key)
        return collapsed_gibbs_step(state, corpus, model, key=key)

    s = GibbsSampler(corpus, model, SamplerConfig(num_iters=3, rng_key=jax.random.PRNGKey(1), show_progress=False),
                     kernel=recording_kernel)
    s.run()
    init_sub = jax.random.split(jax.random.PRNGKey(1))[1]
    # observed: line 217 splits the key init_state already split: the first sweep gets init_state's `sub`
    assert bool((jax.random.key_data(seen[0]) == jax.random.key_data(init_sub)).all())
    assert bool((jax.random.randint(init_sub, (corpus.num_tokens,), 0, 3, dtype=jnp.int32)
                 == s.model.init_state(corpus, key=jax.random.PRNGKey(1)).z).all())

    # every sweep compiles the eager scan of a new _update_token closure again
    records = []
    handler = logging.Handler()
    handler.emit = lambda r: records.append(r.getMessage())
    logging.getLogger("jax").addHandler(handler)
    jax.config.update("jax_log_compiles", True)
    GibbsSampler(corpus, model, SamplerConfig(num_iters=3, rng_key=jax.random.PRNGKey(2), show_progress=False)).run()
    jax.config.update("jax_log_compiles", False)
    scans = [m for m in records if m.startswith("Compiling jit(scan)")]
    # observed: line 115 compiles its scan once per sweep: three sweeps, three compilations
    assert len(scans) == 3, records

    # run_gibbs: _scan_gibbs gets the key init_state split, the notebook's key the corpus was drawn from
    sweep_keys = []
    _step = collapsed_gibbs_step

    def collapsed_gibbs_step(state, corpus, model, *, key):
        jax.debug.callback(lambda k: sweep_keys.append(np.asarray(k)), jax.random.key_data(key))
        return _step(state, corpus, model, key=key)

    run_gibbs(corpus, model, num_iters=2, key=jax.random.PRNGKey(3))
    collapsed_gibbs_step = _step
    # observed: line 134 hands _scan_gibbs the key init_state split: its first sweep gets init_state's `sub`
    assert (sweep_keys[0] == np.asarray(jax.random.key_data(jax.random.split(jax.random.PRNGKey(3))[1]))).all()
    # observed: line 248 calls run_gibbs with the key generate_lda_corpus split: the initial topics come from the key beta was drawn from
    sub_beta = jax.random.split(jax.random.PRNGKey(0))[1]
    assert bool((jax.random.dirichlet(sub_beta, jnp.full((10,), 0.1), shape=(3,)) == synth.beta).all())
    sub_init = jax.random.split(jax.random.PRNGKey(0))[1]
    assert bool((jax.random.randint(sub_init, (corpus.num_tokens,), 0, 3, dtype=jnp.int32)
                 == model.init_state(corpus, key=jax.random.PRNGKey(0)).z).all())
    print("OK")
