"""A flat package: the jitted steps in train.py, the traced code in model.py and losses.py."""
