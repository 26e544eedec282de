"""``gamecore.kernel.bits``: the unaligned loads and stores address an array's data directly, so numba's
bounds checking (``NUMBA_BOUNDSCHECK=1``) cannot see them. A bounds-checked process (the fuzz tests,
``conftest.run_bounds_checked``, which also checks that they ran with ``checked_stores=1``) uses
their checked forms, which raise IndexError; a normal process keeps the raw intrinsics."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest

from conftest import boundscheck_env
from gamecore.kernel import bits

ROOT = Path(__file__).resolve().parents[1]

_OUT_OF_RANGE = textwrap.dedent("""
    import numba
    import numpy as np
    from gamecore.kernel import bits

    assert bits.CHECKED and bits.store_u64 is bits.checked_store_u64

    @numba.njit
    def store(a, at):
        bits.store_u64(a, at, np.uint64(0x0101010101010101))

    @numba.njit
    def copy(a, dst, src, k):
        bits.copy_bytes(a, dst, src, k)

    @numba.njit
    def nonzero(a, start):
        return bits.nonzero_bits64(a, start)

    big = np.zeros(96, dtype=np.int8)
    row = big[8:16]  # an 8-byte row inside a larger buffer: a store past it would land in big
    store(row, 0)
    assert row.tolist() == [1] * 8
    cases = {
        "store past the end": lambda: store(row, 4),
        "store before the start": lambda: store(row, -4),
        "store into a strided view": lambda: store(big[::2][:8], 0),
        "copy past the end": lambda: copy(row, 4, 0, 8),
        "copy overlapping": lambda: copy(big, 0, 4, 8),
        "load past the end": lambda: nonzero(big, 40),
    }
    for what, call in cases.items():
        try:
            call()
        except IndexError as exc:
            print(f"IndexError {what}: {exc}")
        else:
            print(f"SILENT {what}")
    assert big[:8].tolist() == [0] * 8 and big[16:].tolist() == [0] * 80, "a checked store wrote outside its row"
    copy(big, 16, 8, 8)
    assert nonzero(big, 0) == 0xFFFF00 and big[16:24].tolist() == [1] * 8
    print("checked ok")
""")


def test_checked_forms_raise_index_error_where_the_raw_ones_write_silently(tmp_path):
    """In a bounds-checked process, out-of-range stores, copies and loads raise IndexError and
    write nothing (a tiny kernel, uncached, in a subprocess)."""
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-c", _OUT_OF_RANGE], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "SILENT" not in proc.stdout and proc.stdout.count("IndexError") == 6, proc.stdout
    assert "checked ok" in proc.stdout


def test_a_normal_process_keeps_the_raw_intrinsics():
    """Outside bounds-checked runs the kernels compile the raw intrinsics, as before: no check, no
    change to their machine code. The raw store does write past a view, which is why the fuzz needs
    the checked form (here into the rest of a larger buffer, so nothing outside it is touched)."""
    if numba.config.BOUNDSCHECK:
        pytest.skip("this process runs bounds-checked")
    assert not bits.CHECKED
    assert (bits.store_u64, bits.copy_bytes, bits.nonzero_bits64) == (
        bits.raw_store_u64, bits.raw_copy_bytes, bits.raw_nonzero_bits64)
    from calcada_env import rules as calcada_rules
    from callisto_env import rules as callisto_rules

    assert calcada_rules.store_u64 is callisto_rules.store_u64 is bits.raw_store_u64
    assert callisto_rules.copy_bytes is bits.raw_copy_bytes

    @numba.njit
    def store(a, at):
        bits.store_u64(a, at, np.uint64(0x0101010101010101))

    big = np.zeros(24, dtype=np.int8)
    store(big[8:16], 4)
    assert big[12:20].tolist() == [1] * 8  # 4 bytes past the row, silently


_CALCADA_SEAT_99 = textwrap.dedent("""
    import numpy as np
    from calcada_env import GAME
    from calcada_env.layout import OBS_SEAT

    params = GAME.make_params(num_players=2)
    state = np.zeros(GAME.kernels.STATE_LEN, dtype=np.int64)
    GAME.kernels.init(state, params, 1)
    size = int(np.prod(GAME.obs_shape(params)))
    pad = 128 * OBS_SEAT  # seat 99 of 2 puts its seat blocks up to 97 blocks before the observation
    buf = np.full(pad + size + pad, 0x55, dtype=np.int8)  # a mark every write outside the observation changes
    try:
        GAME.kernels.observe(state, 99, buf[pad : pad + size])
    except IndexError as exc:
        print("IndexError", exc)
    print("outside written:", int(np.count_nonzero(buf[:pad] != 0x55) + np.count_nonzero(buf[pad + size :] != 0x55)))
""")


@pytest.mark.slow
@pytest.mark.boundscheck
def test_calcadas_observe_with_a_bad_seat_raises_before_writing_when_bounds_checked():
    """The crash of issue 46: Calçada's observe kernel for seat 99 (of 2) stores its seat blocks
    far before the observation. Bounds-checked with the raw stores, those writes went through
    unseen (here into padding around the observation; in a real buffer, memory that is not the
    array's) until a plain index further on raised; with the checked form the first of them raises
    IndexError and nothing outside the observation is written."""
    proc = subprocess.run([sys.executable, "-c", _CALCADA_SEAT_99], env=boundscheck_env("calcada"),
                          capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-3000:])
    assert "IndexError store_u64" in proc.stdout and "outside written: 0" in proc.stdout, proc.stdout
