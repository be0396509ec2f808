"""Record: the NamedTuple class syntax every stage's values use, as one tuple class a Record."""

import copy
import functools
import pickle

import pytest

from swapool.table.record import Record


class Point(Record):
    x: int
    y: int = 0
    label: str = ""

    @functools.cached_property
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)


class Tag(Record):
    name: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tag) and self.name.lower() == other.name.lower()

    def __hash__(self) -> int:
        return hash(self.name.lower())


def test_fields_by_position_by_name_and_defaults():
    assert Point(1, 2, "a") == (1, 2, "a")
    assert Point(1) == (1, 0, "") and Point(1, 2) == (1, 2, "")
    assert Point(x=1, label="b") == (1, 0, "b") and Point(1, label="c") == (1, 0, "c")
    p = Point(3, -4)
    assert (p.x, p.y, p.label, p.norm) == (3, -4, "", 7)
    assert Point._fields == ("x", "y", "label")
    assert isinstance(p, Record) and isinstance(p, tuple)


@pytest.mark.parametrize("make", [lambda: Point(), lambda: Point(1, 2, "a", 4), lambda: Point(1, x=2),
                                  lambda: Point(1, z=2), lambda: Point(y=2)])
def test_a_wrong_call_is_a_type_error(make):
    with pytest.raises(TypeError):
        make()


def test_replace_repr_copy_and_pickle():
    p = Point(1, 2, "a")
    assert p._replace(y=5) == Point(1, 5, "a") and type(p._replace()) is Point
    with pytest.raises(ValueError):
        p._replace(z=1)
    assert repr(p) == "Point(x=1, y=2, label='a')"
    for twin in (copy.copy(p), copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert twin == p and type(twin) is Point


def test_a_class_eq_is_its_own_and_ne_negates_it():
    assert Tag("A") == Tag("a") and not Tag("A") != Tag("a") and Tag("A") != Tag("b")


def test_a_default_may_not_precede_a_field_without_one():
    with pytest.raises(TypeError):
        class Bad(Record):
            a: int = 0
            b: int
