# source: https://github.com/salfaris/vgae-jax/blob/7e8a768b1023ee96d155a8050f218d4e191e07f8/train.py
# observed on jax 0.10.2 CPU: see the observed line; the commit is titled "Implemented single-use PRNGKey principle everywhere" (before it the draw used jax.random.PRNGKey(FLAGS.random_seed) inside the loss), and the same binding is still in loss.py/train.py at the repository head f42655c
# gap: flow-sensitive
# observed: line 242 loss_key is split off once in train() and bound into the loss with functools.partial, so the reparameterisation noise eps is the same array in every training epoch and in the validation and test losses: every eps drawn during 3 training epochs, the validation loss and the test loss is the same array
# (haiku, jraph and sklearn are not installed: hk.transform/without_apply_rng are pass-through stand-ins, vgae_encoder/gae_encoder are small two-layer GCN stand-ins with init/apply for model.py's haiku/jraph networks, jraph.GraphsTuple is a NamedTuple stand-in and roc_auc_score a rank-based stand-in)
# (vgae_decode/gae_decode are copied from model.py, compute_bce_with_logits_loss/compute_kl_gaussian from loss.py and negative_sampling from utils.py at the same commit, with jnp.DeviceArray renamed to jax.Array)
# (load_dataset and train_val_test_split_edges are stand-ins: a random 40-node graph with 8 features instead of Cora)
# (__main__ block added in place of app.run(main): 3 epochs, and jax.random.normal wrapped to record each eps draw)
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
import optax
from absl import app, flags, logging

import functools
from typing import Tuple, List, Dict, Any


# ---- stand-ins for haiku, jraph, sklearn and the repository's helper modules ----
class jraph:
  class GraphsTuple(NamedTuple):
    nodes: Any
    edges: Any
    receivers: Any
    senders: Any
    globals: Any
    n_node: Any
    n_edge: Any


class hk:
  Params = Any
  Transformed = Any

  @staticmethod
  def transform(f):
    return f

  @staticmethod
  def without_apply_rng(f):
    return f


class _GCNEncoder:
  """Two GCN layers with self edges; returns (mean, log_std) graphs if variational."""

  def __init__(self, variational, hidden_dim=32, latent_dim=16):
    self.variational, self.hidden_dim, self.latent_dim = variational, hidden_dim, latent_dim

  def init(self, key, graph):
    k1, k2, k3 = jax.random.split(key, 3)
    d = graph.nodes.shape[-1]
    u = lambda k, shape: jax.random.uniform(k, shape, minval=-0.3, maxval=0.3)
    return {"w1": u(k1, (d, self.hidden_dim)), "w_mean": u(k2, (self.hidden_dim, self.latent_dim)),
            "w_log_std": u(k3, (self.hidden_dim, self.latent_dim))}

  def apply(self, params, graph):
    n = graph.nodes.shape[0]
    senders = jnp.concatenate([graph.senders, jnp.arange(n)])
    receivers = jnp.concatenate([graph.receivers, jnp.arange(n)])
    deg = jax.ops.segment_sum(jnp.ones_like(senders), receivers, n)
    conv = lambda x: jax.ops.segment_sum(x[senders], receivers, n) / deg[:, None]
    h = jax.nn.relu(conv(graph.nodes @ params["w1"]))
    mean = conv(h @ params["w_mean"])
    if not self.variational:
      return graph._replace(nodes=mean)
    log_std = conv(h @ params["w_log_std"])
    return graph._replace(nodes=mean), graph._replace(nodes=log_std)


vgae_encoder = _GCNEncoder(variational=True)
gae_encoder = _GCNEncoder(variational=False)


def roc_auc_score(labels, scores):
  labels, scores = np.asarray(labels), np.asarray(scores)
  ranks = scores.argsort().argsort() + 1
  n_pos = labels.sum()
  n_neg = len(labels) - n_pos
  return (ranks[labels == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def load_dataset(path_to_dataset: str):
  rng = np.random.default_rng(0)
  n = 40
  ring = np.arange(n)
  extra_s, extra_r = rng.integers(0, n, 60), rng.integers(0, n, 60)
  s = np.concatenate([ring, (ring + 1) % n, extra_s, extra_r])
  r = np.concatenate([(ring + 1) % n, ring, extra_r, extra_s])
  graph = jraph.GraphsTuple(
      nodes=jnp.asarray(rng.normal(size=(n, 8)), dtype=jnp.float32), edges=None,
      senders=jnp.asarray(s, dtype=jnp.int32), receivers=jnp.asarray(r, dtype=jnp.int32),
      globals=None, n_node=jnp.array([n]), n_edge=jnp.array([len(s)]))
  return [{"input_graph": graph}]


def train_val_test_split_edges(graph, val_perc=0.05, test_perc=0.1):
  rng = np.random.default_rng(1)
  n = int(graph.n_node[0])
  perm = rng.permutation(graph.senders.shape[0])
  n_val, n_test = int(len(perm) * val_perc), int(len(perm) * test_perc)
  val, test, tr = perm[:n_val], perm[n_val:n_val + n_test], perm[n_val + n_test:]
  s, r = graph.senders, graph.receivers
  train_graph = graph._replace(senders=s[tr], receivers=r[tr], n_edge=jnp.array([len(tr)]))
  neg = lambda k: (jnp.asarray(rng.integers(0, n, k)), jnp.asarray(rng.integers(0, n, k)))
  val_neg_s, val_neg_r = neg(n_val)
  test_neg_s, test_neg_r = neg(n_test)
  return (train_graph, None, s[val], r[val], val_neg_s, val_neg_r,
          s[test], r[test], test_neg_s, test_neg_r)


def vgae_decode(z: jnp.ndarray, senders: jnp.ndarray,
           receivers: jnp.ndarray) -> jnp.ndarray:
  """Given a set of candidate edges, take dot product of respective nodes.

  Args:
    pred_graph: input graph.
    senders: Senders of candidate edges.
    receivers: Receivers of candidate edges.

  Returns:
    For each edge, computes dot product of the features of the two nodes.

  """
  return jnp.squeeze(
      jnp.sum(z[senders] * z[receivers], axis=1))


def gae_decode(pred_graph_nodes: jnp.ndarray, senders: jnp.ndarray,
           receivers: jnp.ndarray) -> jnp.ndarray:
  """Given a set of candidate edges, take dot product of respective nodes.

  Args:
    pred_graph: input graph.
    senders: Senders of candidate edges.
    receivers: Receivers of candidate edges.

  Returns:
    For each edge, computes dot product of the features of the two nodes.

  """
  return jnp.squeeze(
      jnp.sum(pred_graph_nodes[senders] * pred_graph_nodes[receivers], axis=1))

def compute_bce_with_logits_loss(x: jnp.ndarray, y: jnp.ndarray) -> jnp.ndarray:
  """Computes binary cross-entropy with logits loss.

  Combines sigmoid and BCE, and uses log-sum-exp trick for numerical stability.
  See https://stackoverflow.com/a/66909858 if you want to learn more.

  Args:
    x: Predictions (logits).
    y: Labels.

  Returns:
    Binary cross-entropy loss with mean aggregation.

  """
  max_val = jnp.clip(-x, 0, None)
  loss = x - x*y + max_val + jnp.log(jnp.exp(-max_val) + jnp.exp((-x-max_val)))
  return jnp.mean(loss, axis=-1)


def compute_kl_gaussian(mean: jnp.ndarray, log_std: jnp.ndarray) -> jnp.ndarray:
    r"""Calculate KL divergence between given and standard gaussian distributions.

    Args:
        mean: feature matrix of the mean.
        log_std: feature matrix of the log-covariance.

    Returns:
        A vector representing KL divergence of the two Gaussian distributions
        of length |V| where V is the nodes in the graph.
    """
    var = jnp.exp(log_std)
    return 0.5 * jnp.sum(
      -2*log_std - 1.0 + jnp.square(var) + jnp.square(mean), axis=-1)
  
  

def negative_sampling(
    graph: jraph.GraphsTuple, num_neg_samples: int,
    key: jax.Array) -> Tuple[jax.Array, jax.Array]:
  """Samples negative edges, i.e. edges that don't exist in the input graph."""
  num_nodes = graph.n_node[0]
  total_possible_edges = num_nodes**2
  # convert 2D edge indices to 1D representation.
  pos_idx = graph.senders * num_nodes + graph.receivers

  # Percentage to oversample edges, so most likely will sample enough neg edges.
  alpha = jnp.abs(1 / (1 - 1.1 *
                       (graph.senders.shape[0] / total_possible_edges)))

  perm = jax.random.randint(
      key,
      shape=(int(alpha * num_neg_samples),),
      minval=0,
      maxval=total_possible_edges,
      dtype=jnp.uint32)

  # mask where sampled edges are positive edges.
  mask = jnp.isin(perm, pos_idx)
  # remove positive edges.
  perm = perm[~mask][:num_neg_samples]

  # convert 1d back to 2d edge indices.
  neg_senders = perm // num_nodes
  neg_receivers = perm % num_nodes

  return neg_senders, neg_receivers
# ---- end of stand-ins and copied helpers ----

flags.DEFINE_float('learning_rate', 1e-2, 'Learning rate for the optimizer.')
flags.DEFINE_integer('epochs', 200, 'Number of training epochs.')
flags.DEFINE_integer('eval_frequency', 10, 'How often to evaluate the model.')
flags.DEFINE_integer('random_seed', 42, 'Random seed.')
flags.DEFINE_bool('is_vgae', True, 'Using Variational GAE vs vanilla GAE.')
FLAGS = flags.FLAGS

def compute_gae_loss(params: hk.Params, graph: jraph.GraphsTuple,
                 senders: jnp.ndarray, receivers: jnp.ndarray,
                 labels: jnp.ndarray,
                 net: hk.Transformed) -> Tuple[jnp.ndarray, jnp.ndarray]:
  """Computes GAE loss."""
  pred_graph = net.apply(params, graph)
  logits = gae_decode(pred_graph.nodes, senders, receivers)
  loss = compute_bce_with_logits_loss(logits, labels)
  return loss, logits


def compute_vgae_loss(params: hk.Params, graph: jraph.GraphsTuple,
                 senders: jnp.ndarray, receivers: jnp.ndarray,
                 labels: jnp.ndarray,
                 net: hk.Transformed, 
                 rng_key: jnp.ndarray) -> Tuple[jnp.ndarray, jnp.ndarray]:
  """Computes VGAE loss."""
  mean_graph, log_std_graph = net.apply(params, graph)
  
  mean, log_std = mean_graph.nodes, log_std_graph.nodes
  eps = jax.random.normal(rng_key, mean.shape)  # expect: JIT502
  z = mean + eps * jnp.exp(log_std)
  logits = vgae_decode(z, senders, receivers)
  
  n_node = z.shape[0]
  kld = 1/n_node * jnp.mean(compute_kl_gaussian(mean, log_std), axis=-1)
  log_likelihood = compute_bce_with_logits_loss(logits, labels)
  
  loss = log_likelihood + kld  # want to maximize this quantity.
  return loss, logits


def compute_roc_auc_score(preds: jnp.ndarray,
                          labels: jnp.ndarray) -> jnp.ndarray:
  """Computes roc auc (area under the curve) score for classification."""
  s = jax.nn.sigmoid(preds)
  roc_auc = roc_auc_score(labels, s)
  return roc_auc


def train(dataset: List[Dict[str, Any]]) -> hk.Params:
  """Training loop."""
  key = jax.random.PRNGKey(FLAGS.random_seed)
  # Transform impure network to pure functions with hk.transform.
  net_fn = vgae_encoder if FLAGS.is_vgae else gae_encoder
  net = hk.without_apply_rng(hk.transform(net_fn))
  
  # Get a candidate graph and label to initialize the network.
  graph = dataset[0]['input_graph']
  train_graph, _, val_pos_s, val_pos_r, val_neg_s, val_neg_r, test_pos_s, \
      test_pos_r, test_neg_s, test_neg_r = train_val_test_split_edges(
      graph)

  # Prepare the validation and test data.
  val_senders = jnp.concatenate((val_pos_s, val_neg_s))
  val_receivers = jnp.concatenate((val_pos_r, val_neg_r))
  val_labels = jnp.concatenate(
      (jnp.ones(len(val_pos_s)), jnp.zeros(len(val_neg_s))))
  test_senders = jnp.concatenate((test_pos_s, test_neg_s))
  test_receivers = jnp.concatenate((test_pos_r, test_neg_r))
  test_labels = jnp.concatenate(
      (jnp.ones(len(test_pos_s)), jnp.zeros(len(test_neg_s))))
  # Initialize the network.
  key, param_key = jax.random.split(key)
  params = net.init(param_key, train_graph)
  # Initialize the optimizer.
  opt_init, opt_update = optax.adam(FLAGS.learning_rate)
  opt_state = opt_init(params)
  
  if FLAGS.is_vgae:
    key, loss_key = jax.random.split(key)
    loss_fn = functools.partial(compute_vgae_loss, rng_key=loss_key)
  else:
    loss_fn = compute_gae_loss
  compute_loss_fn = functools.partial(loss_fn, net=net)
  # We jit the computation of our loss, since this is the main computation.
  # Using jax.jit means that we will use a single accelerator. If you want
  # to use more than 1 accelerator, use jax.pmap. More information can be
  # found in the jax documentation.
  compute_loss_fn = jax.jit(jax.value_and_grad(compute_loss_fn, has_aux=True))

  key, *neg_sampling_keys = jax.random.split(key, FLAGS.epochs+1)
  for epoch in range(FLAGS.epochs):
    num_neg_samples = train_graph.senders.shape[0]
    train_neg_senders, train_neg_receivers = negative_sampling(
        train_graph, num_neg_samples=num_neg_samples, key=neg_sampling_keys[epoch])
    train_senders = jnp.concatenate((train_graph.senders, train_neg_senders))
    train_receivers = jnp.concatenate(
        (train_graph.receivers, train_neg_receivers))
    train_labels = jnp.concatenate(
        (jnp.ones(len(train_graph.senders)), jnp.zeros(len(train_neg_senders))))

    (train_loss,
     train_preds), grad = compute_loss_fn(params, train_graph, train_senders,
                                          train_receivers, train_labels)

    updates, opt_state = opt_update(grad, opt_state, params)
    params = optax.apply_updates(params, updates)
    if epoch % FLAGS.eval_frequency == 0 or epoch == (FLAGS.epochs - 1):
      train_roc_auc = compute_roc_auc_score(train_preds, train_labels)
      val_loss, val_preds = loss_fn(params, train_graph, val_senders,
                                         val_receivers, val_labels, net)
      val_roc_auc = compute_roc_auc_score(val_preds, val_labels)
      logging.info(f'epoch: {epoch}, train_loss: {train_loss:.3f}, '
            f'train_roc_auc: {train_roc_auc:.3f}, val_loss: {val_loss:.3f}, '
            f'val_roc_auc: {val_roc_auc:.3f}')
  test_loss, test_preds = loss_fn(params, train_graph, test_senders,
                                       test_receivers, test_labels, net)
  test_roc_auc = compute_roc_auc_score(test_preds, test_labels)
  logging.info('Training finished')
  logging.info(
      f'epoch: {epoch}, test_loss: {test_loss:.3f}, test_roc_auc: {test_roc_auc:.3f}'
  )
  return params


if __name__ == "__main__":
  FLAGS(["train.py", "--epochs=3", "--eval_frequency=100"])
  draws = []
  _normal = jax.random.normal

  def recording_normal(key, shape=(), dtype=float):
    out = _normal(key, shape, dtype)
    jax.debug.callback(lambda a: draws.append(np.asarray(a)), out)
    return out

  jax.random.normal = recording_normal
  params = train(load_dataset('./dataset/cora.pickle'))
  jax.effects_barrier()
  jax.random.normal = _normal
  print("eps draws:", len(draws), "all identical:", all(np.array_equal(d, draws[0]) for d in draws))
  assert len(draws) >= 5, len(draws)
  assert all(np.array_equal(d, draws[0]) for d in draws)
