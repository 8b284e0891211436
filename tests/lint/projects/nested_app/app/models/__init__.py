from .blocks import *
from .mlp import mlp_apply as apply_mlp
from .mlp import mlp_init
