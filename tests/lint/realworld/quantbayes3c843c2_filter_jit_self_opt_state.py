# source: https://github.com/josephmargaryan/quantbayes/blob/3c843c20f9d010134df0c0000f083dd260719000/quantbayes/stochax/regression.py
# observed on jax 0.10.2 CPU: train_step is an eqx.filter_jit method of a plain Python class, so `self` is a static argument (hashed by identity) and self.opt_state is read once at trace time and baked into the compiled step; fit() stores each new opt_state on self, but every later step still starts from the initial Adam state (count stays 1, moments restart from zero), so training silently runs as repeated "first Adam steps"
# gap: stale-state-attributes
# observed: line 59 after fit() runs 40 steps, reg_model.opt_state[0].count is 1 (the step always updates from the opt_state captured at trace time); the loss sticks at 0.0370 from epoch 20 on, and the weights differ by 0.11 from the same loop with the state passed as an argument (count 40)
# stand-in: BaseModel (quantbayes/stochax/base.py at the same commit) reduced to its __init__; removed: the matplotlib plots (visualize and the training-curve plot in fit); input: generate_regression_data/sklearn split replaced by a small synthetic linear regression set
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax


class BaseModel:
    def __init__(self, batch_size=None, key=None):
        self.batch_size = batch_size
        self.key = key if key is not None else jax.random.PRNGKey(0)
        self.train_losses = []
        self.val_losses = []
        self._compiled = False  # Ensure user compiles model before training


class SimpleRegressor(eqx.Module):
    linear: eqx.nn.Linear

    def __init__(self, key, in_features, out_features=1):
        self.linear = eqx.nn.Linear(in_features, out_features, key=key)

    def __call__(self, x):
        out = self.linear(x)
        return jnp.squeeze(out)

class RegressionModel(BaseModel):
    def __init__(self, batch_size=None, key=None):
        """
        Initialize the regression model.
        """
        super().__init__(batch_size, key)
        self.opt_state = None  # This will be set when training begins

    @staticmethod
    def mse_loss(model, x, y):
        """
        Compute the mean squared error over a dataset.
        """
        preds = jax.vmap(model)(x)
        return jnp.mean((preds - y) ** 2)

    # The train_step is now decorated with filter_jit so that it is compiled,
    # and we use filter_value_and_grad within it for efficient gradient computation.
    @eqx.filter_jit
    def train_step(self, model, state, X, y, key):
        # Define a loss function and compute its value and gradient.
        # The filter_value_and_grad decorator automatically filters out nondifferentiable parts.
        @eqx.filter_value_and_grad(has_aux=False)
        def loss_fn(m):
            return RegressionModel.mse_loss(m, X, y)
        loss, grads = loss_fn(model)
        # Use the stored optimizer to update parameters.
        updates, new_opt_state = self.optimizer.update(grads, self.opt_state)  # expect: JIT201
        new_model = eqx.apply_updates(model, updates)
        return loss, new_model, new_opt_state

    # JIT-compiled predict_step for fast inference.
    @eqx.filter_jit
    def predict_step(self, model, state, X, key):
        return jax.vmap(model)(X)

    def fit(self, model, X_train, y_train, X_val, y_val, num_epochs=100, lr=1e-3, patience=10):
        """
        Trains the regression model using early stopping. This method initializes the optimizer,
        runs the training loop, tracks losses, and plots the training curves.
        """
        # Initialize the optimizer and its state.
        self.optimizer = optax.adam(lr)
        self.opt_state = self.optimizer.init(eqx.filter(model, eqx.is_array))

        best_val_loss = float("inf")
        patience_counter = 0

        # Reset training history
        self.train_losses = []
        self.val_losses = []

        for epoch in range(num_epochs):
            # For this example we assume full-batch training.
            # (You could also iterate over mini-batches if self.batch_size is specified.)
            self.key, subkey = jax.random.split(self.key)
            train_loss, model, self.opt_state = self.train_step(model, None, X_train, y_train, subkey)
            val_loss = RegressionModel.mse_loss(model, X_val, y_val)

            self.train_losses.append(float(train_loss))
            self.val_losses.append(float(val_loss))

            # Early stopping logic
            if val_loss < best_val_loss:
                best_val_loss = val_loss
                patience_counter = 0
            else:
                patience_counter += 1

            if (epoch + 1) % 20 == 0:
                print(f"Epoch {epoch+1}/{num_epochs} - Train Loss: {train_loss:.4f}, Val Loss: {val_loss:.4f}")

            if patience_counter >= patience:
                print("Early stopping triggered.")
                break

        return model

if __name__ == "__main__":
    rs = np.random.RandomState(24)
    X = rs.randn(200, 4).astype(np.float32)
    y = (X @ np.array([0.5, -1.0, 2.0, 0.3], np.float32) + 0.1 * rs.randn(200)).astype(np.float32)
    X, y = jnp.array(X), jnp.array(y)
    X_train, X_test, y_train, y_test = X[:160], X[160:], y[:160], y[160:]

    key = jax.random.PRNGKey(42)
    in_features = X_train.shape[1]
    model = SimpleRegressor(key, in_features)

    # Create an instance of our RegressionModel subclass.
    reg_model = RegressionModel(key=key)

    num_epochs = 40
    # Train the model using the regression fit method.
    trained_model = reg_model.fit(
        model,
        X_train,
        y_train,
        X_val=X_test,
        y_val=y_test,
        num_epochs=num_epochs,
        lr=1e-1,
        patience=1000
    )
    preds = reg_model.predict_step(trained_model, None, X_test, None)

    # --- demonstration: the optimizer state handed back after 40 steps is still the state after one step
    count = int(reg_model.opt_state[0].count)
    print("Adam step count after", num_epochs, "train steps:", count)
    assert count == 1, count

    # the same loop with the optimizer state passed in as an argument (fresh state every step)
    opt = optax.adam(1e-1)
    m = model
    st = opt.init(eqx.filter(m, eqx.is_array))

    @eqx.filter_jit
    def step(m, st):
        loss, grads = eqx.filter_value_and_grad(RegressionModel.mse_loss)(m, X_train, y_train)
        updates, st = opt.update(grads, st)
        return eqx.apply_updates(m, updates), st

    for _ in range(num_epochs):
        m, st = step(m, st)
    assert int(st[0].count) == num_epochs
    diff = float(jnp.max(jnp.abs(m.linear.weight - trained_model.linear.weight)))
    print("max |weight difference| against the threaded-state loop:", diff)
    assert diff > 1e-3
