"""Independent plain-Python reference (test oracle) for Callisto legal moves.

Written only from docs/rules/callisto.md; it does not
look at the numba implementation. Pure Python, standard library only.
Clarity over speed.

Board encoding (``rows``): S strings of S characters, row 0 on top.
  '.'              empty cell
  'g','b','r','y'  tile square of seat 0,1,2,3
  'G','B','R','Y'  pillar of seat 0,1,2,3
"""

TILE_LETTERS = "gbry"    # tile square of seat i is TILE_LETTERS[i]
PILLAR_LETTERS = "GBRY"  # pillar of seat i is PILLAR_LETTERS[i]
EMPTY = "."

# name -> cells as (x=column, y=row)
TILES = {
    "D2": [(0, 0), (1, 0)],
    "I3": [(0, 0), (0, 1), (0, 2)],
    "V3": [(0, 0), (0, 1), (1, 0)],
    "L4": [(0, 0), (0, 1), (0, 2), (1, 2)],
    "T4": [(0, 0), (1, 0), (2, 0), (1, 1)],
    "S4": [(0, 0), (1, 0), (1, 1), (2, 1)],
    "O4": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "X5": [(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)],
    "T5": [(0, 0), (1, 0), (2, 0), (1, 1), (1, 2)],
    "U5": [(0, 0), (2, 0), (0, 1), (1, 1), (2, 1)],
}

SYMMETRY_NAMES = ["r0", "r90", "r180", "r270", "f0", "f90", "f180", "f270"]

ORTHOGONAL_STEPS = [(-1, 0), (1, 0), (0, -1), (0, 1)]


# ---------------------------------------------------------------------------
# Orientations
# ---------------------------------------------------------------------------

def _rotate_clockwise(cell):
    row, col = cell
    return (col, -row)


def tile_orientations(name):
    """Return a list of (sym_name, cells) with cells as (drow, dcol) relative
    to the anchor (the first cell in sorted order), duplicates removed,
    in symmetry order."""
    base = [(y, x) for (x, y) in TILES[name]]  # (row, col)
    result = []
    seen = set()
    for index, sym in enumerate(SYMMETRY_NAMES):
        cells = list(base)
        if sym.startswith("f"):
            cells = [(r, -c) for (r, c) in cells]
        for _ in range(index % 4):
            cells = [_rotate_clockwise(cell) for cell in cells]
        cells.sort()
        anchor_r, anchor_c = cells[0]
        relative = tuple((r - anchor_r, c - anchor_c) for (r, c) in cells)
        if relative in seen:
            continue
        seen.add(relative)
        result.append((sym, relative))
    return result


# ---------------------------------------------------------------------------
# Board helpers
# ---------------------------------------------------------------------------

def cell_name(row, col):
    """Column letter (col 0 = 'a') + 1-based row number, row 1 on top."""
    return "abcdefghijklmnopqrstuvwxyz"[col] + str(row + 1)


def _inside(size, row, col):
    return 0 <= row < size and 0 <= col < size


def _neighbours(size, row, col):
    for dr, dc in ORTHOGONAL_STEPS:
        r, c = row + dr, col + dc
        if _inside(size, r, c):
            yield r, c


def _on_outer_ring(size, row, col):
    return row == 0 or col == 0 or row == size - 1 or col == size - 1


def _is_pillar(ch):
    return ch in PILLAR_LETTERS


def _is_tile_square(ch):
    return ch in TILE_LETTERS


def _adjacent_to_any_pillar(rows, row, col):
    size = len(rows)
    return any(_is_pillar(rows[r][c]) for r, c in _neighbours(size, row, col))


def _adjacent_to_any_tile_square(rows, row, col):
    size = len(rows)
    return any(_is_tile_square(rows[r][c]) for r, c in _neighbours(size, row, col))


def _adjacent_to_own_piece(rows, row, col, seat):
    size = len(rows)
    own = (TILE_LETTERS[seat], PILLAR_LETTERS[seat])
    return any(rows[r][c] in own for r, c in _neighbours(size, row, col))


def _check_board(rows, num_players):
    expected = {2: 10, 3: 12, 4: 14}[num_players]
    assert len(rows) == expected, f"board has {len(rows)} rows, expected {expected}"
    allowed = set(EMPTY + TILE_LETTERS[:num_players] + PILLAR_LETTERS[:num_players])
    for line in rows:
        assert len(line) == expected, f"row {line!r} has wrong length"
        assert set(line) <= allowed, f"row {line!r} has unexpected characters"


# ---------------------------------------------------------------------------
# Legal moves
# ---------------------------------------------------------------------------

def legal_action_strings(rows, seat, num_players, pillar_turns_used,
                         third_available, remaining):
    """Set of legal action strings for `seat` on board `rows`."""
    _check_board(rows, num_players)
    size = len(rows)
    actions = set()

    # Opening: only pillar placements on free outer-ring cells not adjacent to a pillar.
    if pillar_turns_used < 2:
        for row in range(size):
            for col in range(size):
                if (rows[row][col] == EMPTY
                        and _on_outer_ring(size, row, col)
                        and not _adjacent_to_any_pillar(rows, row, col)):
                    actions.add("pillar " + cell_name(row, col))
        return actions

    # Tile placements.
    for name in TILES:
        if remaining.get(name, 0) <= 0:
            continue
        for sym, relative in tile_orientations(name):
            for anchor_row in range(size):
                for anchor_col in range(size):
                    cells = [(anchor_row + dr, anchor_col + dc) for dr, dc in relative]
                    if not all(_inside(size, r, c) for r, c in cells):
                        continue
                    if not all(rows[r][c] == EMPTY for r, c in cells):
                        continue
                    if not any(_adjacent_to_own_piece(rows, r, c, seat) for r, c in cells):
                        continue
                    actions.add(f"{name} {sym} {cell_name(anchor_row, anchor_col)}")

    # Third pillar.
    if third_available:
        for row in range(size):
            for col in range(size):
                if rows[row][col] != EMPTY:
                    continue
                if not (_on_outer_ring(size, row, col)
                        or _adjacent_to_any_tile_square(rows, row, col)):
                    continue
                if _adjacent_to_any_pillar(rows, row, col):
                    continue
                actions.add("pillar " + cell_name(row, col))

    return actions


def penalty(remaining):
    """Sum of squares of the unplaced tiles."""
    return sum(len(TILES[name]) * count for name, count in remaining.items())


# ---------------------------------------------------------------------------
# Self-check
# ---------------------------------------------------------------------------

def _empty_board(size):
    return ["." * size for _ in range(size)]


def _put(rows, row, col, ch):
    rows = list(rows)
    rows[row] = rows[row][:col] + ch + rows[row][col + 1:]
    return rows


def _self_check():
    # Orientation counts / names.
    names = {n: [s for s, _ in tile_orientations(n)] for n in TILES}
    assert names["D2"] == ["r0", "r90"], names["D2"]
    assert names["I3"] == ["r0", "r90"], names["I3"]
    assert names["O4"] == ["r0"], names["O4"]
    assert names["X5"] == ["r0"], names["X5"]
    assert len(names["V3"]) == 4
    assert len(names["L4"]) == 8
    assert len(names["T4"]) == 4
    assert len(names["S4"]) == 4
    assert len(names["T5"]) == 4
    assert len(names["U5"]) == 4
    # X5 anchor is its top cell; relative cells from it.
    assert tile_orientations("X5")[0][1] == ((0, 0), (1, -1), (1, 0), (1, 1), (2, 0))

    assert cell_name(0, 2) == "c1" and cell_name(9, 9) == "j10"

    # Opening on an empty 10x10 board: all 36 ring cells.
    board = _empty_board(10)
    opening = legal_action_strings(board, 0, 2, 0, True, {})
    assert len(opening) == 36 and "pillar a1" in opening and "pillar e5" not in opening

    # Opening with a pillar at a1: a1, a2, b1 are excluded.
    board = _put(board, 0, 0, "G")
    opening = legal_action_strings(board, 1, 2, 0, True, {})
    assert len(opening) == 33
    assert not ({"pillar a1", "pillar a2", "pillar b1"} & opening)

    # D2 next to a green pillar at e5 (row 4, col 4) on an otherwise empty board.
    board = _put(_empty_board(10), 4, 4, "G")
    acts = legal_action_strings(board, 0, 2, 2, False, {"D2": 1})
    expected = {
        # horizontal dominoes touching e5's neighbours d5, f5, e4, e6
        "D2 r0 c5", "D2 r0 f5",               # covers c5d5 / f5g5
        "D2 r0 d4", "D2 r0 e4",               # covers d4e4 / e4f4
        "D2 r0 d6", "D2 r0 e6",               # covers d6e6 / e6f6
        # vertical dominoes
        "D2 r90 e3", "D2 r90 e6",             # e3e4 / e6e7
        "D2 r90 d4", "D2 r90 d5",             # d4d5 / d5d6
        "D2 r90 f4", "D2 r90 f5",             # f4f5 / f5f6
    }
    assert acts == expected, sorted(acts ^ expected)

    # Blue cannot place next to green's pillar; with no own pieces blue has no tile moves.
    assert legal_action_strings(board, 1, 2, 2, False, {"D2": 1}) == set()

    # Third pillar: ring cells plus cells adjacent to tiles, minus pillar-adjacent.
    board = _put(_empty_board(10), 4, 4, "b")   # a blue tile square at e5
    board = _put(board, 4, 6, "G")              # green pillar at g5
    acts = legal_action_strings(board, 0, 2, 2, True, {})
    assert acts == {"pillar " + cell_name(r, c) for r in range(10) for c in range(10)
                    if _on_outer_ring(10, r, c)} | {"pillar e4", "pillar e6", "pillar d5"}, acts
    # f5 is adjacent to the tile but also to the pillar at g5 -> excluded.

    # Tiles touching only by a corner are not legal.
    board = _put(_empty_board(10), 4, 4, "G")
    acts = legal_action_strings(board, 0, 2, 2, False, {"O4": 1})
    assert "O4 r0 f6" not in acts and "O4 r0 f5" in acts

    # Penalty.
    full = {"D2": 2, "I3": 2, "V3": 2, "L4": 1, "T4": 1, "S4": 1, "O4": 1,
            "X5": 1, "T5": 1, "U5": 1}
    assert penalty(full) == 47
    assert penalty({}) == 0
    assert penalty({"I3": 1, "X5": 1}) == 3 + 5 == 8
    assert penalty({"L4": 1, "O4": 1, "T5": 1}) == 4 + 4 + 5 == 13
    assert penalty({"V3": 1, "T4": 1, "S4": 1}) == 3 + 4 + 4 == 11
    assert penalty({"D2": 0, "U5": 1}) == 5

    print("callisto_reference self-check OK")


if __name__ == "__main__":
    _self_check()
