"""Maintainers' tools (not shipped in the wheel)."""
