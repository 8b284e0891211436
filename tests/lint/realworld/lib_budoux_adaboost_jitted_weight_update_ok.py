# source: https://github.com/google/budoux/blob/83a65dc9655dd7bf5c3bedee6e830cc1f03fd889/scripts/train.py
#   (pull request https://github.com/google/budoux/pull/95, "Apply JAX JIT compiling for faster
#   training": BudouX's AdaBoost trainer with `pred`, `update_weight` and `update_weight_chunk`
#   jitted; the Python driver loop reads the jitted step's outputs back with `int(...)` and
#   branches on them outside the trace)
# observed on jax 0.10.2 CPU: runs clean: `pred` indexes `X[:, list(phis.keys())]` with the
#   dict's keys, which are pytree structure (static), `update_weight_chunk` loops over
#   `range(0, N, chunk_size)` with N from a shape and `chunk_size` static, and `fit` converts
#   `m_best`/`pol_best` only after the jitted call returns. Both the chunked and unchunked paths
#   give the same weights. Kept: the imports, constants, `Result`, `pred`, `get_metrics`,
#   `update_weight`, `update_weight_chunk` and `fit` as they are (the license header,
#   `preprocess`, `split_dataset`, `parse_args` and `main`, which read files and the command
#   line, are left out). Added: the __main__ block with random boolean data and temporary files.
# gap: exemption-vs-JAX
import argparse
import typing
from collections import Counter
from functools import partial
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
import numpy.typing as npt
from jax import device_put, jit

EPS = np.finfo(float).eps  # type: np.floating[typing.Any]
DEFAULT_OUTPUT_NAME = 'weights.txt'
DEFAULT_LOG_NAME = 'train.log'
DEFAULT_FEATURE_THRES = 10
DEFAULT_ITERATION = 10000
DEFAULT_OUT_SPAN = 100
ArgList = typing.Optional[typing.List[str]]


class Result(NamedTuple):
  tp: int
  tn: int
  fp: int
  fn: int
  accuracy: float
  precision: float
  recall: float
  fscore: float



@jit
def pred(phis: typing.Dict[int, float],
         X: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
  """Predicts the output from the given classifiers and input entries.

  Args:
    phis (Dict[int, float]): Classifiers represented as a mapping from the
      feature index to its score.
    X (numpy.ndarray): Input entries.

  Returns:
    A list of inferred labels.
  """
  alphas: npt.NDArray[np.float64]
  y: npt.NDArray[np.int64]

  alphas = jnp.array(list(phis.values()))
  y = 2 * (
      X[:, list(phis.keys())] == True  # noqa (cannot replace `==` with `is`)
  ) - 1
  result: npt.NDArray[np.bool_] = y.dot(alphas) > 0
  return result


def get_metrics(pred: npt.NDArray[np.bool_],
                actual: npt.NDArray[np.bool_]) -> Result:
  tp = np.sum(np.logical_and(pred == 1, actual == 1))
  tn = np.sum(np.logical_and(pred == 0, actual == 0))
  fp = np.sum(np.logical_and(pred == 1, actual == 0))
  fn = np.sum(np.logical_and(pred == 0, actual == 1))
  accuracy = (tp + tn) / (tp + tn + fp + fn)
  precision = tp / (tp + fp)
  recall = tp / (tp + fn)
  return Result(
      tp=tp,
      tn=tn,
      fp=fp,
      fn=fn,
      accuracy=accuracy,
      precision=precision,
      recall=recall,
      fscore=2 * precision * recall / (precision + recall),
  )


@jit
def update_weight(
    w: npt.NDArray[np.float64], YX: npt.NDArray[np.bool_]
) -> typing.Tuple[npt.NDArray[np.float64], float, int, bool]:
  res = w.dot(YX)
  err = 0.5 - jnp.abs(res - 0.5)
  m_best = err.argmin()
  pol_best = res.at[m_best].get() < 0.5
  err_min = err.at[m_best].get()
  alpha = jnp.log((1 - err_min) / (err_min + EPS))
  w = w * jnp.exp(alpha * (YX[:, m_best] == pol_best))
  w = w / w.sum()
  return w, alpha, m_best, pol_best


@partial(jit, static_argnames=['chunk_size'])
def update_weight_chunk(
    w: npt.NDArray[np.float64], YX: npt.NDArray[np.bool_],
    chunk_size: int) -> typing.Tuple[npt.NDArray[np.float64], float, int, bool]:
  N, M = YX.shape
  res = jnp.zeros(M)
  for chunk in range(0, N, chunk_size):
    res += w[chunk:chunk + chunk_size].dot(YX[chunk:chunk + chunk_size])
  err = 0.5 - jnp.abs(res - 0.5)
  m_best = err.argmin()
  pol_best = res.at[m_best].get() < 0.5
  err_min = err.at[m_best].get()
  alpha = jnp.log((1 - err_min) / (err_min + EPS))
  w = w * jnp.exp(alpha * (YX[:, m_best] == pol_best))
  w = w / w.sum()
  return w, alpha, m_best, pol_best


def fit(X_train: npt.NDArray[np.bool_],
        Y_train: npt.NDArray[np.bool_],
        X_test: npt.NDArray[np.bool_],
        Y_test: npt.NDArray[np.bool_],
        features: typing.List[str],
        iters: int,
        weights_filename: str,
        log_filename: str,
        out_span: int,
        chunk_size: typing.Optional[int] = None) -> typing.Dict[int, float]:
  """Trains an AdaBoost classifier.

  Args:
    X_train (numpy.ndarray): Training entries.
    Y_train (numpy.ndarray): Training labels.
    X_test (numpy.ndarray): Testing entries.
    Y_test (numpy.ndarray): Testing labels.
    features (List[str]): Features, which correspond to the columns of entries.
    iters (int): A number of training iterations.
    weights_filename (str): A file path to write the learned weights.
    log_filename (str): A file path to log the accuracy along with training.
    out_span (int): Iteration span to output metics and weights.
    chunk_size (Optional[int]): A chunk size to split training entries for
      memory efficiency.

  Returns:
    phi (Dict[int, float]): Learned child classifiers.
  """
  with open(weights_filename, 'w') as f:
    f.write('')
  with open(log_filename, 'w') as f:
    f.write(
        'iter\ttrain_accuracy\ttrain_precision\ttrain_recall\ttrain_fscore\t'
        'test_accuracy\ttest_precision\ttest_recall\ttest_fscore\n')
  print('Outputting learned weights to %s ...' % (weights_filename))

  phis: typing.Dict[int, float] = dict()
  phi_buffer: typing.List[typing.Tuple[str, float]] = []

  assert (X_train.shape[1] == X_test.shape[1]
         ), 'Training and test entries should have the same number of features.'
  assert (X_train.shape[1] - 1 == len(features)
         ), 'The training data should have the same number of features + BIAS.'
  assert (X_train.shape[0] == Y_train.shape[0]
         ), 'Training entries and labels should have the same number of items.'
  assert (X_test.shape[0] == Y_test.shape[0]
         ), 'Testing entries and labels should have the same number of items.'

  X_train = device_put(X_train)
  Y_train = device_put(Y_train)
  X_test = device_put(X_test)
  Y_test = device_put(Y_test)
  N_train, _ = X_train.shape
  w = jnp.ones(N_train) / N_train
  YX_train = Y_train[:, None] ^ X_train

  def output_progress(t: int) -> None:
    with open(weights_filename, 'a') as f:
      f.write('\n'.join('%s\t%.6f' % p for p in phi_buffer) + '\n')
    phi_buffer.clear()
    pred_train = pred(phis, X_train)
    pred_test = pred(phis, X_test)
    metrics_train = get_metrics(pred_train, Y_train)
    metrics_test = get_metrics(pred_test, Y_test)
    print('=== %s ===' % t)
    print()
    print('train accuracy:\t%.5f' % metrics_train.accuracy)
    print('train prec.:\t%.5f' % metrics_train.precision)
    print('train recall:\t%.5f' % metrics_train.recall)
    print('train fscore:\t%.5f' % metrics_train.fscore)
    print()
    print('test accuracy:\t%.5f' % metrics_test.accuracy)
    print('test prec.:\t%.5f' % metrics_test.precision)
    print('test recall:\t%.5f' % metrics_test.recall)
    print('test fscore:\t%.5f' % metrics_test.fscore)
    print()
    with open(log_filename, 'a') as f:
      f.write('%d\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\t%.5f\n' % (
          t,
          metrics_train.accuracy,
          metrics_train.precision,
          metrics_train.recall,
          metrics_train.fscore,
          metrics_test.accuracy,
          metrics_test.precision,
          metrics_test.recall,
          metrics_test.fscore,
      ))

  for t in range(iters):
    if chunk_size:
      w, alpha, m_best, pol_best = update_weight_chunk(w, YX_train, chunk_size)
    else:
      w, alpha, m_best, pol_best = update_weight(w, YX_train)
    w.block_until_ready()
    m_best = int(m_best)
    alpha_signed = alpha if pol_best else -alpha
    phis.setdefault(m_best, 0)
    phis[m_best] += alpha_signed
    feature = features[m_best] if m_best < len(features) else 'BIAS'
    phi_buffer.append((feature, alpha_signed))
    if (t + 1) % out_span == 0:
      output_progress(t + 1)
  if len(phi_buffer) > 0:
    output_progress(t + 1)

  return phis


if __name__ == "__main__":
  import os
  import tempfile
  rng = np.random.default_rng(0)
  X = rng.random((200, 9)) < 0.3
  X[:, -1] = True
  Y = X[:, 0] ^ (rng.random(200) < 0.1)
  features = ['f%d' % i for i in range(8)]
  with tempfile.TemporaryDirectory() as d:
    phis = fit(X[:160], Y[:160], X[160:], Y[160:], features, 20,
               os.path.join(d, 'w.txt'), os.path.join(d, 'log.txt'), 10)
    phis_chunked = fit(X[:160], Y[:160], X[160:], Y[160:], features, 20,
                       os.path.join(d, 'w.txt'), os.path.join(d, 'log.txt'), 10,
                       chunk_size=64)
  assert sorted(phis) == sorted(phis_chunked)
  for k in phis:
    assert abs(float(phis[k]) - float(phis_chunked[k])) < 1e-4
