"""A part handed to an object built in the trace lives outside it: its method's write of a
tracer leaks. One the object builds itself (`self.ball = Ball(x)`) would stay in the trace."""

import jax
import jax.numpy as jnp


class Ball:
    def __init__(self, x):
        self.x = x

    def move(self, v):
        self.x = v  # expect: JIT202


class Game:
    def __init__(self, ball: Ball):
        self.ball = ball  # given: the caller's object

    def step(self, v):
        self.ball.move(v * 2.0)
        return self.ball.x


BALL = Ball(jnp.zeros(2))


@jax.jit
def update(v):
    return Game(BALL).step(v)


update(jnp.ones(2))
assert isinstance(BALL.x, jax.core.Tracer)
