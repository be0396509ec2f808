"""Which table a command or a server reads when none is named. One rule, in this order:
the path given (a command's PATH or --policy/--places), the role's environment variable,
then, for commands run by a person, the project's policies/<table> in this folder or the
nearest above (as git finds its repository), then the installed table. A server (the
sglang plugin, `load_policy()`) and `swapool plan`, which describes it, skip the project
step: a server's working folder says nothing about which table it should run."""

from __future__ import annotations

import os

from ..table.decider import PolicyError
from ..table.shipped import shipped

#: role -> (its environment variable, the shipped table)
TABLES = {"policy": ("SWAPOOL_POLICY", "policies/swa.yaml"),
          "places": ("SWAPOOL_PLACES_POLICY", "policies/swa_backends.yaml")}


def find_table(role: str, given: str | None = None, *, here: bool = False) -> tuple[str, str | None]:
    """The table's path and, when it was not given, where it came from (for the command to
    say). A flag or variable that is given but empty is an error: it never means the
    default, since a server and a plan must not disagree on which table that is."""
    variable, name = TABLES[role]
    for value, named in ((given, f"--{role}"), (os.environ.get(variable), f"${variable}")):
        if value is None:
            continue
        if not value.strip():
            raise PolicyError(f"{named} is set but empty: name a table, or leave it unset for the default {name}")
        return value, None if named.startswith("--") else named
    if here:
        folder = os.getcwd()
        while True:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return os.path.relpath(candidate), f"{name} in this folder or the nearest above"
            folder, below = os.path.dirname(folder), folder
            if folder == below:
                break
    return str(shipped(name)), "the installed table"


def table_path(role: str, flag: str | None = None) -> str:
    """What a server loads for `role` (no project step)."""
    return find_table(role, flag)[0]
