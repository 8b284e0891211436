# source: https://github.com/yabramuvdi/yabramuvdi.github.io/blob/0ed865213788cf8dd95c0d99483914d8e8411f47/_posts/2022-05-01-word2vec_notebook.md
#   (blog post "Implementing the Word2Vec model in JAX": skip-gram examples, a jitted
#   predict_probs, a per-example negative-sampling loss vmapped into batched_loss, a
#   jitted value_and_grad and a jitted Adam update called from a Python training loop)
# observed on jax 0.10.2 CPU: runs clean: update, grad_loss and batched_loss read the
#   module's opt_update/get_params/batched_loss, which are bound once and never rebound;
#   the step count and noise are traced arguments, so update compiles once for the full
#   batch shape and once for the shorter last batch of an epoch (2 entries in its cache
#   over 20 epochs), the loss falls and every parameter stays finite.
# gap: other
# added/changed: the imports the code uses (jax.experimental.optimizers is now
#   jax.example_libraries.optimizers); a small synthetic corpus and vocabulary in place
#   of the Bank of England reports and the preprocessing class, and uniform negative
#   samples drawn with NumPy in place of gen_neg_samples (which uses the removed np.int
#   and random.sample on a set); the notebook's display/inspection cells, the
#   matplotlib plot after training and the nearest-neighbour section are left out; the
#   __main__ block.
import math
import time

import numpy as np
import jax
import jax.numpy as jnp
from jax import jit, vmap, value_and_grad
from jax.random import PRNGKey as Key
from jax.example_libraries import optimizers


def skipgram_examples(corpus, vocab_dict, window=2):
    """ Function to identify center and context words in the provided corpus.
        Examples are only generated for words that are in a position in which 
        sufficient context words are available (window*2).
    
    Args:
        corpus (list): containing each document of the corpus represented
        as a list of tokens
        
        vocab_dict (dict): mapping words to their index representation
        
        window (int): window*2 will be the total number of words considered
        as context; (window) words before and (window) words after the
        selected center word
        
    Returns:
        jax array of indexes representing each center word in the corpus
        jax array of jax arrays representing the indexes of context words
    """

    # lists to store the results
    centers = []
    contexts = []
    
    # iterate over al documents in the corpus
    for doc in corpus:

        center = window
        while center < (len(doc)-window):
            # save the current center word
            centers.append(vocab_dict[doc[center]])
            # create a list to store the context of the current center
            context_words = []
            # search for context
            for i in range(0, (window*2)+1):
                if (center-window+i) != center:
                    context_words.append(vocab_dict[doc[center-window+i]])

            # append all the context words identified
            contexts.append(context_words)
            # update center
            center += 1
                   
    return jnp.array(centers), jnp.array(contexts)


# added: a synthetic corpus in place of the preprocessed Inflation Reports
_rng = np.random.default_rng(0)
vocab = [f"w{i}" for i in range(40)]
word2idx = {w: i for i, w in enumerate(vocab)}
idx2word = {i: w for w, i in word2idx.items()}
corpus = [[vocab[j] for j in _rng.integers(0, len(vocab), size=30)] for _ in range(8)]

window_size = 4
centers, contexts = skipgram_examples(corpus, word2idx, window_size)

num_ns = 2
# added: uniform negative samples (the post's gen_neg_samples excludes the context words)
neg_samples = jnp.array(_rng.integers(0, len(vocab), size=(centers.shape[0], window_size * num_ns * 2)))


def init_params(vocab_size, emb_size, mean, std, seed):
    """ Function to generate random initial parameter matrices
    
    Args:
        vocab_size (int)
        emb_size (int)
        mean (float): of  normal distribution
        std (float): of normal distribution
        seed (int): to initialize NumPy generator
    
    Returns:
        list with two matrices randomly generated with the specified dimensions
    """
    
     
    # initialize the generator
    generator = np.random.default_rng(seed)
    
    W = jnp.array(generator.normal(loc=mean, scale=std, size=(vocab_size, emb_size)))
    C = jnp.array(generator.normal(loc=mean, scale=std, size=(vocab_size, emb_size)))
    
    return [W, C]


@jit
def predict_probs(params, center_idx, contexts_idx):
    """ Estimate the probability of the context words given a center word
    
    Args:
        params (list): containing the parameters of the model
        center_idx (int): index of the center word
        contexts_idx (list): containing the indexes of the context words
    
    Returns:
        jax array with one probability for each context word
    """
    
    # unpack the wegihts matrices: Word embeddings and Context embeddings
    W, C = params[0], params[1]
    
    # get the W-embedding of the center word
    W_center = jnp.take(W, center_idx, axis=0)
    
    # get the C-embedding for the context words
    C_contexts = jnp.take(C, contexts_idx, axis=0)
    
    # similarity score: dot product of word embedding of center word and 
    # context embeddings of context words
    similarities = W_center@C_contexts.T
    
    # finally, in order to transform this similarity into a probability we use
    # the sigmoid function
        
    return jax.nn.sigmoid(similarities)


@jit
def loss_per_example(params, center_idx, contexts_idx, ns_idx, noise=0.000001):
    """ calculate the loss for a center word and it's positive and
        negative examples
    """
            
    #----------------------------
    # Loss from positive samples
    #----------------------------
    
    # get the scores for the real context
    preds_pos = predict_probs(params, center_idx, contexts_idx)
    
    # loss for the positive (real) context words
    loss_pos = jnp.sum(jnp.log(preds_pos + noise))
    
    #----------------------------
    # Loss from negative samples
    #----------------------------
    
    # get the scores for all the negative samples
    preds_neg = 1 - predict_probs(params, center_idx, ns_idx)
    
    # loss for the negative samples
    loss_neg = jnp.sum(jnp.log(preds_neg + noise))
    
    return -(loss_pos + loss_neg)


# create a vectorized version of the loss using the vmap function from JAX
# the option "in_axes" indicates over which parameters to iterate
batched_loss = jit(vmap(loss_per_example, in_axes=(None, 0, 0, 0, None)))


@jit
def complete_loss(params, all_center_idx, all_contexts_idx, all_ns_idx, noise):
    """ function to calculate the loss for a batch of data by adding the
        individual losses for each example
    """
        
    # get all losses from the examples
    losses = batched_loss(params, all_center_idx, all_contexts_idx, all_ns_idx, noise)
    
    return jnp.sum(losses)/all_center_idx.shape[0]


# use JAX to create a vesion of the loss function that can handle gradients
# the option "argnums" indicates where the parameters of the model are.
# finally use JIT to speed up computations... All JAX magic in one place

grad_loss = jit(value_and_grad(complete_loss, argnums=0))


@jit
def update(params, step, all_center_idx, all_contexts_idx, all_ns_idx, noise, opt_state):
    """ compute the gradient for a batch of data and update parameters
    """
    
    # calculate the gradients and the value of the loss function
    loss_value, grads = grad_loss(params, all_center_idx, all_contexts_idx, all_ns_idx, noise)
    
    # update the parameters with a gradient descent algorithm
    opt_state = opt_update(step, grads, opt_state)

    return loss_value, get_params(opt_state), opt_state 


# create some lists to log data
loss_epoch = []

# define vocabulary and embedding size
vocab_size = len(vocab)
emb_size = 100

# training parameters
noise = 1e-8
step_size = 0.001
num_epochs = 20
batch_size = 32

# randomly initialize the two weights matrices
params_seed = 92
params_mean = 0
params_std = 1

params = init_params(vocab_size, emb_size, params_mean, params_std, params_seed)
opt_init, opt_update, get_params = optimizers.adam(step_size)
opt_state = opt_init(params)

# keep track of how many times we are updating the parameters
num_updates = 0

num_batches = math.floor(centers.shape[0]/batch_size)
print(f"Number of batches to process {num_batches} in {num_epochs} epochs")

# train through the epochs
for epoch in range(num_epochs):
    
    start_time = time.time()
    
    # IMPORTANT: SHUFFLE EXAMPLES IN EVERY EPOCH!    
    indexes = jnp.array(list(range(0, centers.shape[0])))
    shuffled_idx = jax.random.permutation(Key(epoch), indexes)
    centers = jnp.take(centers, shuffled_idx, axis=0)
    contexts = jnp.take(contexts, shuffled_idx, axis=0)
    neg_samples = jnp.take(neg_samples, shuffled_idx, axis=0)
    
    # split data into batches
    init_index = 0
    end_index = batch_size
    
    loss_epoch_list = []
    for batch in range(num_batches+1):
        
        # get the data from the current batch
        batch_idx = jnp.array(range(init_index, end_index))
        batch_centers = jnp.take(centers, batch_idx, axis=0)
        batch_contexts = jnp.take(contexts, batch_idx, axis=0)
        batch_ns = jnp.take(neg_samples, batch_idx, axis=0)
        
        # calculate gradients and update parameters for each batch
        loss_batch, params, opt_state = update(params, num_updates, batch_centers, 
                                                    batch_contexts, batch_ns, noise, opt_state)
        loss_epoch_list.append(loss_batch)
        num_updates += 1
        
        # update indexes
        init_index = end_index
        # if we are in the last batch...
        if batch == num_batches-1:
            end_index = centers.shape[0]
        else:
            end_index += batch_size
                
    epoch_time = time.time() - start_time
    loss_epoch.append(sum(loss_epoch_list))
    
    if epoch%10 == 0:
        print("Epoch {} in {:0.2f} sec".format(epoch, epoch_time))
        print("Loss value: {}".format(sum(loss_epoch_list)))


if __name__ == "__main__":
    # the data leave a short last batch each epoch: two batch shapes in all
    assert centers.shape[0] % batch_size != 0
    assert num_updates == num_epochs * (num_batches + 1)
    # one compilation per batch shape over all 20 epochs, none per step or per epoch
    assert update._cache_size() == 2, update._cache_size()
    assert all(bool(jnp.isfinite(p).all()) for p in params)
    assert float(loss_epoch[-1]) < float(loss_epoch[0]), (loss_epoch[0], loss_epoch[-1])
    # the jitted update matches the same step computed without jit
    b_c, b_x, b_n = centers[:batch_size], contexts[:batch_size], neg_samples[:batch_size]
    loss_jit, params_jit, _ = update(params, num_updates, b_c, b_x, b_n, noise, opt_state)
    with jax.disable_jit():
        loss_eager, params_eager, _ = update(params, num_updates, b_c, b_x, b_n, noise, opt_state)
    assert jnp.allclose(loss_jit, loss_eager, rtol=1e-4)
    assert all(jnp.allclose(a, b, atol=1e-5) for a, b in zip(params_jit, params_eager))
    print("OK: word2vec trains with one compile per batch shape")
