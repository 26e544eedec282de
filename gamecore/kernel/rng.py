"""Random numbers whose whole state is one int64 slot of a game's state array.

Copying the state array therefore copies the future of the game exactly: clones, save/restore and
the batched path replay the same shuffles. The generator is xorshift64* (Vigna), seeded through
splitmix64 so that nearby seeds give unrelated streams.
"""

from __future__ import annotations

import numpy as np

from gamecore.kernel.bits import lowest_bit, nonzero_bits64, popcount
from gamecore.kernel.jit import jit


@jit
def splitmix64(x: np.uint64) -> np.uint64:
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit
def episode_seed(base_seed: np.int64, episode: np.int64) -> np.int64:
    """Seed of the ``episode``-th game of a stream started with ``base_seed``.

    ``reset(seed=s)`` plays episode 0 of stream ``s``; every later ``reset()`` without a seed plays
    the next episode. Batched game ``i`` of a batch seeded ``s`` is stream ``s + i``.
    """
    z = splitmix64(np.uint64(base_seed) ^ splitmix64(np.uint64(episode)))
    return np.int64(z >> np.uint64(1))


@jit
def rng_seed(state: np.ndarray, slot: int, seed: np.int64) -> None:
    z = splitmix64(np.uint64(seed))
    if z == np.uint64(0):
        z = np.uint64(0x2545F4914F6CDD1D)
    state[slot] = np.int64(z)


@jit
def rng_next(state: np.ndarray, slot: int) -> np.uint64:
    x = np.uint64(state[slot])
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[slot] = np.int64(x)
    return x * np.uint64(0x2545F4914F6CDD1D)


@jit
def rng_below(state: np.ndarray, slot: int, n: int) -> int:
    """Uniform integer in ``[0, n)`` (``n >= 1``); modulo bias is below 2**-40 for our n."""
    return int((rng_next(state, slot) >> np.uint64(11)) % np.uint64(n))


@jit
def rng_shuffle(state: np.ndarray, slot: int, arr: np.ndarray, lo: int, hi: int) -> None:
    """Fisher-Yates shuffle of ``arr[lo:hi]`` in place."""
    for i in range(hi - 1, lo, -1):
        j = lo + rng_below(state, slot, i - lo + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


#: seeds are ints in [0, MAX_SEED); a batch of N games seeded s needs s + N <= MAX_SEED
MAX_SEED = 1 << 63


def check_seed(seed: object, span: int = 1) -> int:
    """``seed`` as an int, or a clear error: seeds are ints ``0 <= seed`` with ``seed + span <=
    2**63`` (``span`` = the number of consecutive streams a batch uses). Nothing wraps silently."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
    s = int(seed)
    if s < 0:
        raise ValueError(f"seed must be non-negative (as in Gymnasium), got {s}")
    if s + span > MAX_SEED:
        what = "seed" if span == 1 else f"seed + num_envs ({span})"
        raise ValueError(f"{what} must be at most 2**63, got seed {s}")
    return s


def python_seed_to_int(seed: int | None) -> int:
    """A validated int63 seed from a user seed, or fresh entropy when ``seed`` is None."""
    if seed is None:
        return int(np.random.default_rng().integers(0, MAX_SEED - 1))
    return check_seed(seed)


@jit
def rng_seed_array(rng: np.ndarray, streams: np.ndarray, salt: np.int64) -> None:
    """``rng[i]`` = a generator seeded from stream ``streams[i]`` (``salt`` keeps it apart from
    the streams' game seeds)."""
    for i in range(rng.shape[0]):
        rng_seed(rng, i, episode_seed(streams[i], salt))


@jit
def rng_pick_legal(mask: np.ndarray, count: int, rng: np.ndarray, slot: int) -> int:
    """A uniformly random index ``a`` with ``mask[a] != 0`` (``count`` of them; -1 if none).

    Blocks of 64 entries holding at most the remaining rank are skipped by counting them: in a row
    of bytes (every mask here) one vector compare gives the block's legal entries as a word and the
    pick is the right set bit of the block that holds it; otherwise a loop without branches counts
    them. A pick over a 3,500-entry mask so costs about 55 word compares and a few bit operations
    instead of a mispredicted branch per entry. The pick is the same as a plain scan's."""
    if count <= 0:
        return -1
    k = np.int64(rng_below(rng, slot, count))  # (rng_below is a uint64)
    n = mask.shape[0]
    a = 0
    if mask.itemsize == 1 and mask.strides[0] == 1:
        while a + 64 <= n:
            bits = nonzero_bits64(mask, a)
            c = popcount(bits)
            if c > k:
                for _ in range(k):  # drop the k set bits below the pick
                    bits &= bits - np.uint64(1)
                return a + lowest_bit(bits)
            k -= c
            a += 64
    else:
        while a + 64 <= n:
            c = 0
            for j in range(a, a + 64):
                c += mask[j] != 0
            if c > k:
                break
            k -= c
            a += 64
    for j in range(a, n):
        if mask[j] != 0:
            if k == 0:
                return j
            k -= 1
    return -1


@jit
def rng_pick_rows(masks: np.ndarray, rng: np.ndarray, slot: int, out: np.ndarray) -> None:
    """``out[i]`` = a uniformly random legal action of row ``i`` of ``masks`` (-1 for a row with
    none), all drawn in row order from the one generator ``rng[slot]``."""
    for i in range(masks.shape[0]):
        row = masks[i]
        count = 0
        for a in range(row.shape[0]):
            count += row[a] != 0
        out[i] = rng_pick_legal(row, count, rng, slot)
