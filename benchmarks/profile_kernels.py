#!/usr/bin/env python
"""Profile a game's numba kernels with Linux ``perf``, by kernel name.

numba's machine code has no symbols ``perf`` can read, so a profile of a rollout shows bare
addresses. This script plays uniformly random games of one game from Python (``legal_mask`` +
``apply``, the decisions of ``decision_tail`` in ``bench.py``), then writes ``/tmp/perf-<pid>.map``
(the file ``perf report`` reads for JIT code): the address of every function of every compiled
kernel library of the project, each up to the next one's address. Run it under ``perf record``::

    perf record -F 999 -o perf.data python benchmarks/profile_kernels.py cultivo --players 4 --games 20
    perf report -i perf.data --no-children --sort sym -g none | grep -v '^#' | head -40

Kernels must be compiled in this process for their code to be named (numba keeps no LLVM module
for a kernel loaded from its cache), so the script points ``NUMBA_CACHE_DIR`` at a new empty
directory unless ``--cache`` is given; the compile then shows in the profile too (libllvmlite,
libpython): read the rows of the ``[JIT]`` object only (``--dsos '[JIT] tid <pid>'``), and compare
them with each other. ``NRT_incref`` / ``NRT_decref`` are numba's reference counts (an atomic
instruction each): where they rank high, a hot function binds, slices or reassigns arrays.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def short_name(mangled: str) -> str:
    """``cultivo_env.rules.payment.pay_feasible`` for numba's mangled
    ``_ZN11cultivo_env5rules7payment12pay_feasibleB3v58...`` (the nested name's parts, up to the
    ABI tag); other names as they are."""
    if not mangled.startswith("_ZN"):
        return mangled
    parts, i = [], 3
    while i < len(mangled) and mangled[i].isdigit():
        j = i
        while mangled[j].isdigit():
            j += 1
        k = int(mangled[i:j])
        parts.append(mangled[j:j + k])
        i = j + k
    return ".".join(parts) or mangled


def elf_function_sizes(obj: bytes) -> dict[str, int]:
    """{symbol: size in bytes} of the functions of an ELF64 little-endian object file (numba's
    compiled object code), read from its symbol table; {} for anything else."""
    import struct

    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return {}
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    sizes: dict[str, int] = {}
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        for off in range(sh[4], sh[4] + sh[5], 24):
            st_name, st_info, _, _, _, st_size = struct.unpack_from("<IBBHQQ", obj, off)
            if st_info & 0xF == 2 and st_size:  # STT_FUNC
                start = strtab[4] + st_name
                name = obj[start:obj.index(b"\0", start)].decode()
                sizes[name] = st_size
    return sizes


def write_perf_map(path: str | None = None) -> int:
    """Write the perf map of every project kernel compiled in this process; returns how many
    functions it names."""
    from numba.core.registry import CPUDispatcher

    entries: set[tuple[int, str]] = set()
    sizes: dict[str, int] = {}
    seen: set[int] = set()
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in ("gamecore", "callisto_env", "calcada_env", "calimala_env", "cultivo_env"):
            continue
        values = list(vars(module).values())
        if name == "gamecore.kernel.batch_kernels":  # the batched kernels are closures kept in _BUILT
            values += [getattr(w, "kernel", w) for built in module._BUILT.values() for w in built]
        # a Threaded kernel holds two dispatchers (serial, parallel)
        values += [d for v in values if hasattr(v, "parallel") for d in (v.serial, v.parallel)]
        for value in values:
            if type(value) is not CPUDispatcher:
                continue
            for cres in value.overloads.values():
                lib = cres.library
                if id(lib) in seen:
                    continue
                seen.add(id(lib))
                llvm_module = getattr(lib, "_final_module", None)
                if llvm_module is None:  # loaded from the cache: nothing to name
                    continue
                try:  # exact sizes where numba kept the object code (it does when it caches a kernel)
                    sizes.update(elf_function_sizes(lib._get_compiled_object()))
                except Exception:  # noqa: BLE001 - no object code kept: sizes up to the next function
                    pass
                for fn in llvm_module.functions:
                    if fn.is_declaration:
                        continue
                    try:
                        addr = lib.get_pointer_to_function(fn.name)
                    except Exception:  # noqa: BLE001 - a function the engine did not emit
                        continue
                    if addr:
                        entries.add((addr, fn.name))
    rows = sorted(entries)
    with open(path or f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for i, (addr, fname) in enumerate(rows):
            nxt = rows[i + 1][0] if i + 1 < len(rows) else addr + 4096
            size = nxt - addr if 0 < nxt - addr < 1 << 20 else 4096
            size = min(size, sizes.get(fname, size))
            fh.write(f"{addr:x} {size:x} {short_name(fname)}\n")
    return len(rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("``", ""))
    ap.add_argument("game", help="callisto, calcada, calimala or cultivo")
    ap.add_argument("--players", type=int, default=None, help="seats (default: the game's smallest count)")
    ap.add_argument("--games", type=int, default=20, help="random games to play (default 20)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    ap.add_argument("--batched", type=float, default=0.0, metavar="SECONDS",
                    help="instead of the games: step a BatchedGames(--num-envs) on one thread for SECONDS, "
                         "observations, masks and random picks included (bench.py's batched step row)")
    ap.add_argument("--num-envs", type=int, default=1024, help="games of the --batched run (default 1024)")
    ap.add_argument("--cache", action="store_true", help="keep NUMBA_CACHE_DIR (kernels loaded from it are not named)")
    args = ap.parse_args(argv)
    if not args.cache:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="profile-kernels-")
    sys.path.insert(0, str(ROOT))
    import importlib

    import numpy as np

    from gamecore.kernel.games import GAMES
    from gamecore.kernel.header import H_TERMINAL

    if args.game not in dict(GAMES):
        ap.error(f"unknown game {args.game!r}; choose from {', '.join(dict(GAMES))}")
    spec = importlib.import_module(dict(GAMES)[args.game]).GAME
    kernels = spec.kernels
    params = spec.make_params(args.players)
    state = np.zeros(kernels.STATE_LEN, dtype=np.int64)
    mask = np.zeros(spec.num_actions(params), dtype=np.int8)
    rng = np.random.default_rng(args.seed)
    if args.batched > 0:
        from gamecore.envs.batched import BatchedGames

        batch = BatchedGames(args.game, args.num_envs, seed=args.seed, num_threads=1, num_players=int(params[0]))
        batch.reset()
        batch.step(batch.random_actions())  # compile (or load) before the clock starts
        print(f"{args.game}: compiled; stepping for {args.batched} s (pid {os.getpid()})", file=sys.stderr, flush=True)
        decisions, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < args.batched:
            batch.step(batch.random_actions())
            decisions += batch.num_envs
        seconds = time.perf_counter() - t0
        named = write_perf_map()
        print(f"{args.game}: {decisions} batched decisions ({decisions / seconds:,.0f}/s) in {seconds:.2f} s; "
              f"perf map of {named} functions in /tmp/perf-{os.getpid()}.map", file=sys.stderr)
        return
    kernels.init(state, params, args.seed)  # compile (or load) before the clock starts
    kernels.apply(state, int(np.flatnonzero(mask)[0]) if kernels.legal_mask(state, mask) else 0)
    decisions = 0
    t0 = time.perf_counter()
    for g in range(args.games):
        kernels.init(state, params, args.seed * 1_000_003 + g)
        while not state[H_TERMINAL]:
            n = kernels.legal_mask(state, mask)
            kernels.apply(state, int(np.flatnonzero(mask)[int(rng.integers(n))]))
            decisions += 1
    seconds = time.perf_counter() - t0
    named = write_perf_map()
    print(f"{args.game}: {decisions} decisions of {args.games} random games in {seconds:.2f} s; "
          f"perf map of {named} functions in /tmp/perf-{os.getpid()}.map", file=sys.stderr)


if __name__ == "__main__":
    main()
