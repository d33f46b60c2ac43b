"""The tables: one session per channel, one lock each (docs/architecture.md §1, §7).

- ``tables``: the registry and the one path of a change (lock, check, engine, commit,
  unlock, answer, publish);
- ``lobby``, ``play``, ``driver`` (computer seats, turn clock), ``restore``, ``readonly``:
  the features, each using that path;
- ``publisher`` (public messages) and ``hands`` (private hand messages): Discord brought up to
  date with the committed state.
"""

from .session import TableSession
from .tables import Reply, Step, Tables

__all__ = ["Reply", "Step", "TableSession", "Tables"]
