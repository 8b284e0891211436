# source: https://github.com/hyunwoooh5/Hubbard/blob/0163c615ff0e4b726b3d7c11853a8238d8a2c88b/mc/metropolis.py
#   (Monte Carlo for the Hubbard model with contour deformations: the Metropolis Chain that
#   the repository's samplers iterate over auxiliary-field configurations)
# observed on jax 0.10.2 CPU: step hands the same self._key to _propose (which splits it
#   into the proposal key kstep and a discarded half) and to _acceptreject (which splits it
#   again and keeps the first half as the next self._key). So every next self._key is the
#   very kstep the proposal just drew its Gaussian step from, and the acceptance uniform
#   comes from the half _propose threw away. With `jax_debug_key_reuse` on and a typed key,
#   Chain.step raises KeyReuseError "Previously-consumed key passed to jit-compiled
#   function at index 0" at the _acceptreject call (__main__ checks the frame).
#   Added: a Gaussian lattice action standing in for the Hubbard action (the repository
#   builds it from its model files) and the __main__ block.
# gap: other
import jax
import jax.numpy as jnp


class Chain:
    def __init__(self, action, x0, key, delta=1., temperature=1.):
        self.action = action
        self.x = x0
        self.S = self.action(self.x)
        self.delta = delta
        self.temperature = temperature
        self._key = key
        self._recent = [False]

        def _propose(key, x, delta):
            kstep, key = jax.random.split(key, 2)
            xp = x + delta*jax.random.normal(kstep, x.shape)

            return xp

        def _acceptreject(key, temperature, x, S, xp, Sp):
            key, kacc = jax.random.split(key, 2)
            Sdiff = (Sp - S).real

            acc = jax.random.uniform(kacc) < jnp.exp(-Sdiff/temperature)
            x, S, accepted = jax.lax.cond(acc, lambda: (xp, Sp, True),
                                          lambda: (x, S, False))
            return key, x, S, accepted

        self._propose = jax.jit(_propose)
        self._acceptreject = jax.jit(_acceptreject)

    def _action(self, key, x, delta):
        xp = self._propose(key, x, delta)
        Sp = self.action(xp)
        return xp, Sp

    def step(self, N=1):
        self.S = self.action(self.x)
        for _ in range(N):
            xp, Sp = self._action(self._key, self.x, self.delta)
            self._key, self.x, self.S, accepted = self._acceptreject(  # expect: JIT502
                self._key, self.temperature, self.x, self.S, xp, Sp)
            self._recent.append(accepted)
        self._recent = self._recent[-100:]

    def calibrate(self):
        # Adjust delta.
        self.step(N=100)
        while self.acceptance_rate() < 0.3 or self.acceptance_rate() > 0.55:
            if self.acceptance_rate() < 0.3:
                self.delta *= 0.98
            if self.acceptance_rate() > 0.55:
                self.delta *= 1.02
            self.step(N=100)

    def acceptance_rate(self):
        return sum(self._recent) / len(self._recent)

    def iter(self, skip=1):
        while True:
            self.step(N=skip)
            yield self.x


def action(x):  # added: a free lattice field with a mass term, complex like the Hubbard action
    return (0.5 * jnp.sum(x ** 2) + 0.1 * jnp.sum(x * jnp.roll(x, 1))).astype(jnp.complex64)


if __name__ == "__main__":
    import traceback
    import numpy as np

    chain = Chain(action, jnp.zeros(16), jax.random.PRNGKey(0), delta=0.3)
    chain.calibrate()
    for i, x in zip(range(20), chain.iter(skip=5)):
        pass
    print("acceptance", chain.acceptance_rate(), "delta", chain.delta)

    # one step by hand: the key _acceptreject hands back is _propose's kstep
    key = chain._key
    kstep = jax.random.split(jax.random.clone(key), 2)[0]
    chain.step()
    # observed: line 55 passes the self._key that _propose already split: the next
    # self._key equals kstep, the key of the Gaussian proposal just drawn
    assert np.array_equal(np.asarray(chain._key), np.asarray(kstep))

    jax.config.update("jax_debug_key_reuse", True)
    chain = Chain(action, jnp.zeros(16), jax.random.key(0), delta=0.3)
    try:
        chain.step()
        raise AssertionError("no key reuse was reported")
    except jax.errors.KeyReuseError as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        assert "Previously-consumed key passed to jit-compiled function" in str(e), e
        assert frames[-1].lineno == 55, frames
