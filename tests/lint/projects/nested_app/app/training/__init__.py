from .step import train_step
