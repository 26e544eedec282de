"""Loading a model file never runs code from it, and a bad model file is one clear error (issue 46).

Payload files write a marker file when unpickled: a torch checkpoint holding a ``__reduce__``
object, MaskablePPO zips whose ``data`` entries carry a cloudpickle payload that hands back the
right observation space. None may run through any route that loads a model: the agent specs
(``az:``, ``ppo:``, ``baseline``), the CLI's ``arena`` and ``tables`` (which must not load a model
nobody named), ``examples/train.py --init`` and ``examples/alphazero.py --resume``. Each route
refuses the file with an error naming it. Damaged files (empty, truncated, foreign, mismatched,
non-finite or huge values, pickled object arrays) give one error naming the file; through the CLI
exit status 2 with one ``error:`` line and no traceback. So do small crafted files that declare
huge sizes (a deflate bomb, a wide ``net_arch`` or ``hidden``, zero-stride tensors, a lying array
header: refused from what they declare, in well under 2 s, before any large allocation), nest
their JSON too deep, or would set attributes of the model or of torch (``pytorch_variables.pth``).
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

from gamecore.kernel.games import get_game
from gamecore.search.agents import make_agent
from gamecore.search.value_net import ValueNet
from gamecore.tools.cli import main

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
    from gamecore.envs.sb3 import SelfPlayVecEnv

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
    from gamecore.search import aznet

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
    import gamecore.search.agents as agents

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
    from gamecore.search.model_io import load_maskppo

    marker, (space, _) = ppo_payloads
    model = load_maskppo(space, "calimala")
    assert model.observation_space.shape == (1001,) and model.action_space.n == 119
    assert not marker.exists()


def test_a_zip_naming_an_env_imports_no_module(sb3_zip, tmp_path, monkeypatch):
    """SB3 makes the environment a saved ``env`` string names (``gym.make("module:Env")`` imports
    the module, say one planted beside the model in an untrusted checkout): refused unread."""
    from gamecore.search.model_io import load_maskppo

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
    import gamecore.search.agents as agents

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

    from gamecore.search.model_io import load_maskppo

    for path, game, players, n in ((CALLISTO, "callisto", 2, 3500), (CALIMALA, "calimala", 3, 119)):
        spec = get_game(game)
        shape = spec.obs_shape(spec.make_params(players))  # the baselines play the game's current observation
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
    from gamecore.search import aznet

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

    from gamecore.search.model_io import load_maskppo

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
         "do not fit its policy_kwargs (net_arch pi [7], vf [7])"),
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
    from gamecore.kernel.games import get_game
    from gamecore.search import aznet

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
    from gamecore.search import aznet

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


#: the observation length of Calçada at 2 players, the inputs of the value and az models built here
CALCADA_OBS = int(get_game("calcada").obs_shape(get_game("calcada").make_params(2))[0])


def _value_arrays(**changes):
    w = {"w1t": np.zeros((CALCADA_OBS, 4), np.float32), "b1": np.zeros(4, np.float32), "w2": np.ones(4, np.float32),
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
    from gamecore.envs.sb3 import SelfPlayVecEnv
    from gamecore.search.model_io import load_maskppo, save_maskppo, strip_pickles

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


# ---- small crafted files that would take huge memory, set attributes, or raise raw errors (issue 46) ------
def _crafted(dst: Path, src: Path = CALIMALA, data: dict | None = None, data_text: bytes | None = None,
             replace: dict[str, bytes] | None = None, extra: tuple[tuple[str, bytes], ...] = (),
             compress: int = zipfile.ZIP_DEFLATED) -> Path:
    """``src`` rewritten (every entry deflated, or ``compress``ed): its ``data`` replaced by ``data``
    (JSON) or ``data_text``, entries replaced by ``replace`` and ``extra`` ones added."""
    replace = dict(replace or {})
    if data is not None:
        data_text = json.dumps(data).encode()
    if data_text is not None:
        replace["data"] = data_text
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, replace.get(info.filename, zin.read(info.filename)), compress_type=compress)
        for name, blob in extra:
            zout.writestr(name, blob, compress_type=compress)
    return dst


def _torch_bytes(obj) -> bytes:
    import torch

    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def _policy_state(src: Path = CALIMALA) -> dict:
    import torch

    with zipfile.ZipFile(src) as z:
        return torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)


def _refused_fast(load, path: Path, why: str, prefix: str) -> str:
    """``load(path)`` raises one ValueError starting with ``prefix`` and holding ``why``, in well under
    two seconds (before any large allocation: a refusal after one takes seconds)."""
    import time

    t0 = time.perf_counter()
    with pytest.raises(ValueError) as exc:
        load(path)
    took = time.perf_counter() - t0
    msg = str(exc.value)
    assert msg.startswith(prefix) and why in msg, (path, msg)
    assert took < 2, (path, took)
    return msg


def test_ppo_zips_that_would_take_huge_memory_are_refused_before_any_allocation(tmp_path):
    """Before: a 500 MB deflate bomb in ``data`` took 1.4 GB, ``net_arch=[100000]`` 2 GB and 35 s
    before SB3 refused the weights, a zero-stride weight passed as the tensor it stands for."""
    pytest.importorskip("sb3_contrib")
    import torch

    from gamecore.search.model_io import MAX_DATA_BYTES, MAX_PARAMETERS, load_maskppo

    load_maskppo(CALIMALA, "calimala")  # the imports, outside the timings
    base = _data()
    text = json.dumps(base).encode()
    state = _policy_state()
    expanded = {k: torch.zeros(1).expand(*v.shape) if v.dim() == 2 else v for k, v in state.items()}
    cases = [
        (_crafted(tmp_path / "bomb.zip", data_text=text[:-1] + b" " * (MAX_DATA_BYTES + 1) + b"}"),
         f"more than the {MAX_DATA_BYTES:,} read"),
        (_crafted(tmp_path / "wide.zip", data={**base, "policy_kwargs": {"net_arch": [100_000]}}),
         "malformed net_arch"),
        (_crafted(tmp_path / "deep.zip", data={**base, "policy_kwargs": {"net_arch": [64] * 20_000}}),
         "malformed net_arch"),
        (_crafted(tmp_path / "big.zip", data={**base, "policy_kwargs": {"net_arch": [40_000]}}),
         f"more than the {MAX_PARAMETERS:,} read"),
        (_crafted(tmp_path / "expanded.zip", replace={"policy.pth": _torch_bytes(expanded)}), "stored in fewer bytes"),
        (_crafted(tmp_path / "extra.zip", extra=(("extra.pth", _torch_bytes({"w": torch.zeros(4)})),)),
         "holds an entry 'extra.pth' (refused"),
        (_crafted(tmp_path / "bzip2.zip", compress=zipfile.ZIP_BZIP2), "compressed with method"),
    ]
    for path, why in cases:
        _refused_fast(lambda p: load_maskppo(p, "calimala"), path, why, f"ppo: {path} ")


def test_a_loaded_ppo_model_allocates_no_rollout_buffer_of_its_saved_size(tmp_path):
    """Before: SB3 built the saved ``n_steps x n_envs`` rollout buffer on load (``n_steps=6300,
    n_envs=1000``: 3.3 GB kept for the agent's life). The loaded model plays and its weights copy;
    its buffer is a one-step stand-in."""
    pytest.importorskip("sb3_contrib")
    from gamecore.search.model_io import load_maskppo

    path = _crafted(tmp_path / "buffer.zip", data={**_data(), "n_steps": 1000, "n_envs": 100, "batch_size": 50,
                                                   "rollout_buffer_kwargs": {}})
    model = load_maskppo(path, "calimala")
    buffer = model.rollout_buffer
    assert buffer.buffer_size == 1 and buffer.n_envs == 1 and buffer.observations.nbytes < 10**5
    agent = make_agent(f"ppo:{path}", "calimala")
    assert agent.model.rollout_buffer.observations.nbytes < 10**5


def test_pytorch_variables_and_data_entries_set_no_attribute(tmp_path, monkeypatch):
    """Before: SB3 set ``recursive_setattr(model, name + ".data", tensor)`` for every name in
    ``pytorch_variables.pth``: a wrong-shaped weight loaded (the arena died with a raw traceback)
    and ``policy.action_net.weight.__class__`` replaced ``torch.nn.Parameter.data`` process-wide; a
    ``data`` entry named after a method replaced it on the model. MaskablePPO saves no variable."""
    pytest.importorskip("sb3_contrib")
    import torch

    from gamecore.search.model_io import load_maskppo

    monkeypatch.setattr(torch.nn.Parameter, "data", torch.nn.Parameter.data, raising=False)  # undone if replaced
    shape = {"policy.action_net.weight": torch.zeros(3, 64), "policy.action_net.bias": torch.zeros(3)}
    cases = [
        (_crafted(tmp_path / "class.zip", replace={"pytorch_variables.pth": _torch_bytes(
            {"policy.action_net.weight.__class__": torch.full((2,), 7.0)})}), "pytorch_variables"),
        (_crafted(tmp_path / "shape.zip", replace={"pytorch_variables.pth": _torch_bytes(shape)}),
         "pytorch_variables (policy.action_net.weight, policy.action_net.bias)"),
        (_crafted(tmp_path / "predict.zip", data={**_data(), "predict": 1}), "replace MaskablePPO's own predict"),
    ]
    for path, why in cases:
        _refused_fast(lambda p: load_maskppo(p, "calimala"), path, why, f"ppo: {path} ")
    assert tuple(torch.nn.Linear(2, 3).weight.data.shape) == (3, 2)  # Parameter.data is torch's own


def test_ppo_weights_and_optimizer_state_are_checked_before_sb3_reads_them(tmp_path, capsys):
    """Before: NaN or infinite weights loaded (the agent then plays on NaN logits); an optimizer
    state of other shapes loaded and failed only when ``train.py --init`` trained on it."""
    pytest.importorskip("sb3_contrib")
    import torch

    from gamecore.search.model_io import load_maskppo

    state = _policy_state()
    nan = {**state, "action_net.bias": torch.full_like(state["action_net.bias"], float("nan"))}
    inf = {k: torch.full_like(v, float("inf")) for k, v in state.items()}
    ints = {k: v.to(torch.int32) for k, v in state.items()}
    params = list(range(len(state)))
    group = {"lr": 5e-4, "betas": (0.9, 0.999), "eps": 1e-5, "weight_decay": 0, "amsgrad": False, "params": params}
    moments = {i: {"step": torch.tensor(3.0), "exp_avg": torch.zeros_like(v), "exp_avg_sq": torch.zeros_like(v)}
               for i, v in enumerate(state.values())}
    nan_moments = {**moments, 0: {**moments[0], "exp_avg": torch.full_like(moments[0]["exp_avg"], float("nan"))}}
    bad_shape = {**moments, 8: {**moments[8], "exp_avg": torch.zeros(3, 64)}}  # action_net.weight: (119, 64)
    cases = [
        (_crafted(tmp_path / "nan.zip", replace={"policy.pth": _torch_bytes(nan)}),
         "non-finite weights ('policy.pth'['action_net.bias'])"),
        (_crafted(tmp_path / "inf.zip", replace={"policy.pth": _torch_bytes(inf)}), "non-finite weights"),
        (_crafted(tmp_path / "ints.zip", replace={"policy.pth": _torch_bytes(ints)}), "not floating-point"),
        (_crafted(tmp_path / "optnan.zip", replace={"policy.optimizer.pth": _torch_bytes(
            {"state": nan_moments, "param_groups": [group]})}), "non-finite weights ('policy.optimizer.pth'"),
        (_crafted(tmp_path / "optlr.zip", replace={"policy.optimizer.pth": _torch_bytes(
            {"state": {}, "param_groups": [{**group, "lr": float("inf")}]})}), "non-finite number"),
        (_crafted(tmp_path / "optshape.zip", replace={"policy.optimizer.pth": _torch_bytes(
            {"state": bad_shape, "param_groups": [group]})}), "optimizer state that does not fit its network"),
    ]
    for path, why in cases:
        _refused_fast(lambda p: load_maskppo(p, "calimala"), path, why, f"ppo: {path} ")
    line = _cli_error(["arena", "calimala", "--agents", f"ppo:{cases[0][0]}", "random", "--games", "1",
                       "--no-progress"], capsys)
    assert "non-finite weights" in line
    good = _crafted(tmp_path / "adam.zip", replace={"policy.optimizer.pth": _torch_bytes(
        {"state": moments, "param_groups": [group]})})  # a trained Adam state loads
    assert load_maskppo(good, "calimala").policy.optimizer.state_dict()["state"][0]["step"] == 3


def test_deeply_nested_json_is_one_error_not_a_recursion_traceback(tmp_path, capsys):
    """Before: RecursionError tracebacks from a deeply nested ``data`` entry or ``meta`` string."""
    pytest.importorskip("sb3_contrib")
    from gamecore.search.model_io import load_maskppo

    deep = "[" * 30_000 + "]" * 30_000
    ppo = _crafted(tmp_path / "deep.zip", data_text=json.dumps(_data())[:-1].encode() + f', "deep": {deep}}}'.encode())
    _refused_fast(lambda p: load_maskppo(p, "calimala"), ppo, "nests too deep", f"ppo: {ppo} ")
    meta = '{"game": "calcada", "players": 2, "x": ' + deep + "}"
    vg = _npz(tmp_path / "deep.npz", **_value_arrays(meta=np.array(meta)))
    _refused_fast(ValueNet.load, vg, "nests too deep", f"vgreedy: {vg} ")
    long = _npz(tmp_path / "long.npz", **_value_arrays(meta=np.array(json.dumps(
        {"game": "calcada", "players": 2, "x": "y" * 100_000}))))
    _refused_fast(ValueNet.load, long, "longer than 65,536 characters", f"vgreedy: {long} ")
    for path in (ppo, vg):
        kind = "ppo" if path.suffix == ".zip" else "vgreedy"
        line = _cli_error(["arena", "calimala" if kind == "ppo" else "calcada", "--agents", f"{kind}:{path}", "random",
                           "--games", "1", "--no-progress"], capsys)
        assert "nests too deep" in line


def _az_raw(path: Path, hidden, model=None, optimizer=None, fmt=1, obs_len=CALCADA_OBS, num_actions=None,
            **config) -> Path:
    """A checkpoint written as is (``torch.save``), its model entry ``model`` (default: zeros of the
    config's shapes)."""
    import torch

    from gamecore.kernel.games import get_game
    from gamecore.search import aznet

    game = get_game("calcada")
    params = game.make_params(2)
    num_actions = game.num_actions(params) if num_actions is None else num_actions
    cfg = {"game": "calcada", "players": 2, "obs_len": obs_len, "num_actions": num_actions, "hidden": list(hidden),
           "encoding": aznet.ENCODING, **config}
    if model is None:
        model = {k: torch.zeros(s) for k, s in aznet._expected_shapes(cfg).items()}
    torch.save({"format": fmt, "config": cfg, "model": model, "optimizer": optimizer, "iteration": 0, "rng": {}}, path)
    return path


def test_az_checkpoints_that_would_take_huge_memory_or_raise_raw_errors_are_refused(tmp_path, capsys):
    """Before: zero-stride (expanded) weights of ``hidden=[2**24]`` in a 3 KB file raised a raw
    RuntimeError (torch.isfinite tried 1.1 PB), ``hidden=[2**18]`` took 2.1 GB; ``"format":
    tensor([1, 1])`` raised "Boolean value of Tensor"; a NaN optimizer state resumed training."""
    torch = pytest.importorskip("torch")
    from gamecore.search import aznet
    from gamecore.search.model_io import MAX_PARAMETERS

    good = _az_raw(tmp_path / "good.pt", [8])
    aznet.load_network(good)
    shapes = aznet._expected_shapes(torch.load(good, weights_only=True)["config"])
    expanded = {k: torch.zeros(1).expand(*s) for k, s in shapes.items()}
    huge = {k: torch.zeros(1).expand(*s) for k, s in aznet._expected_shapes(
        {"obs_len": 2**24, "num_actions": 119, "hidden": [2**24]}).items()}
    opt = torch.optim.Adam(aznet.make_network(CALCADA_OBS, shapes["policy.bias"][0], (8,)).parameters())
    opt_state = opt.state_dict()
    opt_state["state"] = {0: {"step": torch.tensor(1.0), "exp_avg": torch.full(shapes["trunk.0.weight"], float("nan")),
                              "exp_avg_sq": torch.zeros(shapes["trunk.0.weight"])}}
    cases = [
        (_az_raw(tmp_path / "expanded.pt", [8], model=expanded), "stored in fewer bytes"),
        (_az_raw(tmp_path / "huge.pt", [2**24], model=huge, obs_len=2**24, num_actions=119), "hidden sizes"),
        (_az_raw(tmp_path / "wide.pt", [2**17], model={}), "hidden sizes: at most 64 layers"),
        (_az_raw(tmp_path / "big.pt", [2**16, 2**10], model={}), f"more than the {MAX_PARAMETERS:,} read"),
        (_az_raw(tmp_path / "format.pt", [8], fmt=torch.tensor([1, 1])), "format 1"),
        (_az_raw(tmp_path / "encoding.pt", [8], encoding=torch.tensor([1, 1])), "config holds values other than"),
        (_az_raw(tmp_path / "players.pt", [8], players=torch.tensor(2)), "config holds values other than"),
        (_az_raw(tmp_path / "optnan.pt", [8], optimizer=opt_state), "non-finite weights (optimizer"),
    ]
    for path, why in cases:
        _refused_fast(aznet.load_network, path, why, f"az: {path} ")
    for path, why in cases[:2] + cases[4:5]:
        line = _cli_error(["arena", "calcada", "--agents", f"az:{path}", "random", "--games", "1", "--no-progress"],
                          capsys)
        assert str(path) in line and why in line, line


def test_value_models_that_would_take_huge_memory_are_refused_before_reading_them(tmp_path):
    """Before: a 99 KB file of an int8 ``w1t`` of 100 million entries peaked at 1.8 GB (widened to
    float64, then its absolute value); an array header declaring 4 billion entries made numpy
    allocate them before finding the data missing."""
    import io as _io

    from gamecore.search.value_net import MAX_VALUE_ELEMENTS

    h = MAX_VALUE_ELEMENTS // CALCADA_OBS + 1
    wide = tmp_path / "int8.npz"
    with open(wide, "wb") as f:
        np.savez_compressed(f, **_value_arrays(w1t=np.zeros((CALCADA_OBS, h), np.int8), b1=np.zeros(h, np.float32),
                                               w2=np.zeros(h, np.float32)))
    assert wide.stat().st_size < 10**6
    header = _io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (4_000_000_000,)})
    lying = tmp_path / "header.npz"
    with zipfile.ZipFile(lying, "w") as z:
        z.writestr("w1t.npy", header.getvalue() + np.zeros(4, np.float32).tobytes())
        for key, a in _value_arrays().items():
            if key != "w1t":
                buf = _io.BytesIO()
                np.save(buf, a)
                z.writestr(f"{key}.npy", buf.getvalue())
    bzip2 = tmp_path / "bzip2.npz"
    with zipfile.ZipFile(_npz(tmp_path / "plain.npz", **_value_arrays())) as zin, \
            zipfile.ZipFile(bzip2, "w", zipfile.ZIP_BZIP2) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename))
    cases = [(wide, f"more than {MAX_VALUE_ELEMENTS:,} numbers"), (lying, "header declares 4,000,000,000 elements"),
             (bzip2, "compressed with method")]
    for path, why in cases:
        _refused_fast(ValueNet.load, path, why, f"vgreedy: {path} ")


def _deflated_records(blob: bytes) -> bytes:
    """A ``torch.save`` file with its records deflated (torch.load reads it, inflating each)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(blob)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename), compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def test_a_torch_file_with_compressed_records_is_refused_before_torch_inflates_them(tmp_path):
    """A ``.pth`` is itself a zip that ``torch.load`` inflates before anything can be checked: 100 MB
    of zeros deflate to ~100 KB. ``torch.save`` stores every record as it is, so a compressed
    record is refused unread, in a PPO zip's ``policy.pth`` and in an az checkpoint alike."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from gamecore.search.aznet import load_checkpoint
    from gamecore.search.model_io import load_maskppo

    bomb = _deflated_records(_torch_bytes({"w": torch.zeros(25_000_000)}))
    assert len(bomb) < 1_000_000  # a small file standing for 100 MB
    ppo = _crafted(tmp_path / "bomb.zip", replace={"policy.pth": bomb}, compress=zipfile.ZIP_STORED)
    _refused_fast(lambda p: load_maskppo(p, "calimala"), ppo, "is compressed", f"ppo: {ppo}")
    # the same network, stored as torch.save stores it, loads: only the compression is refused
    good = _az(tmp_path)
    assert load_checkpoint(good)["format"] == 1
    packed = tmp_path / "packed.pt"
    packed.write_bytes(_deflated_records(good.read_bytes()))
    assert torch.load(packed, weights_only=True)["format"] == 1  # torch itself reads it
    _refused_fast(load_checkpoint, packed, "is compressed", f"az: {packed}")
