"""``python -m kachuful_core score RECORD``: check a game record and print its scores."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import RecordError
from .record import format_summary, load_game, score_summary

USAGE = "usage: python -m kachuful_core score RECORD   (a file path, or - for standard input)"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] != "score":
        print(USAGE, file=sys.stderr)
        return 2
    try:
        text = _read(args[1])
        game = load_game(text)
    except RecordError as e:
        print(str(e), file=sys.stderr)
        return 1
    print(format_summary(score_summary(game)))
    return 0


def _read(source: str) -> bytes:
    try:
        return sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as e:
        raise RecordError(f"{source}: cannot read the record ({e.strerror})") from None


if __name__ == "__main__":
    sys.exit(main())
