"""Engine: discovery, per-file linting, noqa, positions, fixing, the cache and parallelism."""
