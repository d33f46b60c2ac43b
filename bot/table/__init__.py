"""The tables: one session per channel, one lock each (docs/architecture.md).

Rooms, each importing only the ones below it:

- ``outcome`` (Reply, Step, refusals) and ``session`` (one table in memory);
- ``open_tables`` (the open tables, by id and channel) and ``timing`` (the table's clocks);
- ``changes``: the change path (lock, step, engine, commit), without Discord;
- ``publisher`` and ``hands``: Discord brought up to date with the committed state;
- ``responder``: the only code answering a table's interactions;
- the features: ``lobby``, ``play``, ``readonly``, ``driver`` (computer seats, turn clock),
  ``restore``;
- ``tables``: the composition root that builds them all.
"""

from .outcome import Reply, Step
from .session import TableSession
from .tables import Tables

__all__ = ["Reply", "Step", "TableSession", "Tables"]
