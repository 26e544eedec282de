"""Loading a model file never runs code from it, and a bad model file is one clear error (issue 46).

Payload files write a marker file when unpickled: a torch checkpoint holding a ``__reduce__``
object, MaskablePPO zips whose ``data`` entries carry a cloudpickle payload that hands back the
right observation space. None may run through any route that loads a model: the agent specs
(``az:``, ``ppo:``, ``baseline``), the CLI's ``arena`` and ``tables`` (which must not load a model
nobody named), ``examples/train.py --init`` and ``examples/alphazero.py --resume``. Each route
refuses the file with an error naming it. Damaged files (empty, truncated, foreign, mismatched,
non-finite or huge values, pickled object arrays) give one error naming the file; through the CLI
exit status 2 with one ``error:`` line and no traceback.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from test_examples import load_script

from gamecore.agents import make_agent
from gamecore.cli import main
from gamecore.value_net import ValueNet

ROOT = Path(__file__).resolve().parents[1]
CALIMALA = ROOT / "calimala_env" / "baseline" / "maskppo.zip"  # 3 players: (1001,) int8 obs, 119 actions
CALLISTO = ROOT / "callisto_env" / "baseline" / "maskppo.zip"


# ---- payloads --------------------------------------------------------------------------------------
class _Opens:
    """Unpickled, it calls ``open(marker, "w")``: the file appears."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _space_payload(marker: Path, shape: tuple[int, ...]) -> str:
    """A cloudpickle blob (base64, as SB3 writes it) that touches ``marker`` and returns the right
    Box: a model carrying it plays normally under a loader that unpickles."""
    cloudpickle = pytest.importorskip("cloudpickle")

    def build(marker=str(marker), shape=shape):  # a local function: cloudpickle pickles it by value
        import pathlib

        import numpy
        from gymnasium import spaces

        pathlib.Path(marker).write_text("ran")
        return spaces.Box(0, 127, shape, numpy.int8)

    class Builds:
        def __reduce__(self):
            return (build, ())

    return base64.b64encode(cloudpickle.dumps(Builds())).decode()


def _rewrite_zip(src: Path, dst: Path, data: dict | None, drop: tuple[str, ...] = ()) -> Path:
    """``src`` with its ``data`` entry replaced (None: left out) and the entries ``drop`` left out."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if info.filename in drop or (info.filename == "data" and data is None):
                continue
            blob = json.dumps(data).encode() if info.filename == "data" else zin.read(info.filename)
            zout.writestr(info, blob)
    return dst


def _data(src: Path = CALIMALA) -> dict:
    with zipfile.ZipFile(src) as z:
        return json.loads(z.read("data"))


@pytest.fixture(scope="module")
def sb3_zip(tmp_path_factory) -> Path:
    """A small calimala model as SB3 saves it (every serialized entry a cloudpickle blob)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from gamecore.sb3 import SelfPlayVecEnv

    venv = SelfPlayVecEnv("calimala", num_envs=2, seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=8, seed=0, device="cpu",
                                    policy_kwargs={"net_arch": [8]})
    path = tmp_path_factory.mktemp("sb3") / "calimala_maskppo.zip"
    model.save(path)
    return path


@pytest.fixture
def ppo_payloads(tmp_path, sb3_zip):
    """(marker, [zips]): a calimala model as SB3 saves it with a payload in its
    ``observation_space`` (it plays normally where it is unpickled), and with an extra pickled
    entry besides."""
    marker = tmp_path / "ran-ppo"
    data = _data(sb3_zip)
    shape = tuple(data["observation_space"]["_shape"])
    evil_space = {**data, "observation_space": {**data["observation_space"],
                                                ":serialized:": _space_payload(marker, shape)}}
    extra = {**data, "evil": {":type:": "<class 'int'>", ":serialized:": _space_payload(marker, shape)}}
    zips = [_rewrite_zip(sb3_zip, tmp_path / "space.zip", evil_space),
            _rewrite_zip(sb3_zip, tmp_path / "extra.zip", extra)]
    return marker, zips


@pytest.fixture
def az_payload(tmp_path):
    """(marker, checkpoint): a torch checkpoint whose ``model`` entry opens the marker when unpickled."""
    torch = pytest.importorskip("torch")
    from gamecore import aznet

    marker = tmp_path / "ran-az"
    config = {"game": "callisto", "players": 2, "obs_len": 3300, "num_actions": 3500, "hidden": [8],
              "encoding": aznet.ENCODING}
    path = tmp_path / "evil.pt"
    torch.save({"format": aznet.CHECKPOINT_FORMAT, "config": config, "model": _Opens(marker), "optimizer": None,
                "iteration": 0, "rng": {}}, path)
    return marker, path


def _cli_error(argv: list[str], capsys) -> str:
    """The one ``error:`` line of a CLI run that must exit with status 2 (no traceback)."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "error:" in ln]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ---- no route runs a payload -----------------------------------------------------------------------
def test_a_crafted_checkpoint_runs_nothing_through_the_az_spec_the_cli_and_resume(az_payload, capsys):
    marker, path = az_payload
    with pytest.raises(ValueError, match=f"az: {path} holds objects other than tensors"):
        make_agent(f"az:{path}", "callisto")
    line = _cli_error(["arena", "callisto", "--agents", f"az:{path}", "random", "--games", "1", "--no-progress"],
                      capsys)
    assert str(path) in line and "refused" in line
    az = load_script("alphazero")
    with pytest.raises(SystemExit, match=f"--resume: az: {path} holds objects other than tensors"):
        az.main(["--game", "callisto", "--hidden", "8", "--out", str(path), "--resume", "--no-progress"])
    assert not marker.exists()


def test_a_crafted_ppo_zip_runs_nothing_through_the_ppo_and_baseline_specs_and_the_cli(ppo_payloads, monkeypatch,
                                                                                       capsys):
    """The payload in the observation space is never read (the game's own space stands in: the model
    plays); the one in an entry the library cannot supply is refused, naming the file and the entry."""
    import gamecore.agents as agents

    marker, (space, extra) = ppo_payloads
    assert make_agent(f"ppo:{space}", "calimala").model.observation_space.shape == (1001,)
    main(["arena", "calimala", "--agents", f"ppo:{space}", "random", "--games", "1", "--no-progress"])
    refusal = f"ppo: {extra} holds a pickled 'evil' entry"
    with pytest.raises(ValueError, match=refusal):
        make_agent(f"ppo:{extra}", "calimala")
    line = _cli_error(["arena", "calimala", "--agents", f"ppo:{extra}", "random", "--games", "1",
                       "--no-progress"], capsys)
    assert refusal in line
    for path in (space, extra):
        monkeypatch.setattr(agents, "shipped_baseline", lambda game, path=path: path)
        if path == extra:
            with pytest.raises(ValueError, match=refusal):
                make_agent("baseline", "calimala")
            assert refusal in _cli_error(["arena", "calimala", "--agents", "baseline", "random", "--games",
                                          "1", "--no-progress"], capsys)
        else:
            assert make_agent("baseline", "calimala").spec == "baseline"
    assert not marker.exists()


def test_the_payload_space_entry_is_supplied_not_read(ppo_payloads):
    """The observation space with a payload is replaced by the game's own: the model loads and
    plays; the blob is never unpickled."""
    from gamecore.model_io import load_maskppo

    marker, (space, _) = ppo_payloads
    model = load_maskppo(space, "calimala")
    assert model.observation_space.shape == (1001,) and model.action_space.n == 119
    assert not marker.exists()


def test_a_zip_naming_an_env_imports_no_module(sb3_zip, tmp_path, monkeypatch):
    """SB3 makes the environment a saved ``env`` string names (``gym.make("module:Env")`` imports
    the module, say one planted beside the model in an untrusted checkout): refused unread."""
    from gamecore.model_io import load_maskppo

    marker = tmp_path / "ran-env"
    (tmp_path / "planted_env_module.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = _rewrite_zip(sb3_zip, tmp_path / "env.zip", {**_data(sb3_zip), "env": "planted_env_module:Planted-v0"})
    with pytest.raises(ValueError, match=f"ppo: {path} holds an 'env' entry"):
        load_maskppo(path, "calimala")
    assert not marker.exists()


def test_train_init_refuses_a_crafted_zip_without_running_it(ppo_payloads):
    train = load_script("train")
    marker, zips = ppo_payloads
    with pytest.raises(SystemExit, match=f"--init: {zips[1]} holds a pickled 'evil' entry"):
        train.start_from(None, zips[1], "cpu", "calimala")
    assert not marker.exists()


def test_tables_loads_no_model_nobody_named(ppo_payloads, tmp_path, monkeypatch, capsys):
    """A ``runs/<game>_maskppo.zip`` in the working directory stays unread; named (``--models``,
    ``--extra ppo:``), the payload is refused with an error naming it."""
    marker, (_, extra) = ppo_payloads
    (tmp_path / "runs").mkdir()
    planted = tmp_path / "runs" / "calcada_maskppo.zip"
    planted.write_bytes(extra.read_bytes())
    monkeypatch.chdir(tmp_path)
    import gamecore.agents as agents

    monkeypatch.setattr(agents, "shipped_baseline", lambda game: None)  # a shorter table: random and greedy
    text = main(["tables", "--games", "1", "--mcts", "--only", "calcada", "--threads", "1"])
    assert "ppo:" not in text and "no trained model" not in text and "--models" not in text
    assert not marker.exists()
    for extra in (["--models", "runs"], ["--extra", "ppo:runs/calcada_maskppo.zip"]):
        line = _cli_error(["tables", "--games", "1", "--mcts", "--only", "calcada", "--threads", "1", *extra], capsys)
        assert "error: ppo: runs/calcada_maskppo.zip " in line
    assert not marker.exists()


# ---- real files still load, and the shipped ones hold no pickle -------------------------------------
def test_the_shipped_ppo_baselines_hold_no_pickle_and_load_as_the_models_they_are():
    pytest.importorskip("sb3_contrib")
    import torch

    from gamecore.model_io import load_maskppo

    for path, game, shape, n in ((CALLISTO, "callisto", (10, 10, 33), 3500), (CALIMALA, "calimala", (1001,), 119)):
        raw = zipfile.ZipFile(path).read("data")
        assert b":serialized:" not in raw, path
        model = load_maskppo(path, game)
        assert model.observation_space.shape == shape and model.observation_space.dtype == np.int8
        assert model.action_space.n == n and model.policy_kwargs == {"net_arch": [64, 64]}
        with zipfile.ZipFile(path) as z:
            saved = torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
        state = model.policy.state_dict()
        assert set(saved) == set(state) and all(torch.equal(saved[k], state[k]) for k in saved)


def test_a_checkpoint_round_trips_under_weights_only_with_every_entry(tmp_path):
    torch = pytest.importorskip("torch")
    from gamecore import aznet

    net = aznet.make_network(12, 5, (8,))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    net(torch.ones(2, 12))[0].sum().backward()
    opt.step()
    rng = np.random.default_rng(7)
    states = {"numpy": rng.bit_generator.state, "torch": torch.get_rng_state()}
    config = {"game": "calcada", "players": np.int64(2), "obs_len": 12, "num_actions": 5, "hidden": (8,),
              "encoding": aznet.ENCODING, "lr": np.float64(1e-3), "out": Path("runs/x.pt")}
    path = aznet.save_checkpoint(tmp_path / "c.pt", net, opt, 3, config, states)
    raw = torch.load(path, weights_only=True)  # what load_checkpoint reads: no unsafe global anywhere
    assert raw["config"]["players"] == 2 and raw["config"]["lr"] == 1e-3 and raw["config"]["out"] == "runs/x.pt"
    ckpt = aznet.load_checkpoint(path)
    assert set(ckpt) == {"format", "config", "model", "optimizer", "iteration", "rng"} and ckpt["iteration"] == 3
    assert ckpt["rng"]["numpy"] == states["numpy"] and torch.equal(ckpt["rng"]["torch"], states["torch"])
    assert all(torch.equal(ckpt["model"][k], v) for k, v in net.state_dict().items())
    opt2 = torch.optim.Adam(aznet.make_network(12, 5, (8,)).parameters(), lr=1e-3)
    opt2.load_state_dict(ckpt["optimizer"])  # the Adam state survives
    np.random.default_rng().bit_generator.state = ckpt["rng"]["numpy"]
    back, cfg = aznet.load_network(path)
    assert cfg["hidden"] == (8,) and not back.training


# ---- bad files: one error naming the file -----------------------------------------------------------
def _truncated(src: Path, dst: Path) -> Path:
    raw = src.read_bytes()
    dst.write_bytes(raw[: len(raw) // 2])
    return dst


def test_bad_ppo_files_are_one_error_naming_the_file(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    import torch

    from gamecore.model_io import load_maskppo

    empty = tmp_path / "empty.zip"
    empty.write_bytes(b"")
    text = tmp_path / "text.zip"
    text.write_text("not a model")
    pth = io.BytesIO()
    torch.save({"w": _Opens(tmp_path / "ran-pth")}, pth)
    with zipfile.ZipFile(CALIMALA) as z:
        evil_pth = tmp_path / "pth.zip"
        with zipfile.ZipFile(evil_pth, "w") as out:
            for info in z.infolist():
                out.writestr(info, pth.getvalue() if info.filename == "policy.pth" else z.read(info.filename))
    cases = [
        (empty, "is empty"),
        (text, "not a zip file"),
        (_truncated(CALIMALA, tmp_path / "half.zip"), "not a zip file"),
        (_rewrite_zip(CALIMALA, tmp_path / "nodata.zip", None), "no 'data' entry"),
        (_rewrite_zip(CALIMALA, tmp_path / "nopolicy.zip", _data(), drop=("policy.pth",)), "no 'policy.pth'"),
        (_rewrite_zip(CALIMALA, tmp_path / "list.zip", [1, 2]), "not an object"),  # type: ignore[arg-type]
        (CALLISTO, "fit no player count of calimala"),  # another game's model
        (evil_pth, "objects other than tensors"),
        (_rewrite_zip(CALIMALA, tmp_path / "arch.zip", {**_data(), "policy_kwargs": {"net_arch": [7]}}),
         "could not be loaded"),
    ]
    for path, why in cases:
        with pytest.raises(ValueError) as exc:
            load_maskppo(path, "calimala")
        assert str(exc.value).startswith(f"ppo: {path}") and why in str(exc.value), (path, str(exc.value))
        assert "weights_only" not in str(exc.value) and "allow_pickle" not in str(exc.value)
    for path, why in cases[:4] + cases[6:7]:
        line = _cli_error(["arena", "calimala", "--agents", f"ppo:{path}", "random", "--games", "1",
                           "--no-progress"], capsys)
        assert str(path) in line and why in line, line
    assert not (tmp_path / "ran-pth").exists()


def _az(tmp_path, name="net.pt", hidden=(8,), **config):
    """A calcada checkpoint as examples/alphazero.py writes one, ``config`` entries changed."""
    torch = pytest.importorskip("torch")
    from gamecore import aznet
    from gamecore.games import get_game

    game = get_game("calcada")
    params = game.make_params(2)
    obs_len, num_actions = int(np.prod(game.obs_shape(params))), game.num_actions(params)
    cfg = {"game": "calcada", "players": 2, "obs_len": obs_len, "num_actions": num_actions, "hidden": list(hidden),
           "encoding": aznet.ENCODING, **config}
    torch.manual_seed(0)
    net = aznet.make_network(obs_len, num_actions, hidden)
    return aznet.save_checkpoint(tmp_path / name, net, None, 0, cfg, {})


def test_bad_az_checkpoints_are_one_error_naming_the_file(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    from gamecore import aznet

    good = _az(tmp_path)
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    text = tmp_path / "text.pt"
    text.write_text("not a checkpoint")
    mismatch = _az(tmp_path, "mismatch.pt", hidden=(8,))
    ckpt = torch.load(mismatch, weights_only=True)
    ckpt["config"]["hidden"] = [16]  # a state dict that does not match its config
    torch.save(ckpt, mismatch)
    nan = tmp_path / "nan.pt"
    ckpt = torch.load(good, weights_only=True)
    ckpt["model"]["policy.bias"][0] = float("nan")
    torch.save(ckpt, nan)
    bad_cfg = tmp_path / "cfg.pt"
    ckpt = torch.load(good, weights_only=True)
    ckpt["config"]["hidden"] = 5  # not a list
    torch.save(ckpt, bad_cfg)
    options = [_az(tmp_path, f"opt{i}.pt", **option) for i, option in enumerate(
        ({"simulations": "64"}, {"c_puct": float("inf")}, {"mix": 2.0}, {"horizon": [3]}))]
    cases = [(empty, "is empty"), (text, "not a torch file"), (_truncated(good, tmp_path / "half.pt"), "truncated"),
             (mismatch, "do not match its config"), (nan, "non-finite"), (bad_cfg, "malformed"),
             *((path, "malformed training option") for path in options)]
    for path, why in cases:
        with pytest.raises(ValueError) as exc:
            aznet.load_network(path)
        assert str(exc.value).startswith(f"az: {path}") and why in str(exc.value), (path, str(exc.value))
        assert "weights_only" not in str(exc.value)
        line = _cli_error(["arena", "calcada", "--agents", f"az:{path}", "random", "--games", "1", "--no-progress"],
                          capsys)
        assert str(path) in line and why in line, line


def _npz(path: Path, **arrays) -> Path:
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def _value_arrays(**changes):
    w = {"w1t": np.zeros((873, 4), np.float32), "b1": np.zeros(4, np.float32), "w2": np.ones(4, np.float32),
         "b2": np.zeros(1, np.float32), "meta": np.array(json.dumps({"game": "calcada", "players": 2, "weight": 0.5}))}
    w.update(changes)
    return w


def test_bad_value_models_are_one_error_naming_the_file(tmp_path, capsys):
    good = _npz(tmp_path / "good.npz", **_value_arrays())
    assert ValueNet.load(good).weight == 0.5
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    text = tmp_path / "text.npz"
    text.write_text("not arrays")
    pickled = tmp_path / "objects.npz"
    np.savez(pickled, **_value_arrays(w2=np.array([1.0, "x", None, 2], dtype=object)))
    meta = {"game": "calcada", "players": 2}
    cases = [
        (empty, "is empty"),
        (text, "not an .npz file"),
        (_truncated(good, tmp_path / "half.npz"), ".npz file"),
        (_npz(tmp_path / "keys.npz", w=np.zeros(3)), "missing"),
        (pickled, "Python objects"),
        (_npz(tmp_path / "nanw.npz", **_value_arrays(meta=np.array(json.dumps({**meta, "weight": float("nan")})))),
         "weight"),
        (_npz(tmp_path / "infw.npz", **_value_arrays(meta=np.array(json.dumps({**meta, "weight": 1e300})))),
         "weight"),
        (_npz(tmp_path / "strw.npz", **_value_arrays(meta=np.array(json.dumps({**meta, "weight": "1"})))), "weight"),
        (_npz(tmp_path / "inf.npz", **_value_arrays(b2=np.array([np.inf], np.float32))), "not finite"),
        (_npz(tmp_path / "huge.npz", **_value_arrays(w2=np.full(4, 1e30, np.float32))), "beyond"),
        (_npz(tmp_path / "shape.npz", **_value_arrays(w2=np.ones(5, np.float32))), "do not fit"),
        (_npz(tmp_path / "dtype.npz", **_value_arrays(b1=np.array(["a", "b", "c", "d"]))), "not numbers"),
        (_npz(tmp_path / "game.npz", **_value_arrays(meta=np.array(json.dumps({"game": 3, "players": 2})))), "game"),
        (_npz(tmp_path / "players.npz", **_value_arrays(meta=np.array(json.dumps({"game": "calcada", "players": 9})))),
         "players"),
        (_npz(tmp_path / "meta.npz", **_value_arrays(meta=np.array("[1"))), "meta"),
    ]
    for path, why in cases:
        with pytest.raises(ValueError) as exc:
            ValueNet.load(path)
        msg = str(exc.value)
        assert msg.startswith(f"vgreedy: {path}") and why in msg, (path, msg)
        assert "allow_pickle" not in msg
    for path, why in cases[:3] + cases[4:6] + cases[9:10]:
        line = _cli_error(["arena", "calcada", "--agents", f"vgreedy:{path}", "random", "--games", "1",
                           "--no-progress"], capsys)
        assert str(path) in line and why in line, line


def test_a_train_script_model_is_saved_without_a_pickle(tmp_path):
    """``save_maskppo`` (what examples/train.py saves with): no ``:serialized:`` blob, the weights
    byte for byte SB3's, and the file loads back as the same model."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from gamecore.model_io import load_maskppo, save_maskppo, strip_pickles
    from gamecore.sb3 import SelfPlayVecEnv

    venv = SelfPlayVecEnv("calimala", num_envs=2, seed=0, obs_encoding="scaled")
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=8, seed=0, device="cpu",
                                    policy_kwargs={"net_arch": [8]})
    model.save(tmp_path / "plain.zip")
    saved = save_maskppo(model, tmp_path / "m")
    assert saved == tmp_path / "m.zip"
    with zipfile.ZipFile(saved) as a, zipfile.ZipFile(tmp_path / "plain.zip") as b:
        assert b":serialized:" not in a.read("data") and b":serialized:" in b.read("data")
        assert a.namelist() == b.namelist()
        assert a.read("policy.pth") == b.read("policy.pth")
    strip_pickles(tmp_path / "plain.zip")  # in place: the same bytes again
    assert zipfile.ZipFile(tmp_path / "plain.zip").read("data") == zipfile.ZipFile(saved).read("data")
    back = load_maskppo(saved, "calimala")
    assert back.observation_space == venv.observation_space and back.observation_space.dtype == np.float32
    assert back.clip_range(1.0) == 0.2 and back.lr_schedule(1.0) == model.learning_rate
    agent = make_agent(f"ppo:{saved}", "calimala")
    assert agent.scaled
