# source: https://github.com/gwwilburn/JAXPotts/blob/5b587ff9b91d2e39d51f3c11519087e75e9de3e0/jxp_mcmc.py
#   (an individual's Potts-model toolkit for protein/RNA alignments: Boltzmann machine learning
#   with MCMC sequence emission); the emission script's body is jxp_pottsemit.py at the same commit
# observed on jax 0.10.2 CPU: both emitters draw the random initial sequence with
#   random.choice(key, ...) and then hand the same key on to the chains. MCMC_SeqEmit passes `key`
#   into the lax.scan whose MCMC_SpinFlip splits it; the script splits it into the Nseq chain keys.
#   random.choice (randint) consumes a key by splitting it in two, and JAX's default
#   (partitionable) threefry splits a key alike for any count, so after one flip the chain's key
#   is the very key the initial sequence was drawn from, and the script's first two chain keys are
#   the two keys random.choice consumed. JAX's key-reuse checker raises at the lax.scan call
#   ("Previously-consumed key passed to scan") and, with the emitter skipped (argument skip-seqemit), at the script's split.
# gap: other
# Kept: jxp_mcmc.py as written, except jax.ops.index_update(x, index[i,:], v), removed from JAX,
#   spelled x.at[i,:].set(v). Added: SeqUseMe (jxp_msa.py) and Potts_ScoreSeqCore (jxp_potts.py)
#   copied from the same commit; in __main__, jxp_pottsemit.py's body with its argparse values
#   (Nseq, Nflip, seed) as constants and a small random Potts model in place of Potts_Read of a
#   file; the MSA writing is left out; then the checks.
import jax.numpy as np
from jax import vmap, pmap, jit, random, lax
import jax.nn as nn


def SeqUseMe(seq_1hot):
   L = seq_1hot.shape[0]
   return np.tensordot(seq_1hot, seq_1hot, axes=0)  * np.reshape(1-np.eye(L), (L,1,L,1))

# Potts Model scoring function (Hamiltonian calculation) for 1 aligned sequence
@jit
def Potts_ScoreSeqCore(h, e, seq_1hot):

   seq_useme = SeqUseMe(seq_1hot)

   return np.tensordot(h, seq_1hot, axes=([0,1],[0,1])) + (np.tensordot(e,seq_useme,axes=([0,1,2,3],[0,1,2,3])) / 2.0)


@jit
def MCMC_SpinFlip(h,e, seq_1hot, H, key):

   (L,q) = h.shape

   # advance RNG
   key, subkey_site, subkey_char, subkey_accept = random.split(key, 4)

   # choose site to flip
   i = random.choice(subkey_site, np.arange(L))

   # pick random character for chosen site
   a = random.choice(subkey_char, np.arange(q))

   # make proposal sequence
   seq_1hot_tmp = seq_1hot.at[i,:].set(nn.one_hot(a, q))

   H_tmp = Potts_ScoreSeqCore(h,e,seq_1hot_tmp)

   accept_prob = np.exp(H_tmp - H)


   flip = np.zeros((L,q),dtype=np.bool_)
   accept_draw = random.uniform(subkey_accept)
   flip = flip.at[i,:].set(accept_draw < accept_prob)

   return np.where(flip, seq_1hot_tmp, seq_1hot), np.where( accept_draw < accept_prob, H_tmp, H), key

def MCMC_SeqEmit(h, e, key, nflip):
   (L,q) = h.shape

   seq_1hot = nn.one_hot(random.choice(key, np.arange(0,q), shape = (1,L))[0],q)
   H = Potts_ScoreSeqCore(h,e,seq_1hot)

   @jit
   def loop_fun_scan(loop_carry, i):
      h, e, seq_1hot, H, key = loop_carry
      seq_1hot, H, key = MCMC_SpinFlip(h, e, seq_1hot, H, key)
      return (h, e, seq_1hot, H, key), i

   (h, e, seq_1hot, H, key), i = lax.scan(loop_fun_scan, (h,e,seq_1hot, H, key), None, length = nflip)  # expect: JIT502

   return seq_1hot, H, key

MCMC_MSAEmit = vmap(MCMC_SeqEmit, in_axes = (None, None, 0, None), out_axes = (0,0,0))

def MCMC_SeqEmitPersistent(h, e, seq_1hot, key, nflip):
   (L,q) = h.shape

   # 1-hot sequence now taken as input argument
   #seq_1hot = nn.one_hot(random.choice(key, np.arange(0,q), shape = (1,L))[0],q)
   H = Potts_ScoreSeqCore(h,e,seq_1hot)

   #@jit
   #def loop_fun_scan(loop_carry, i):
   #   h, e, seq_1hot, H, key = loop_carry
   #   seq_1hot, H, key = MCMC_SpinFlip(h, e, seq_1hot, H, key)
   #   return (h, e, seq_1hot, H, key), i

   #(h, e, seq_1hot, H, key), i = lax.scan(loop_fun_scan, (h,e,seq_1hot, H, key), None, length = nflip)

   for i in range(0,nflip):
      seq_1hot, H, key = MCMC_SpinFlip(h, e, seq_1hot, H, key)

   return seq_1hot, H, key

MCMC_MSAEmitPersistent = vmap(MCMC_SeqEmitPersistent, in_axes = (None, None, 0, 0, None), out_axes = (0,0,0))


# observed: line 76 after one flip MCMC_SeqEmit returns random.split(key)[0], the key random.choice drew the initial sequence from (randint splits its key in two), and the flip's site key is random.split(key)[1]; JAX's key-reuse checker raises at this scan call
# observed: line 143 the script's first two chain keys are random.split(key)[0] and [1], the two keys random.choice consumed for the initial sequences; JAX's key-reuse checker raises at this split once the emitter above is skipped
if __name__ == "__main__":
   import sys
   import numpy as onp

   def same(a, b):
      return onp.array_equal(onp.asarray(random.key_data(a)), onp.asarray(random.key_data(b)))

   Nseq  = np.int32(4)
   Nflip = np.int32(25)
   seed  = 0
   L, q = 8, 21

   # read potts model (stand-in: a small random model)
   potts_h = 0.5 * random.normal(random.PRNGKey(11), (L, q))
   potts_e = 0.1 * random.normal(random.PRNGKey(12), (L, q, L, q))
   potts_e = (potts_e + np.transpose(potts_e, (2, 3, 0, 1))) / 2.

   # JAX's key-reuse checker stops at the first reuse: "skip-seqemit" goes on to the script's split
   if "skip-seqemit" not in sys.argv:
      seqs, Hs, keys_out = MCMC_MSAEmit(potts_h, potts_e, random.split(random.PRNGKey(4), 3), 10)
      seq1, H1, key_after = MCMC_SeqEmit(potts_h, potts_e, random.PRNGKey(3), 1)
      halves = random.split(random.PRNGKey(3))  # the same key, made again
      print("line 76: key after one flip == random.split(key)[0]:", same(key_after, halves[0]),
            " flip's site key == random.split(key)[1]:", same(random.split(random.PRNGKey(3), 4)[1], halves[1]))
      assert same(key_after, halves[0])
      assert same(random.split(random.PRNGKey(3), 4)[1], halves[1])

   # create pRNG keys
   key = random.PRNGKey(seed)

   L,q = potts_h.shape

   #make initial sequences randomly (in one-hot form)
   ax_1hot_mcmc = nn.one_hot(random.choice(key, np.arange(0,q), shape=(Nseq,L)), q)

   # generate Nseq pRNG keys
   keys = random.split(key, Nseq)  # expect: JIT502

   halves = random.split(random.PRNGKey(seed))  # the same key, made again
   print("line 143: keys[0], keys[1] == random.split(key):", same(keys[0], halves[0]), same(keys[1], halves[1]))
   assert same(keys[0], halves[0]) and same(keys[1], halves[1])

   # generate aligned sequences in one-hot form via MCMC
   ax_1hot_mcmc, H_mcmc, keys = MCMC_MSAEmitPersistent(potts_h, potts_e, ax_1hot_mcmc, keys, Nflip)
   print("emitted", ax_1hot_mcmc.shape, "energies", H_mcmc)
