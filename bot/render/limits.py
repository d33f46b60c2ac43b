"""Discord's limits on a message (docs/architecture.md §3), checked by the render tests."""

MAX_CONTENT = 2000
MAX_EMBED_TOTAL = 6000
MAX_FIELDS = 25
MAX_FIELD_VALUE = 1024
MAX_FIELD_NAME = 256
MAX_DESCRIPTION = 4096
MAX_TITLE = 256
MAX_LABEL = 80
MAX_ROWS = 5
MAX_PER_ROW = 5
