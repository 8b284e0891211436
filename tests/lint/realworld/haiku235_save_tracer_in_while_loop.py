# source: https://github.com/google-deepmind/dm-haiku/issues/235
# observed on jax 0.10.2 CPU: see the `# observed:` lines; jnp.save raises TracerArrayConversionError
#   while the loop body is traced, and the open() before it has already run (once, at trace time)
# gap: omnistaging
# The reporter's two lines sit inside a loop body of an AlphaFold model that runs under
# hk.while_loop (haiku/_src/stateful.py pure_body_fun -> jax.lax.while_loop). Haiku and AlphaFold
# are not installed here: the body below is a stand-in that computes `preprocess_1d` (shape
# [451, 256] in the report, [4, 8] here) and runs under jax.lax.while_loop directly. `file`,
# the imports and the __main__ block are added.
import os
import shutil
import sys
import tempfile
import traceback

import jax
import jax.numpy as jnp

file = os.path.join(tempfile.mkdtemp(), "preprocess_1d.npy")


def body_fun(val):
    # stand-in for the AlphaFold iteration that produces preprocess_1d
    i, msa_feat = val
    preprocess_1d = jnp.tanh(msa_feat) * (i + 1)
    with open(file, 'w') as f:  # expect: JIT204
        jnp.save(f, preprocess_1d)  # expect: JIT402  # tolerate: JIT204
    return i + 1, msa_feat + preprocess_1d


def cond_fun(val):
    i, _ = val
    return i < 3


def run(msa_feat):
    return jax.lax.while_loop(cond_fun, body_fun, (0, msa_feat))


if __name__ == "__main__":
    save_line = None
    try:
        run(jnp.ones((4, 8)))
    except jax.errors.TracerArrayConversionError:
        frames = [fr for fr in traceback.extract_tb(sys.exc_info()[2])
                  if fr.filename == __file__]
        save_line = frames[-1].lineno
    assert save_line == 27, save_line
    # observed: line 27 jnp.save on the traced preprocess_1d raises TracerArrayConversionError
    assert os.path.exists(file) and os.path.getsize(file) == 0
    # observed: line 26 open() ran while the body was being traced (the file exists and is empty), not once per loop iteration
    print("jnp.save raised at line", save_line, "; file created at trace time:", file)
    shutil.rmtree(os.path.dirname(file))
