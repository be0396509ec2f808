"""Which tables a server loads. One rule for the sglang plugin, `load_policy()` and
`swapool plan`, so that a plan is made from the tables the server would use."""

from __future__ import annotations

import os

from ..table.decider import PolicyError
from ..table.shipped import shipped

#: role -> (its environment variable, the shipped table)
TABLES = {"policy": ("SWAPOOL_POLICY", "policies/swa.yaml"),
          "places": ("SWAPOOL_PLACES_POLICY", "policies/swa_backends.yaml")}


def table_path(role: str, flag: str | None = None) -> str:
    """The path given by a command-line flag, else the role's environment variable, else the
    shipped table. A flag or variable that is given but empty is an error: it never means
    the shipped table, since a server and a plan must not disagree on which table that is."""
    variable, shipped_name = TABLES[role]
    for given, named in ((flag, f"--{role}"), (os.environ.get(variable), f"${variable}")):
        if given is not None:
            if not given.strip():
                raise PolicyError(f"{named} is set but empty: name a table, or leave it unset for the shipped "
                                  f"{shipped_name}")
            return given
    return str(shipped(shipped_name))
