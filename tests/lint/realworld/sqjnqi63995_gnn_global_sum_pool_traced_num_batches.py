# source: https://seo.sqjnqi.com/63995.html
#   (a Chinese Q&A article, "JAX中实现类似PyTorch scatter_add的全局求和池化操作": global sum
#   pooling of GNN node features by batch index; the same article is mirrored on
#   php.xlycwl.com/faq/1959043.html)
# observed on jax 0.10.2 CPU: the article's global_sum_pool computes the number of graphs as
#   `jnp.max(batch) + 1` and builds the output with jnp.zeros((num_batches, x.shape[1])).
#   The article says the function is compatible with jit, vmap and grad ("完全静态形状推导",
#   "兼容 jit、vmap、grad"); under jax.jit num_batches is a traced scalar, and jnp.zeros
#   raises TypeError ("Shapes must be 1D sequences of concrete values of integer type")
#   on the line that builds `out`. Without jit the function runs and gives the right sums.
# gap: omnistaging
# added: imports; the __main__ block (six nodes of three graphs, eager call, then the
#   jax.jit call the article claims works).
import jax
import jax.numpy as jnp


def global_sum_pool(x: jnp.ndarray, batch: jnp.ndarray) -> jnp.ndarray:
    """
    对节点特征 x (n, d) 按 batch 索引 (n,) 执行全局求和池化,返回图级表示 (num_batches, d)

    Args:
        x: 节点特征矩阵,shape = (n, d)
        batch: batch索引向量,shape = (n,), 值域为 [0, num_batches - 1]

    Returns:
        graph_reps: 每个图的求和表示,shape = (num_batches, d)
    """
    num_batches = jnp.max(batch) + 1  # 注意:batch索引从0开始,故+1
    out = jnp.zeros((num_batches, x.shape[1]))  # expect: JIT404
    return out.at[batch].add(x)


if __name__ == "__main__":
    x = jnp.arange(12.0).reshape(6, 2)
    batch = jnp.array([0, 0, 1, 1, 1, 2])
    print(global_sum_pool(x, batch))
    print(jax.jit(global_sum_pool)(x, batch))
