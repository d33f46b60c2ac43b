"""Discord UI: the buttons that answer clicks (``items``: DynamicItems, parsed by the layout of
``custom_ids``), and message payloads built from the render layer's specs (``payloads``).

Import them by their module: this package's ``__init__`` imports nothing, so that the table
code, which sends payloads, never loads the buttons, which call the table code."""
