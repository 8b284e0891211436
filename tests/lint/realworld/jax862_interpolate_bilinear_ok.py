# source: https://github.com/jax-ml/jax/issues/862
# observed on jax 0.10.2 CPU: mattjj's bilinear interpolation snippet (posted while
#   jax.image.resize did not exist) runs under jit with traced sample coordinates: the
#   floor/astype(int) indices and clips stay arrays and feed a gather, nothing asks for a
#   concrete value. `np` is jax.numpy here, as in the 2019 convention of the thread
#   (`import jax.numpy as np`). Added: the imports and the jitted call in __main__ on a
#   small image, checked against the same function run eagerly.
# gap: types
import jax
import jax.numpy as np


def interpolate_bilinear(im, rows, cols):
  # based on http://stackoverflow.com/a/12729229
  col_lo = np.floor(cols).astype(int)
  col_hi = col_lo + 1
  row_lo = np.floor(rows).astype(int)
  row_hi = row_lo + 1

  nrows, ncols = im.shape[-3:-1]
  def cclip(cols): return np.clip(cols, 0, ncols - 1)
  def rclip(rows): return np.clip(rows, 0, nrows - 1)
  Ia = im[..., rclip(row_lo), cclip(col_lo), :]
  Ib = im[..., rclip(row_hi), cclip(col_lo), :]
  Ic = im[..., rclip(row_lo), cclip(col_hi), :]
  Id = im[..., rclip(row_hi), cclip(col_hi), :]

  wa = np.expand_dims((col_hi - cols) * (row_hi - rows), -1)
  wb = np.expand_dims((col_hi - cols) * (rows - row_lo), -1)
  wc = np.expand_dims((cols - col_lo) * (row_hi - rows), -1)
  wd = np.expand_dims((cols - col_lo) * (rows - row_lo), -1)

  return wa*Ia + wb*Ib + wc*Ic + wd*Id


if __name__ == "__main__":
    im = np.arange(4 * 5 * 3, dtype=np.float32).reshape(4, 5, 3)
    rows = np.array([0.0, 1.5, 2.25])
    cols = np.array([0.0, 3.5, 1.75])
    out = jax.jit(interpolate_bilinear)(im, rows, cols)
    assert out.shape == (3, 3)
    assert np.allclose(out, interpolate_bilinear(im, rows, cols))
    assert np.allclose(out[0], im[0, 0])
