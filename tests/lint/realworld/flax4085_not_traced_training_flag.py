# source: https://github.com/google/flax/issues/4085
# observed on jax 0.10.2 CPU with flax 0.12: calling the jitted train_setp raises
#   TracerBoolConversionError at the first `deterministic=not training`: `training` is a
#   traced argument of train_setp. Added: the imports; the model instance, optimizer and
#   data (X, y) that the report built elsewhere are small stand-ins; the report's jitted
#   `fit` loop is left out. Behind the raise: `rngs={'dropout': jax.random.PRNGKey(114)}`
#   gives the jitted step the same dropout key on every call, so once `training` is made
#   static every step drops the same units (checked with the line as written and
#   `training` static: two calls give the same mask); tolerated, as it cannot run here.
# gap: other
import jax
import jax.numpy as jnp
import optax
from flax import linen as nn


class DNN(nn.Module):
    num_hidden_units1:int
    num_hidden_units2:int
    num_outputs:int
    dropout_rate:float

    @nn.compact
    def __call__(self,x,training):
        x=nn.Dense(self.num_hidden_units1)(x)
        x=nn.relu(x)
        x=nn.Dropout(rate=self.dropout_rate,deterministic=not training)(x)  # expect: JIT103

        x=nn.Dense(self.num_hidden_units2)(x)
        x=nn.relu(x)
        x=nn.Dropout(rate=self.dropout_rate,deterministic=not training)(x)  # tolerate: JIT103

        x=nn.Dense(self.num_outputs)(x)
        return x

def mse(params,X,y,training):
    def squared_error(X,y):
        y_pred=model.apply(params,X,training,rngs={'dropout':jax.random.PRNGKey(114)})  # tolerate: JIT502
        diff=y_pred-y
        return jnp.inner(diff,diff)
    return jnp.mean(jax.vmap(squared_error)(X,y),axis=0)

@jax.jit
def train_setp(params,opt_state,X,y,training):

    loss,grads=jax.value_and_grad(mse)(params,X,y,training)
    updates,opt_state=optimizer.update(grads,opt_state)
    params=optax.apply_updates(params,updates)

    return params,opt_state,loss


model = DNN(16, 16, 1, 0.1)
optimizer = optax.adam(1e-3)
X = jnp.ones((8, 4))
y = jnp.ones((8, 1))

# Initialization
params=model.init(jax.random.PRNGKey(114),X,False)
opt_state = optimizer.init(params)
params, opt_state, loss = train_setp(params, opt_state, X, y, True)
