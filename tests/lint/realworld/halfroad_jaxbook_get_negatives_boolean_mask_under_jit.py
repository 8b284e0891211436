# source: https://github.com/halfroad/JAX/blob/58bf1fd286010e2f1506cfd8662db1042c6089b1/Chapters/05/JAXAdvantages/5.1/5.1.3/JitMatrixDimensionsNotChangable/JitMatrixDimensionsNotChangable.py
#   (a reader's code for a JAX book, chapter 5 "JAX advantages", section 5.1.3: a function
#   that selects the negative entries of a matrix, called plainly and then under jax.jit)
# observed on jax 0.10.2 CPU: the plain call returns the negatives (shape (49,) for this key);
#   jax.jit(get_negatives)(inputs) raises NonConcreteBooleanIndexError at
#   `inputs[inputs < 0]`: the mask's number of True entries fixes the output's shape, which
#   is not known while tracing. Added: nothing; the file runs as written.
# gap: types
import jax.random


def get_negatives(inputs):

    # the dimension passed by parameter is not explicit
    return inputs[inputs < 0]  # expect: JIT403

def start():

    prng = jax.random.PRNGKey(15)
    inputs = jax.random.normal(prng, shape = [10, 10])

    negatives = get_negatives(inputs)

    print(f"negatives.shape = {negatives.shape}")

    jit_get_negatives = jax.jit(get_negatives)

    negatives = jit_get_negatives(inputs)

    print(f"negatives.shape = {negatives.shape}")

if __name__ == "__main__":

    start()
