"""The tool model's sources: capture.py records them, dts.py reads sdk-tools.d.ts."""
