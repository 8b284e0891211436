# source: https://github.com/NTT123/wavernn-16bit/blob/59fe3cd8eb225d709c7e06a6f30b2a7c5c6026f8/wavernn/mel2wave.py
#   (with wavernn/model.py and wavernn/config.py at the same commit: a personal 16-bit
#   WaveRNN vocoder in Haiku; trainer.py calls mel2wave every 1000 steps for a test clip)
# observed on jax 0.10.2 CPU: mel2wave takes an `rng` argument (the script's
#   `-s/--random-seed` builds it) but rebinds it to the constant `jax.random.PRNGKey(42)`
#   before sampling, so the seed never reaches the sampler: mel2wave with PRNGKey(0) and
#   with PRNGKey(1) returns the very same waveform, where inference.apply sampled with
#   those two keys gives two different waveforms. Kept: model.py's UpsampleNetwork,
#   WaveRNN and Vocoder, config.py's FLAGS, and mel2wave.py's `inference` and `mel2wave`
#   as written. Trimmed: WaveRNN.__call__ and Vocoder.__call__ (the training forward pass,
#   which mel2wave does not reach), mel2wave.py's command-line block (argparse, pickle and
#   soundfile). Added: the __main__ block, which initialises `inference` on a random
#   10-frame mel (512 samples) and compares the waveforms. JAX's key-reuse checker
#   (typed keys) stops inside haiku's hk.scan, which carries haiku's own rng state through
#   the scan, once in init and once in apply (with init run unchecked); both times the
#   innermost frame in this file is the hk.dynamic_unroll call (tolerated). Nothing in it
#   involves mel2wave's constant key.
# gap: other
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np


# --- wavernn/config.py ------------------------------------------------------------------
class FLAGS:
    batch_size = 128
    training_steps = 1_000_000
    # initial learning rate (5e-4), exponential decay to 1e-6
    learning_rate = 512e-6

    rnn_dim = 1024

    # data dsp
    sample_rate = 22050
    n_fft = 1024
    n_mels = 80
    hop_length = 256
    win_length = 1024
    fmin = 0
    fmax = 8000
    n_frames = 12  # per sequence
    pad = 1024
    num_coarse_bits = 8  #
    num_fine_bits = 8  # must sum to 16
    min_mel = 1e-5  # minimum mel value


# --- wavernn/model.py -------------------------------------------------------------------
class UpsampleNetwork(hk.Module):
    def __init__(self, num_output_channels, is_training=True):
        super().__init__()
        self.input_conv = hk.Conv1D(512, 3, padding="VALID", with_bias=True)
        self.conv_1 = hk.Conv1D(512, 3, padding="VALID", with_bias=True)
        self.conv_2 = hk.Conv1D(512, 5, padding="VALID", with_bias=True)

        self.upsample_conv_1 = hk.Conv1DTranspose(
            512, kernel_shape=2, stride=2, padding="SAME", with_bias=True
        )
        self.upsample_conv_2 = hk.Conv1DTranspose(
            512, kernel_shape=2, stride=2, padding="SAME", with_bias=True
        )
        self.upsample_conv_3 = hk.Conv1DTranspose(
            num_output_channels,
            kernel_shape=4,
            stride=4,
            padding="SAME",
            with_bias=True,
        )
        self.is_training = is_training

    def __call__(self, mel):
        x = jax.nn.relu(self.input_conv(mel))
        res_1 = jax.nn.relu(self.conv_1(x))
        x = x[:, 1:-1] + res_1
        res_2 = jax.nn.relu(self.conv_2(x))
        x = x[:, 2:-2] + res_2

        x = jax.nn.relu(self.upsample_conv_1(x))
        x = jax.nn.relu(self.upsample_conv_2(x))
        x = jax.nn.relu(self.upsample_conv_3(x))

        # tile x16
        N, L, D = x.shape
        x = jnp.tile(x[:, :, None, :], (1, 1, 16, 1))
        x = jnp.reshape(x, (N, -1, D))

        return x


class WaveRNN(hk.Module):
    """The vanilla WaveRNN model."""

    def __init__(self, hidden_dim: int = 1024, cond_dim=0):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.cond_dim = cond_dim
        self.R = hk.Linear(
            3 * hidden_dim,
            with_bias=True,
            w_init=hk.initializers.VarianceScaling(),
        )
        self.I_W = hk.get_parameter(
            "I_W",
            (cond_dim + 128 * 3, hidden_dim * 3),
            init=hk.initializers.VarianceScaling(),
        )
        self.I_b = hk.get_parameter("I_b", (1, 3 * hidden_dim), init=jnp.zeros)
        assert hidden_dim % 2 == 0, "Need an even hidden dim"
        d = hidden_dim // 4
        mask = jnp.ones_like(self.I_W)
        embed_dim = hidden_dim // 8
        mask = mask.at[-embed_dim:, 0 * d : 3 * d].set(0.0)
        mask = mask.at[-embed_dim:, 4 * d : 7 * d].set(0.0)
        mask = mask.at[-embed_dim:, 8 * d : 11 * d].set(0.0)
        self.I_W_mask = mask
        self.O1 = hk.Linear(hidden_dim // 4 * 3)
        self.O2 = hk.Linear(2 ** FLAGS.num_coarse_bits)
        self.O3 = hk.Linear(hidden_dim // 4)
        self.O4 = hk.Linear(2 ** FLAGS.num_fine_bits)
        self.c_embed = hk.Embed(2 ** FLAGS.num_coarse_bits, embed_dim)
        self.f_embed = hk.Embed(2 ** FLAGS.num_fine_bits, embed_dim)

    def initial_state(self, batch_size: int):
        return jnp.zeros((batch_size, self.hidden_dim))

    def step(self, inputs, hx):
        # inputs: N x (cond_dim+3) (c[t-1], f[t-1], c[t])
        # hx: N x hidden_Dim

        ut_1, rt_1, et_1 = jnp.split(self.R(hx), 3, axis=-1)

        # Input -> hidden with masked weights
        x = jnp.dot(inputs, self.I_W * self.I_W_mask)
        b = jnp.broadcast_to(self.I_b, x.shape)
        x = x + b
        ut_2, rt_2, et_2 = jnp.split(x, 3, axis=-1)

        ut = jax.nn.sigmoid(ut_1 + ut_2)
        rt = jax.nn.sigmoid(rt_1 + rt_2)
        et = jnp.tanh(rt * et_1 + et_2)
        ht = ut * hx + (1.0 - ut) * et
        yc, yf = jnp.split(ht, [self.hidden_dim // 4 * 3], axis=-1)
        return (yc, yf), ht

    def inference(self, mels):
        N, L, D = mels.shape

        c0 = jnp.array([(2 ** FLAGS.num_coarse_bits) // 2]).astype(jnp.int32)
        f0 = jnp.array([(2 ** FLAGS.num_fine_bits) // 2]).astype(jnp.int32)

        def loop(inputs, prev_state):
            mel, rng1, rng2 = inputs
            ct, ft, hx = prev_state
            ct = self.c_embed(ct)
            ft = self.f_embed(ft)
            x = jnp.concatenate((mel, ct, ft, ct), axis=-1)
            (yc, _), _ = self.step(x, hx)
            clogits = self.O2(jax.nn.relu(self.O1(yc)))
            new_ct = jax.random.categorical(rng1[0], clogits, axis=-1)
            new_ct_embed = self.c_embed(new_ct)
            x = jnp.concatenate((mel, ct, ft, new_ct_embed), axis=-1)
            (_, yf), new_hx = self.step(x, hx)
            flogits = self.O4(jax.nn.relu(self.O3(yf)))
            new_ft = jax.random.categorical(rng2[0], flogits, axis=-1)
            return (new_ct, new_ft), (new_ct, new_ft, new_hx)

        rng1s = jax.random.split(hk.next_rng_key(), L)[None]
        rng2s = jax.random.split(hk.next_rng_key(), L)[None]

        h0 = self.initial_state(N)
        (ct, ft), _ = hk.dynamic_unroll(  # tolerate: JIT502
            loop, (mels, rng1s, rng2s), (c0, f0, h0), time_major=False
        )
        return ct * (2 ** FLAGS.num_fine_bits) + ft - 2 ** 15


class Vocoder(hk.Module):
    def __init__(self, is_training=True):
        super().__init__()
        self.rnn = WaveRNN(FLAGS.rnn_dim, FLAGS.rnn_dim // 2)
        self.upsample = UpsampleNetwork(
            num_output_channels=FLAGS.rnn_dim // 2, is_training=is_training
        )
        self.is_training = is_training

    def inference(self, mel):
        mel = self.upsample(mel)
        return self.rnn.inference(mel)


# --- wavernn/mel2wave.py ----------------------------------------------------------------
@hk.transform_with_state
def inference(mel):
    net = Vocoder()
    return net.inference(mel)


def mel2wave(params, aux, rng, mel):
    mel = mel[None]
    rng = jax.random.PRNGKey(42)  # expect: JIT502
    wav = inference.apply(params, aux, rng, mel)[0]
    return jax.device_get(wav[0])


if __name__ == "__main__":
    # observed: line 201 mel2wave ignores its rng: seeds 0 and 1 give the same waveform
    mel = np.random.default_rng(0).normal(size=(10, FLAGS.n_mels)).astype(np.float32)
    params, aux = inference.init(jax.random.PRNGKey(7), mel[None])
    w0 = mel2wave(params, aux, jax.random.PRNGKey(0), mel)
    w1 = mel2wave(params, aux, jax.random.PRNGKey(1), mel)
    assert w0.shape == (512,), w0.shape
    assert np.array_equal(w0, w1)  # the seed never reaches the sampler

    s0 = inference.apply(params, aux, jax.random.PRNGKey(0), mel[None])[0][0]
    s1 = inference.apply(params, aux, jax.random.PRNGKey(1), mel[None])[0][0]
    assert not np.array_equal(s0, s1)  # sampling does depend on the key it is given
    print("OK: mel2wave gives one waveform for seeds 0 and 1;", int((s0 != s1).sum()), "samples differ when the seed is passed")
