"""Score pads for games played with a real deck (docs/scorepad.md)."""
