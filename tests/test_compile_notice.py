"""The compile notice (``gamecore.kernel.jit``): what it says when numba compiles, while it compiles, and
the compile seconds that timings leave out. numba's ``numba:compile`` events are played to a fresh
listener by hand here (no kernel compiles); ``tests/test_caching.py`` runs it on a real cold cache."""

from __future__ import annotations

import re
import time
import types

import pytest

from gamecore.kernel import jit


def _dispatcher(module: str, name: str = "kernel", closure_over: types.ModuleType | None = None, **options):
    """A stand-in for a numba dispatcher: a function of ``module`` (closing over ``closure_over``)."""
    if closure_over is not None:
        K = closure_over

        def make():
            def kernel():
                return K

            return kernel

        func = make()
    else:
        def func():
            return None

    func.__module__ = module
    func.__name__ = name
    return types.SimpleNamespace(py_func=func, targetoptions=options)


def _event(dispatcher):
    return types.SimpleNamespace(data={"dispatcher": dispatcher})


@pytest.fixture
def listener(monkeypatch):
    monkeypatch.setattr(jit, "_path_cached", lambda origin: False)  # as on an empty cache
    monkeypatch.setattr(jit, "_load", lambda: (0.0, 2))  # an idle machine
    monkeypatch.delenv("TABLETOP_RL_COMPILE_NOTICE", raising=False)
    return jit._CompileNotice()


def test_the_notice_says_what_its_estimate_assumes_and_scales_it_by_the_load():
    idle = jit.compile_notice("cultivo_env", "aec", load=(0.3, 2))
    assert idle == ("tabletop-rl-envs: compiling Cultivo kernels, once: ~53 s on an idle 2-core machine "
                    "(numba; later runs load them from the cache)")
    busy = jit.compile_notice("cultivo_env", "aec", load=(8.0, 2))  # four runnable processes a core
    assert "~53 s on an idle 2-core machine, perhaps ~212 s at this machine's load (8.0 on 2 cores)" in busy
    assert jit.compile_notice("cultivo_env", "aec", load=None) == idle
    both = jit.compile_notice("calcada_env", "batched", with_own=True, load=None)
    seconds = jit.compile_figures("calcada_env")[0]
    assert both.startswith("tabletop-rl-envs: compiling Calçada batched kernels and the Calçada kernels they call, "
                           f"once: ~{seconds['batched'] + seconds['aec']} s ")
    more = jit.compile_notice("cultivo_env", "aec", more="apply_legal")
    assert more == ("tabletop-rl-envs: compiling more Cultivo kernels: apply_legal, once; the rest are in the cache "
                    "(numba; later runs load them from the cache)")
    for path, title in (("mcts", "search kernels (MCTS)"), ("greedy", "search kernels (greedy)"),
                        ("puct", "search kernels (PUCT)"), ("threaded", "batched kernels (threaded copy)")):
        assert f"compiling Callisto {title}, once" in jit.compile_notice("callisto_env", path, load=None)


def test_each_search_agent_and_thread_count_is_a_path_of_its_own():
    """The search kernels compile per agent (PUCT, MCTS, greedy) and the batched kernels per thread
    count, each on first use, so each is named apart: a later process compiling another one says
    which, instead of repeating one notice for all of them."""
    import callisto_env.rules as K

    origin = jit._kernel_origin
    assert origin(_dispatcher("callisto_env.rules")) == ("callisto_env", "aec")
    assert origin(_dispatcher("gamecore.kernel.batch_kernels", "batch_run", K)) == ("callisto_env", "batched")
    threaded = _dispatcher("gamecore.kernel.batch_kernels", "batch_run", K, parallel=True)
    assert origin(threaded) == ("callisto_env", "threaded")
    assert origin(_dispatcher("gamecore.search.mcts", "batch_mcts", K)) == ("callisto_env", "mcts")
    assert origin(_dispatcher("gamecore.search.mcts", "batch_greedy", K)) == ("callisto_env", "greedy")
    assert origin(_dispatcher("gamecore.search.puct", "descend", K)) == ("callisto_env", "puct")
    assert origin(_dispatcher("gamecore.kernel.rng", "rng_next")) is None
    # the real factories' kernels, as built (nothing compiles)
    from gamecore.kernel import batch_kernels
    from gamecore.search import mcts, puct

    batch_kernels.build(K)
    mcts.build_greedy(K)
    mcts.build_mcts(K)
    puct.build(K)
    paths = {o[1] for o in map(origin, list(jit._DISPATCHERS)) if o is not None and o[0] == "callisto_env"}
    assert paths == set(jit.compile_figures("callisto_env")[0])


def test_a_compile_is_one_notice_for_the_call_that_started_it(listener, capsys):
    """The game kernels a batched kernel compiles inside it belong to its notice (its estimate
    counts them when they are not cached either), and are counted as its kernels."""
    import callisto_env.rules as K

    outer = _dispatcher("gamecore.kernel.batch_kernels", "batch_run", K)
    inner = _dispatcher("callisto_env.rules", "init")
    helper = _dispatcher("gamecore.kernel.rng", "rng_next")
    listener.on_start(_event(outer))
    for d in (inner, helper, inner):
        listener.on_start(_event(d))
        listener.on_end(_event(d))
    listener.on_end(_event(outer))
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(
        "tabletop-rl-envs: compiling Callisto batched kernels and the Callisto kernels they call, once: ~")
    assert listener.kernels == {("callisto_env", "batched"): 4}
    assert listener.seconds > 0.0
    # the game's own kernels called from Python next, in the same process: a notice of their own
    listener.on_start(_event(inner))
    listener.on_end(_event(inner))
    assert capsys.readouterr().err.startswith("tabletop-rl-envs: compiling Callisto kernels, once: ~")
    # and nothing more for either in this process
    for d in (outer, inner):
        listener.on_start(_event(d))
        listener.on_end(_event(d))
    assert capsys.readouterr().err == ""


def test_a_path_partly_in_the_cache_names_what_is_new(listener, monkeypatch, capsys):
    """An earlier process compiled some of the path (the batched kernels called the game's own):
    the notice names the kernel that starts compiling now instead of the whole path's estimate."""
    monkeypatch.setattr(jit, "_path_cached", lambda origin: True)
    d = _dispatcher("cultivo_env.rules.step", "apply_legal")
    listener.on_start(_event(d))
    listener.on_end(_event(d))
    assert capsys.readouterr().err.startswith("tabletop-rl-envs: compiling more Cultivo kernels: apply_legal, once; ")


def test_a_long_compile_says_how_it_goes_and_when_it_ends(listener, monkeypatch, capsys):
    monkeypatch.setattr(jit, "_TICK_SECONDS", 0.2)
    outer, inner = _dispatcher("callisto_env.rules", "legal_mask"), _dispatcher("callisto_env.rules", "helper")
    listener.on_start(_event(outer))
    for _ in range(3):
        listener.on_start(_event(inner))
        listener.on_end(_event(inner))
    time.sleep(0.7)
    listener.on_end(_event(outer))
    lines = capsys.readouterr().err.splitlines()
    expected = jit.compile_figures("callisto_env")[1]["aec"]
    assert lines[0].startswith("tabletop-rl-envs: compiling Callisto kernels, once:")
    ticks = lines[1:-1]
    assert ticks and all(re.fullmatch(rf"tabletop-rl-envs: still compiling Callisto kernels: \d+ s so far, "
                                      rf"3 of ~{expected} kernels", t) for t in ticks), lines
    assert re.fullmatch(r"tabletop-rl-envs: compiled Callisto kernels: \d+ s, 4 kernels", lines[-1]), lines
    # with no compile for an interval the progress thread ends (the next notice starts one)
    deadline = time.monotonic() + 5
    while listener.thread is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert listener.thread is None
    # the same path compiling again later in the process: no second notice, the progress lines again
    listener.on_start(_event(outer))
    time.sleep(0.5)
    listener.on_end(_event(outer))
    again = capsys.readouterr().err.splitlines()
    assert again and all(ln.startswith(("tabletop-rl-envs: still compiling Callisto kernels: ",
                                        "tabletop-rl-envs: compiled Callisto kernels: ")) for ln in again), again
    # a compile shorter than an interval: the notice alone
    short = _dispatcher("callisto_env.rules", "observe")
    listener.noticed.clear()
    listener.on_start(_event(short))
    listener.on_end(_event(short))
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_the_notice_and_its_progress_lines_can_be_silenced(listener, monkeypatch, capsys):
    monkeypatch.setattr(jit, "_TICK_SECONDS", 0.1)
    monkeypatch.setenv("TABLETOP_RL_COMPILE_NOTICE", "0")
    d = _dispatcher("calcada_env.rules", "init")
    listener.on_start(_event(d))
    time.sleep(0.4)
    listener.on_end(_event(d))
    assert capsys.readouterr().err == ""
    assert listener.thread is None
    assert listener.seconds >= 0.4  # the compile seconds are counted all the same


def test_compile_seconds_counts_only_finished_outermost_compiles(listener):
    d = _dispatcher("calcada_env.rules", "init")
    listener.on_start(_event(d))
    listener.on_start(_event(d))
    time.sleep(0.05)
    listener.on_end(_event(d))
    assert listener.seconds == 0.0  # the outer one goes on
    listener.on_end(_event(d))
    assert 0.05 <= listener.seconds < 5.0
    assert isinstance(jit.compile_seconds(), float)
