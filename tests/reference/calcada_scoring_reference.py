"""Independent plain-Python reference (test oracle) for Calçada final scoring.

Written from docs/rules/calcada.md ("Final scoring") only; it does not call the numba
kernels nor read their tables. Standard library only; clarity over speed.

A board is a list of 25 entries, square = row * 5 + col (row 0 on top), each ``None`` (empty) or a
``(colour, kind)`` pair with kind 0..4 a motif and kind 5 the bonus symbol.
"""

from __future__ import annotations

# the two printed layouts from the rules page (letter = district, digit = printed number)
SIDE_A = """
A1 A2 A3 B4 B5
A4 A5 C1 B1 B2
D2 D3 C4 C5 E3
D1 F4 F5 G3 E2
H5 H3 F2 G4 E1
"""
SIDE_B = """
A1 A2 B3 B4 B5
A3 A4 C1 C2 D3
E5 E1 C5 D4 D5
E2 F3 F5 G2 G4
H4 H3 F1 I1 I2
"""
BONUS_KIND = 5


def districts(side: str) -> dict[str, list[int]]:
    """District letter -> squares."""
    text = SIDE_A if side == "A" else SIDE_B
    out: dict[str, list[int]] = {}
    cells = text.split()
    for sq, cell in enumerate(cells):
        out.setdefault(cell[0], []).append(sq)
    return out


def group_points(size: int) -> int:
    """2 -> 1, 3 -> 3, 4 -> 5, 5 -> 8, 6 -> 11, 7 -> 14, 8+ -> 18 (a lone motif scores nothing)."""
    table = {2: 1, 3: 3, 4: 5, 5: 8, 6: 11, 7: 14}
    if size >= 8:
        return 18
    return table.get(size, 0)


def motif_groups(board: list) -> list[int]:
    """Sizes of the orthogonally connected groups of one motif (colour and district ignored)."""
    seen = set()
    sizes = []
    for start in range(25):
        tile = board[start]
        if tile is None or tile[1] == BONUS_KIND or start in seen:
            continue
        motif = tile[1]
        stack = [start]
        seen.add(start)
        size = 0
        while stack:
            sq = stack.pop()
            size += 1
            r, c = divmod(sq, 5)
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < 5 and 0 <= cc < 5:
                    q = rr * 5 + cc
                    other = board[q]
                    if q not in seen and other is not None and other[1] == motif:
                        seen.add(q)
                        stack.append(q)
        sizes.append(size)
    return sizes


def incomplete_district_tiles(board: list, side: str) -> int:
    """1 point per tile in a district that is not full."""
    total = 0
    for squares in districts(side).values():
        filled = [sq for sq in squares if board[sq] is not None]
        if len(filled) < len(squares):
            total += len(filled)
    return total


def final_scoring(board: list, bonus_tiles: int, side: str) -> int:
    """Motif groups + tiles in incomplete districts + 1 per 2 bonus tiles."""
    motifs = sum(group_points(s) for s in motif_groups(board))
    return motifs + incomplete_district_tiles(board, side) + bonus_tiles // 2
