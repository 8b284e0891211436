# source: https://github.com/google-deepmind/optax/issues/415
# observed on jax 0.10.2 CPU: runs clean with the installed optax: the schedule given to
#   `inject_hyperparams` and to `scale_by_schedule` is called with the same step count
#   (0) on the first update, so both updates are 0 (in 2022 inject_hyperparams started at
#   1); the lambdas receive the traced count and only do arithmetic on it. Added: the
#   jitted updates in the __main__ block.
# gap: other
import jax.numpy as jnp
import optax

opt = optax.inject_hyperparams(optax.scale)(step_size=lambda count: count)
opt1 = optax.scale_by_schedule(step_size_fn=lambda count: count)

state = opt.init(jnp.ones(1))
updates, state = opt.update(jnp.ones(1), state)

state1 = opt1.init(jnp.ones(1))
updates1, state = opt1.update(jnp.ones(1), state1)

assert updates == updates1, f"{updates=} not equal to {updates1=}"


if __name__ == "__main__":
    import jax

    s, s1 = opt.init(jnp.ones(1)), opt1.init(jnp.ones(1))
    update, update1 = jax.jit(opt.update), jax.jit(opt1.update)
    for step in range(3):
        u, s = update(jnp.ones(1), s)
        u1, s1 = update1(jnp.ones(1), s1)
        assert u == u1 == step, (u, u1, step)
