"""How hard the property and model-based tests push: a modest count in the everyday suite,
many more in a deep run (``nox -s deep``, which sets ``CLAUDE_SDK_DEEP``).

``CLAUDE_SDK_DEEP=N`` multiplies every example count by N (and stateful step counts by
``sqrt(N)``, at most 4x): the same tests, longer.
"""

from __future__ import annotations

import math
import os


def factor() -> int:
    """The multiplier of this run (1 in the everyday suite)."""
    try:
        value = int(os.environ.get("CLAUDE_SDK_DEEP", "1"))
    except ValueError:
        return 1
    return max(1, value)


def deep(examples: int) -> int:
    """``examples`` in the everyday suite, times the deep factor otherwise."""
    return examples * factor()


def deep_steps(steps: int) -> int:
    """A stateful test's step count: longer runs in a deep session too."""
    return int(steps * min(4.0, math.sqrt(factor())))
