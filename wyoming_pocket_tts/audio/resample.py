"""A voice prompt's rate changed to the model's in numpy: scipy's `resample_poly` (what
pocket-tts's `convert_audio` runs) without scipy.

`resample_poly(x, up, down)` with its defaults zero-stuffs `x` by `up`, filters it by a
linear-phase low-pass FIR (`firwin`: 20·max(up, down) + 1 taps, cut off at 1/max(up, down) of
Nyquist, Kaiser window of β 5, scaled to unit gain at DC, then by `up`), keeps every `down`-th
sample and drops the filter's delay, the signal padded with zeros. The same taps (cast to the
audio's dtype, as scipy casts them) are applied here phase by phase: each output phase is a sum
of strided slices of the input, one per tap, without the zero-stuffed signal. The sums run in
float64 (scipy's in the audio's float32): the two agree within float32 rounding.
"""

from __future__ import annotations

import math

import numpy as np

KAISER_BETA = 5.0
"""`resample_poly`'s default window: ('kaiser', 5.0)."""


def resample(audio: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    """`audio` (..., samples) at `to_rate`, as pocket-tts's `convert_audio` resamples it
    (`resample_poly` by the rates' ratio in lowest terms); float32."""
    if from_rate <= 0 or to_rate <= 0:
        raise ValueError(f"sample rates must be positive, not {from_rate} and {to_rate}")
    gcd = math.gcd(from_rate, to_rate)
    return resample_poly(audio, to_rate // gcd, from_rate // gcd)


def resample_poly(audio: np.ndarray, up: int, down: int) -> np.ndarray:
    """`scipy.signal.resample_poly(audio, up, down, axis=-1)` with its default window and
    padding: ceil(samples·up/down) samples along the last axis, float32."""
    if up < 1 or down < 1:
        raise ValueError(f"up and down must be at least 1, not {up} and {down}")
    gcd = math.gcd(up, down)
    up, down = up // gcd, down // gcd
    x = np.asarray(audio, np.float32)
    if up == down == 1:
        return x.copy()
    taps = (lowpass(up, down).astype(np.float32) * np.float32(up)).astype(np.float64)
    half = (taps.size - 1) // 2
    n_in = x.shape[-1]
    n_out = -(-n_in * up // down)
    # scipy pads the filter with `down - half % down` zeros in front and drops the first
    # `(half + pad) // down` outputs: output i is the stuffed signal filtered at `start` + i·down.
    pad = down - half % down
    start = (half + pad) // down * down - pad
    rows = x.reshape(-1, n_in)
    out = np.empty((rows.shape[0], n_out), np.float32)
    for row, samples in zip(out, rows, strict=True):
        row[:] = _filtered(samples, taps, up, down, start, n_out)
    return out.reshape(*x.shape[:-1], n_out)


def _filtered(
    x: np.ndarray, taps: np.ndarray, up: int, down: int, start: int, n_out: int
) -> np.ndarray:
    """Outputs `start`, `start` + down, ... of `x` zero-stuffed by `up` and filtered by `taps`.

    At stuffed position t = base·up + phase, tap phase + k·up meets input base - k. Outputs i,
    i + up, ... share a phase, and their inputs step by `down`: with the input split into its
    `down` residues (contiguous rows), each phase is a few `np.convolve` of one row by the taps
    phase + (k0 + q·down)·up."""
    lead = -(-taps.size // up)  # zeros before the input: base - k is never negative
    tail = (start + (n_out - 1) * down) // up + 1
    length = -(-(lead + max(x.size, tail)) // down) * down
    padded = np.zeros(length, np.float64)
    padded[lead : lead + x.size] = x
    residues = np.ascontiguousarray(padded.reshape(-1, down).T)  # [r, s]: padded[s·down + r]
    out = np.empty(n_out, np.float64)
    for first in range(min(up, n_out)):
        base, phase = divmod(start + first * down, up)
        count = len(range(first, n_out, up))
        acc = np.zeros(count, np.float64)
        for k0 in range(min(down, lead)):
            group = taps[phase + k0 * up :: down * up]  # taps of k = k0 + q·down
            if not group.any():
                continue
            s, r = divmod(lead + base - k0, down)
            acc += np.convolve(residues[r, s - group.size + 1 : s + count], group, "valid")
        out[first::up] = acc
    return out


def lowpass(up: int, down: int) -> np.ndarray:
    """`resample_poly`'s filter for `up`/`down` in lowest terms before its gain of `up`:
    `firwin(20·m + 1, 1/m, window=('kaiser', 5.0))`, m = max(up, down); float64."""
    rate = max(up, down)
    numtaps = 20 * rate + 1
    m = np.arange(numtaps) - (numtaps - 1) / 2
    cutoff = 1.0 / rate
    h = cutoff * np.sinc(cutoff * m) * np.kaiser(numtaps, KAISER_BETA)
    return h / h.sum()
