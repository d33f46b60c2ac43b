"""Club play: events over many tables, round after round (docs/events.md).

``model`` holds an event as plain data (the store reads and writes it); ``conductor`` moves an
event on from what is committed (seats a round, opens its tables, keeps the standings
message); ``organiser`` and ``entry`` answer the organiser's commands and the players'
buttons. Every rule of seating and scoring is in ``kachuful_core.club``.
"""
