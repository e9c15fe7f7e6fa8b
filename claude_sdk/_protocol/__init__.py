"""Sans-IO protocol core: framing, codec and control-protocol state, with no I/O."""
