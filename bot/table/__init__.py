"""The tables: one session per channel, one lock each (docs/architecture.md).

Rooms, each importing only the ones below it (import them by their module: this package's
``__init__`` imports nothing, so that importing one room never loads the others):

- ``outcome`` (Reply, Step, refusals), ``requests`` (a move as a plain request) and
  ``session`` (one table in memory);
- ``open_tables`` (the open tables, by id and channel) and ``timing`` (the table's clocks);
- ``changes``: the change path (lock, step, engine, commit), without Discord; the steps of a
  seat (``seats``, ``takeback``, ``endgame``, ``choices``) and ``moves``, the path's front
  door, which takes a plain request and returns a Step;
- ``publisher`` and ``hands``: Discord brought up to date with the committed state;
- ``answers`` and ``responder``: the Discord front (a click as a request, its answer drawn);
- the features: ``lobby``, ``play``, ``readonly``, ``driver`` (computer seats, turn clock),
  ``restore``;
- ``tables``: the composition root that builds them all.
"""
