# source: https://github.com/halfroad/JAX/blob/4dd4c6a377173e61a4343b4081c8d889b4ce2fe9/Chapters/06/6.4/6.4.6/6-18/Counter.py
#   (a reader's code for a JAX book, chapter 6.4.6: a stateful Counter class jitted through
#   its bound method, then a stateless CounterV2 that takes and returns the count)
# observed on jax 0.10.2 CPU: `self.n += 1` runs only while JAX traces count: make_jaxpr
#   runs it once (n becomes 1, and the jaxpr returns the constant 1), the first
#   fast_count() traces again (n becomes 2) and every later call replays the compiled
#   constant, so the loop prints 2, 2, 2 and the counter stops at 2 after four "counts".
#   CounterV2 returns the new count and counts 1, 2, 3. Added: the checks in the
#   __main__ block after the file's own main().
# gap: stale-state-attributes
import jax

class Counter:

    def __init__(self):

        self.n = 0

    def count(self):

        self.n += 1  # expect: JIT202

        return self.n

    def reset(self):

        self.n = 0

class CounterV2:

    def __init__(self):

        pass

    def count(self, n):

        n += 1

        return n

def start():

    counter = Counter()

    fast_count = jax.jit(counter.count)

    print(jax.make_jaxpr(counter.count)())

    for _ in range(3):

        print(fast_count())

    counter = CounterV2()

    n = 0

    for i in range(3):

        n = counter.count(n)
        print(jax.make_jaxpr(counter.count)(n))

        print(n)

def main():

    start()

if __name__ == "__main__":

    main()

    # observed: line 21 increments the counter only when count is traced: three calls of
    # the jitted bound method all return the count of the one trace, and n stays there
    counter = Counter()
    fast_count = jax.jit(counter.count)
    results = [int(fast_count()) for _ in range(3)]
    assert results == [1, 1, 1], results
    assert counter.n == 1
    count_v2 = jax.jit(CounterV2().count)
    n = 0
    for _ in range(3):
        n = count_v2(n)
    assert int(n) == 3
