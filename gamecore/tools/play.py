"""Play a game in the terminal against agents (``python -m gamecore play <game> --vs mcts:400``).

People take any seats (``--human 0 2``, or ``--human all`` for a table of people); the other
seats are played by the ``--vs`` agent(s). At a person's turn the board is drawn (in colour unless
``--no-color`` or ``NO_COLOR`` is set) from that seat's view, with the legal decisions numbered in
game notation. Every other line (the agents' decisions, the board at the end) shows what that
person may know: another seat's secret decision is printed as its public part ("player_1 plays:
keep a scoring card"); with several people at one screen, only what is public.

An agent that fails at its turn (an error, or no legal decision) stops the game with an
:class:`AgentError`, after the game so far is saved: in ``--save`` if given, else in a new file in
the temporary directory, named in the error (continue it with ``--load``). A failing hint agent
only says so; the game goes on. Type:

=================  ===================================================================
``7``              play decision 7 of the list
``T5 r90 c5``      play a decision by its name; a prefix lists (or, if unique, plays) the matches
``?`` / ``help``   this help
``m`` / ``moves``  list every legal decision (long lists are grouped by their first word)
``h`` / ``hint``   what the hint agent (the first opponent, or ``--hint``) would play here
``u`` / ``undo``   back to your previous decision (the agents' replies are taken back too)
``save FILE``      write the game record (JSON: options, seed, decisions) to FILE
``load FILE``      continue a saved game (a record file of at most 16 MiB)
``b`` / ``board``  draw the board again
``q`` / ``quit``   stop (the game so far is kept in ``--save`` if given)
=================  ===================================================================
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from typing import Any, TextIO

import numpy as np

from gamecore.kernel.games import get_game
from gamecore.kernel.options import one_line, short_repr
from gamecore.kernel.protocol import H_CURRENT, H_TERMINAL, VIEW_PUBLIC
from gamecore.kernel.rewards import rank_rewards
from gamecore.search.agents import Agent, make_agent
from gamecore.tools.replay import GameRecord, make_env, replay_env


def _plain_table(rst: str) -> str:
    """An RST simple table of two columns (the docstring's) as plain text for the terminal: no
    border lines, no ````literal```` marks, the second column aligned."""
    lines = rst.strip("\n").splitlines()
    border = next(ln for ln in lines if ln.startswith("="))
    split = border.index(" ")  # the first column ends where the first run of = does
    rows = [(ln[:split].strip().replace("``", ""), ln[split:].strip().replace("``", "")) for ln in lines
            if not ln.startswith("=")]
    width = max(len(a) for a, _ in rows) + 3
    return "\n".join(f"  {a:<{width}}{b}" for a, b in rows)


#: the commands at the prompt, as the ``?`` command prints them
HELP = _plain_table((__doc__ or "").split("Type:", 1)[-1])
LIST_ALL = 40  # longer move lists are grouped by their first word


def natural_key(text: str) -> list:
    """Sort key reading digit runs as numbers: ``a2`` before ``a10``."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", text)]


def _agent(spec: str, game: Any, seed: int, who: str) -> Agent:
    """``make_agent``, its errors naming the seat (a bad spec is a ValueError however it fails)."""
    try:
        return make_agent(spec, game, seed=seed)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{who} ({short_repr(spec)}): {exc}") from None


class QuitGameError(Exception):
    """The person asked to stop."""


class AgentError(ValueError):
    """An agent failed at its turn (raised an error, or returned no legal decision); the message
    names the agent and where the game so far was saved."""


class TerminalGame:
    """One game at the terminal; ``inp`` / ``out`` default to stdin / stdout (tests pass their own)."""

    def __init__(self, game: str, seats: list[str], seed: int = 0, options: dict[str, Any] | None = None,
                 hint: str | None = None, colour: bool | None = None, inp: TextIO | None = None,
                 out: TextIO | None = None, save: str | None = None) -> None:
        self.spec = get_game(game)
        self.options = dict(options or {})
        self.options["num_players"] = len(seats)
        self.env = make_env(self.spec.name, **self.options)
        self.seed = int(seed)
        self.env.reset(seed=self.seed)
        self.seats = seats
        self.agents: dict[int, Agent] = {}
        for s, who in enumerate(seats):
            if who != "human":
                self.agents[s] = _agent(who, self.spec, self.seed * 31 + s, f"the agent of seat {s}")
        hint = hint or next((w for w in seats if w != "human"), "mcts:400")
        self.hinter = _agent(hint, self.spec, self.seed + 977, "the hint agent")
        self.inp = inp or sys.stdin
        self.out = out or sys.stdout
        self.colour = (not os.environ.get("NO_COLOR")) if colour is None else colour
        self.save_path = save
        people = [s for s, who in enumerate(seats) if who == "human"]
        # whose view every line shows outside a person's own turn: the one person's seat, else
        # (people sharing the screen, or nobody) only what is public
        self.viewer = people[0] if len(people) == 1 else VIEW_PUBLIC
        self.record = GameRecord(self.spec.name, self.spec.params_to_options(self.env.params), self.seed, [],
                                 {str(s): w for s, w in enumerate(seats)})
        self.marks: list[int] = []  # decisions made before each of the people's decisions reached

    # ---- output --------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def board(self, viewer: int) -> None:
        self.say(self.spec.render_terminal(self.env.state_array, viewer, colour=self.colour))

    def legal(self) -> list[tuple[str, int]]:
        """The legal decisions, sorted by name; codes are positions in this list, from 1."""
        return sorted(((self.env.action_to_string(a), a) for a in self.env.legal_actions()),
                      key=lambda m: natural_key(m[0]))

    def list_moves(self, moves: list[tuple[str, int]], prefix: str = "") -> None:
        shown = [(k + 1, name) for k, (name, _) in enumerate(moves) if name.startswith(prefix)]
        if len(shown) <= LIST_ALL:
            width = max(len(name) for _, name in shown) + 6 if shown else 10
            per_row = max(1, 100 // width)
            for i in range(0, len(shown), per_row):
                self.say("".join(f"{code:>4}  {name:<{width - 6}}" for code, name in shown[i:i + per_row]).rstrip())
            return
        groups: dict[str, list[int]] = {}
        for code, name in shown:
            groups.setdefault(name.split()[0], []).append(code)
        self.say(f"{len(shown)} decisions; type a first word to list them:")
        self.say("  " + "   ".join(f"{w} ({len(c)}: {c[0]}-{c[-1]})" for w, c in groups.items()))

    # ---- the loop ------------------------------------------------------------------------------
    def run(self) -> GameRecord:
        try:
            while not self.env.state_array[H_TERMINAL]:
                seat = int(self.env.state_array[H_CURRENT])
                if seat in self.agents:
                    self.agent_turn(seat)
                else:
                    self.human_turn(seat)
        except (QuitGameError, EOFError, KeyboardInterrupt):
            self.say("stopped.")
            self.autosave()
            return self.record
        except AgentError as exc:
            self.say(f"stopped: {exc}")
            where = self.autosave(anyway=True)
            raise AgentError(f"{exc}; the game so far is saved in {where} (continue it: play {self.spec.name} "
                             f"--load {where})") from exc.__cause__
        self.finish()
        self.autosave()
        return self.record

    def autosave(self, anyway: bool = False) -> str | None:
        """Write the record to ``--save`` (if given); ``anyway``: where that is not given or fails,
        to a new file in the temporary directory. Returns the file written (None: none)."""
        where = None
        if self.save_path:
            try:
                self.record.save(self.save_path)
                where = self.save_path
            except OSError as exc:
                if not anyway:
                    raise
                self.say(f"cannot save {self.save_path}: {exc}")
        if where is None and anyway:
            fd, temp = tempfile.mkstemp(prefix=f"{self.spec.name}-seed{self.seed}-", suffix=".json")
            os.close(fd)
            try:
                self.record.save(temp)
            except OSError as exc:  # no empty file left behind, and the caller's error stays the one shown
                os.unlink(temp)
                self.say(f"cannot save {temp}: {exc}")
            else:
                where = temp
        if where is not None:
            self.say(f"saved {where}")
        return where

    def play(self, action: int, who: str) -> None:
        name = self.env.action_to_string(action)
        shown = self.spec.public_action_string(self.env.state_array, action, self.viewer)
        self.record.actions.append(name)
        self.env.step(action)
        self.say(f"{who} plays: {shown}")

    def agent_turn(self, seat: int) -> None:
        agent = self.agents[seat]
        obs = self.env.observe(self.env.agent_selection)
        state = self.env.state_array if agent.needs_state else None
        who = f"the agent of seat {seat} ({agent.spec})"
        try:
            action = agent.act_one(obs["observation"], obs["action_mask"], state, seat)
        except Exception as exc:  # whatever it is, the game so far is saved (run)
            raise AgentError(f"{who} failed: {one_line(exc)}") from exc
        if action not in self.env.legal_actions():
            raise AgentError(f"{who} returned {action}, not a legal decision")
        self.play(action, f"{self.spec.player_name(seat)} ({agent.spec})")

    def human_turn(self, seat: int) -> None:
        if not self.marks or self.marks[-1] != len(self.record.actions):
            self.marks.append(len(self.record.actions))
        viewer = seat if self.spec.hidden_information else VIEW_PUBLIC
        self.say()
        self.board(viewer)
        moves = self.legal()
        self.list_moves(moves)
        while True:
            self.out.write(f"{self.spec.player_name(seat)} [{self.spec.phase_name(self.env.state_array)}]> ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                raise EOFError
            text = " ".join(line.split())
            if not text:
                continue
            done = self.command(text, seat, moves)
            if done:
                return

    def command(self, text: str, seat: int, moves: list[tuple[str, int]]) -> bool:
        """Handle one line; True when the person's decision is taken (or the position changed)."""
        word, _, arg = text.partition(" ")
        low = word.lower()
        if low in ("q", "quit", "exit"):
            raise QuitGameError
        if low in ("?", "help"):
            self.say(HELP)
            return False
        if low in ("m", "moves"):
            self.list_moves(moves)
            return False
        if low in ("b", "board"):
            self.board(seat if self.spec.hidden_information else VIEW_PUBLIC)
            return False
        if low in ("h", "hint"):
            obs = self.env.observe(self.env.agent_selection)
            state = self.env.state_array if self.hinter.needs_state else None
            try:
                a = self.hinter.act_one(obs["observation"], obs["action_mask"], state, seat)
            except Exception as exc:  # no hint, but the game goes on
                self.say(f"no hint: the hint agent ({self.hinter.spec}) failed: {one_line(exc)}")
                return False
            if a not in [m[1] for m in moves]:
                self.say(f"no hint: the hint agent ({self.hinter.spec}) returned {a}, not a legal decision")
                return False
            code = [m[1] for m in moves].index(a) + 1
            self.say(f"hint ({self.hinter.spec}): {code}  {self.env.action_to_string(a)}")
            return False
        if low in ("u", "undo"):
            if len(self.marks) < 2:
                self.say("nothing to undo")
                return False
            self.marks.pop()
            self.restore(self.marks[-1])
            self.say(f"back to decision {self.marks[-1] + 1}")
            return True
        if low == "save" and arg:
            try:
                self.record.save(arg)
            except OSError as exc:
                self.say(f"cannot save: {exc}")
                return False
            self.say(f"saved {arg}")
            return False
        if low == "load" and arg:
            try:
                rec = GameRecord.load(arg)
                if get_game(rec.game).name != self.spec.name:
                    raise ValueError(f"{arg} is a game of {rec.game}, not {self.spec.name}")
                if int(rec.options.get("num_players", 0)) != len(self.seats):
                    raise ValueError(f"{arg} has {rec.options.get('num_players')} players, this table "
                                     f"{len(self.seats)}")
                try:
                    self.env = replay_env(rec)
                except ValueError as exc:
                    raise ValueError(f"{arg}: {exc}") from None
            except (OSError, ValueError) as exc:
                self.say(f"cannot load: {exc}")
                return False
            self.record = GameRecord(rec.game, rec.options, rec.seed, list(rec.actions), self.record.seats)
            self.seed = rec.seed
            self.marks = []
            self.say(f"loaded {arg}: {len(rec.actions)} decisions")
            return True
        if text.isdigit():
            k = int(text)
            if 1 <= k <= len(moves):
                self.play(moves[k - 1][1], self.spec.player_name(seat))
                return True
            self.say(f"no decision {k}: codes are 1..{len(moves)}")
            return False
        exact = [a for name, a in moves if name == text]
        if exact:
            self.play(exact[0], self.spec.player_name(seat))
            return True
        matches = [(name, a) for name, a in moves if name.lower().startswith(text.lower())]
        if len(matches) == 1:
            self.play(matches[0][1], self.spec.player_name(seat))
            return True
        if matches:
            self.list_moves(moves, prefix=matches[0][0][: len(text)])
            return False
        self.say(f"not a legal decision or command: {text!r} (? for help)")
        return False

    def restore(self, upto: int) -> None:
        self.record.actions = self.record.actions[:upto]
        self.env = replay_env(self.record)

    def finish(self) -> None:
        st = self.env.state_array
        n = int(self.env.num_players)
        self.say()
        self.board(self.viewer if self.spec.hidden_information else VIEW_PUBLIC)
        scores = np.zeros(n)
        keys = np.zeros(n)
        rr = np.zeros(n)
        self.spec.kernels.scores(st, scores)
        self.spec.kernels.rank_keys(st, keys)
        rank_rewards(keys, n, rr)
        self.say("game over:")
        for s in sorted(range(n), key=lambda q: -keys[q]):
            who = self.seats[s]
            self.say(f"  {self.spec.player_name(s):<10} {who:<14} score {scores[s]:g}  rank reward {rr[s]:+.2f}")


__all__ = ["TerminalGame", "AgentError", "HELP"]
