# source: https://github.com/jax-ml/jax/issues/5839
# observed on jax 0.10.2 CPU: TracerIntegerConversionError at the `distances[i][j] = ...`
#   line: the Python list `dist` is indexed by jnp.argmin(...), a tracer (the NumPy
#   `distances` would next be given a tracer). Added: the imports (np is NumPy: np.empty and
#   .tolist()), and stand-ins for `database` (name, descriptors) and jax_cosine, which the
#   report defined elsewhere.
# gap: types
import time

import jax.numpy as jnp
import numpy as np
from jax import jit

database = [("a", [jnp.ones(4), jnp.arange(4.0)]), ("b", [jnp.full(4, 2.0)])]


def jax_cosine(u, v):
    return 1.0 - jnp.dot(u, v) / (jnp.linalg.norm(u) * jnp.linalg.norm(v))


@jit
def match_faces3(desc):
        distances = np.empty((len(desc), len(database)))
        time1 = time.time()  # tolerate: JIT204
        for i, descr in enumerate(desc):
            for j, identity in enumerate(database):
                dist = []
                for k, id_desc in enumerate(identity[1]):
                    dist.append(jax_cosine(descr, id_desc))
                distances[i][j] = dist[jnp.argmin(jnp.asarray(dist))]  # expect: JIT401  # tolerate: JIT402
        time2 = time.time() - time1  # tolerate: JIT204
        print("time2",time2)  # tolerate: JIT203
        distances=distances.tolist()
        return jnp.asarray(distances)


match_faces3(jnp.ones((2, 4)))
