"""Limits shared by the option model and the protocol layer (a leaf module: imports nothing)."""

#: Default limit on the length of one stdout line: 256 MiB.
DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024
