"""Invariants of the packing state: free spaces and support surfaces after packing."""

from hypothesis import given, settings

from packing.geometry import Box, contains, overlaps
from packing.state import PackState, Space, SupportRect, group_pieces
from packing.strategies.blocks import SPACE_RULES, greedy
from tests.strategies import cargo, container_st


@settings(max_examples=40)
@given(pieces=cargo(), container=container_st)
def test_free_spaces_stay_free_and_supports_are_block_tops(pieces, container):
    state = greedy(PackState(container, group_pieces(pieces), 0.8), SPACE_RULES[0])
    inner = Box(0, 0, 0, *container.inner)
    boxes = [b.box for b in state.blocks]
    for s in state.free_spaces():
        assert isinstance(s, Space) and s.x0 < s.x1 and s.y0 < s.y1 and s.z0 < s.z1
        assert contains(inner, s)
        assert not any(overlaps(s, b) for b in boxes)
    for b in boxes:
        tops = state.supports_at(b.y1)
        assert all(isinstance(r, SupportRect) for r in tops)
        assert (b.x0, b.z0, b.x1, b.z1) in [(r.x0, r.z0, r.x1, r.z1) for r in tops]
