"""The kit's flat state layout (meduris_rl.kit.layout), which Meduris's and Stone Age's engines
lay their states out with: offsets in order without gaps, the size at the end, a name declared
twice refused."""

import pytest

from meduris_env.engine import layout as meduris_layout
from meduris_rl.kit.layout import field_offsets
from stoneage_env.engine import layout as stone_age_layout


def test_fields_are_laid_out_in_order_without_gaps():
    fields = (("a", (), ""), ("b", (2, 3), ""), ("c", (4,), ""))
    assert field_offsets(fields) == {"a": (0, ()), "b": (1, (2, 3)), "c": (7, (4,)),
                                     "_size": (11, ())}
    with pytest.raises(ValueError, match="'a' is declared twice"):
        field_offsets(fields + (("a", (), ""),))


@pytest.mark.parametrize("layout", [meduris_layout, stone_age_layout])
def test_each_engine_state_fills_its_array(layout):
    offsets = layout.OFFSETS
    ends = sorted(offsets[name][0] for name, _, _ in layout.FIELDS)
    assert ends[0] == 0 and layout.STATE_SIZE == offsets["_size"][0] > ends[-1]
