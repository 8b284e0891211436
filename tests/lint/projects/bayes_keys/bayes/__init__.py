"""A numpyro model given to MCMC/NUTS in another module; PRNG keys handed across calls."""
