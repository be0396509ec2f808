"""The finding codes. Each code is an entry (what it means, why it matters, an example, the
fix, its severity), and the facts a finding of it carries are a class of their own, one per
code or per variant of a code (a file can be missing or a directory), whose `words()` say the
message and the help.

A finding is data: its facts' class and values, and where. Its words come from that class
when it is shown, so a finding reads the same everywhere and tools read its facts. The
classes take their facts by keyword; mypy checks each finding where it is made (a misspelt,
missing or mistyped fact is a type error), and the constructor checks the names again at run
time. The codes are kept by the stage that finds them: reading (the file and its YAML), format
(the schema and the table's names), analysis, lints and bindings (enums). An application
built on the engine defines its own codes the same way (`swapool.swa.codes`). `every.CODES`
lists them all."""

from __future__ import annotations

import enum

from ..record import Record
from ..text import format_value, shown_list

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Mapping, dataclass_transform

    #: A finding's message, and the help (None: no advice for it).
    Words = tuple[str, str | None]
else:
    def dataclass_transform(**_: object):
        """typing's marker for mypy, which alone reads it (typing is not imported at start)."""
        return lambda cls: cls

#: Rule ids a sentence names before "and N more"; values before it, in two lengths.
SHOWN_RULES = 3
SHOWN_VALUES = 8
LISTED_VALUES = 12


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"  # information that changes no verdict (e.g. a check that could not run here)

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.NOTE: 2}


class Code(Record):
    """One finding code, as `swapool codes NAME` shows it (one object per code: compared by
    identity). `severity` is what its findings usually are; `detail` says when a table or a
    flag makes it another."""

    name: str
    severity: Severity
    summary: str
    example: str
    fix: str
    why: str
    detail: str = ""

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    @property
    def severity_text(self) -> str:
        return self.severity.value + (f" ({self.detail})" if self.detail else "")

    @property
    def variants(self) -> list[str]:
        """The names of its variants, in the order they are defined (none for a code of one kind)."""
        return [facts.problem for facts in _FACTS.get(self.name, ()) if facts.problem]


#: Each code's facts classes, by code name, in the order they are defined.
_FACTS: dict[str, list[type[Facts]]] = {}


@dataclass_transform(kw_only_default=True, frozen_default=True)
class Facts:
    """What one finding is about: a subclass per code (or per variant of one) names its code
    and variant in its header, its facts as annotated fields (a value in the class body is
    the default), and says them in `words()`."""

    code: ClassVar[Code]
    problem: ClassVar[str | None] = None
    _fields: ClassVar[tuple[str, ...]] = ()
    _required: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, code: Code | None = None, problem: str | None = None) -> None:
        if code is not None:
            cls.code, cls.problem = code, problem
            _FACTS.setdefault(code.name, []).append(cls)

    @classmethod
    def _learn_fields(cls) -> None:
        """Its fields and which have no default, from the annotations (on first use: a clean
        check makes few findings, and ~100 classes are defined at start)."""
        fields: list[str] = []
        for klass in reversed(cls.__mro__):
            own = [f for f, kind in klass.__dict__.get("__annotations__", {}).items()
                   if "ClassVar" not in str(kind)]  # a string under `from __future__ import annotations`
            fields = [f for f in fields if f not in own] + own
        cls._fields = tuple(fields)
        cls._required = frozenset(f for f in fields if not hasattr(cls, f))

    def __init__(self, **given: Any) -> None:
        if "_fields" not in type(self).__dict__:
            type(self)._learn_fields()
        unknown, missing = given.keys() - set(self._fields), self._required - given.keys()
        if unknown or missing:
            said = [f"no fact {sorted(unknown)}"] * bool(unknown) + [f"needs the facts {sorted(missing)}"] * bool(missing)
            raise TypeError(f"{type(self).__name__}: " + "; ".join(said))
        self.__dict__.update(given)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: a finding's facts do not change")

    def as_dict(self) -> dict[str, Any]:
        """The facts as JSON and SARIF carry them: `problem` (the variant) first, where the code has them."""
        facts = {name: getattr(self, name) for name in self._fields}
        return {"problem": self.problem, **facts} if self.problem else facts

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.as_dict() == other.as_dict()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.as_dict().items() if k != 'problem')})"

    def words(self) -> Words:
        """The message, and the help (None: no advice for it)."""
        raise NotImplementedError


#: The generic table the examples of examples.yaml are written against, by top-level key.
_EXAMPLE_TABLE = {"format": "format: 1\n", "decision": "decision: demo\n", "hit_policy": "hit_policy: unique\n",
                  "inputs": "inputs:\n  mode: {values: [fast, safe, exact]}\n",
                  "output": "output: {values: [cache, none]}\n"}


def examples() -> dict[str, dict[str, str]]:
    """code -> {"example": a table that has its finding, "fixed": the same fixed}, each as
    the top-level keys that differ from the generic table (examples.yaml)."""
    import pathlib

    import yaml

    return yaml.safe_load((pathlib.Path(__file__).parent / "examples.yaml").read_text(encoding="utf-8"))


def example_table(fragment: str) -> str:
    """An example's whole table: the generic table's keys it does not give, then its own."""
    given = {line.split(":")[0] for line in fragment.splitlines() if line[:1].isalpha()}
    return "".join(text for key, text in _EXAMPLE_TABLE.items() if key not in given) + fragment


# -- words the stages' codes share ----------------------------------------------------------

def _v(value: Any) -> str:
    return format_value(value)


def _all(values: Any) -> str:
    return ", ".join(map(format_value, values))


def _ids(ids: Any) -> str:
    from ..text import quoted

    return shown_list(ids, SHOWN_RULES, quoted)


def _json(value: Any) -> str:
    import json  # only when a finding is shown: the happy path imports no more than it needs

    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def did_you_mean(suggestion: Any = None) -> str | None:
    return None if suggestion is None else f"did you mean '{format_value(suggestion)}'?"


def yaml_flow(rule: Mapping[str, Any], **missing: Any) -> str:
    """A rule given as table data, as one line of flow-style YAML to paste under `rules:`
    (PyYAML writes it, quoting what YAML would misread: `yes`, `-`, `1.0`); `missing`
    stands in for values the data leaves open (None)."""
    import yaml  # only when the words are shown

    data = {k: missing.get(k, v) if v is None else v for k, v in rule.items()}
    return yaml.safe_dump(data, default_flow_style=True, sort_keys=False, width=float("inf")).strip()


def adding_hint(name: str, sets: Any, value: Any) -> str:
    """How to add `value` to input `name`'s domain: with named sets, into the one it belongs to."""
    if sets:
        return f"append {_v(value)} to the one of {name}'s sets ({', '.join(sets)}) it belongs to"
    return f"add {_v(value)} to the values of {name} and name it in the rule that should decide it"
