__version__ = "0.1.0.dev0"

#: The distribution's name on PyPI (the import name is ``claude_sdk``).
DISTRIBUTION = "claude-sdk-py"


def install_hint(extra: str | None = None) -> str:
    """``pip install 'claude-sdk-py[extra]'`` (the line errors and warnings show)."""
    return f"pip install '{DISTRIBUTION}[{extra}]'" if extra else f"pip install {DISTRIBUTION}"
