"""The shapes of credentials, and the one function that replaces them in text.

Used wherever text the SDK did not write may leave the process: cassettes
(`claude_sdk.testing.cassette`, ``auto_scrub``), OpenTelemetry span attributes
(`claude_sdk.telemetry`) and the reprs of settings and MCP configurations
(`claude_sdk.options`). A shape is replaced wherever it appears, at a word boundary: Anthropic,
OpenAI and GitHub keys, AWS access key ids, Slack tokens, bearer tokens, passwords in URLs.
It is a net for known shapes, not a proof that text holds no secret: what must never leave
(a prompt, a tool's input) is not exported at all.

This module imports nothing of the SDK (the model layer uses it).
"""

from __future__ import annotations

import re

__all__ = ["TOKEN_PATTERNS", "scrub_text"]

#: Shapes of credentials and what replaces them (``pattern.sub(replacement, text)``).
TOKEN_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"), "<sk-ant-key>"),
    (re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_\-]{20,}"), "<sk-key>"),
    (
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
        "<github-token>",
    ),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "<aws-access-key-id>"),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), "<slack-token>"),
    # A credential after "Bearer"/"Basic"/"token" has a digit or a symbol, or is long: prose
    # ("token counting") is left alone.
    (
        re.compile(
            r"(?i)\b(bearer|basic|token)(\s+)"
            r"(?=[A-Za-z0-9._~+/=\-]*[0-9._~+/=\-]|[A-Za-z0-9._~+/=\-]{20})[A-Za-z0-9._~+/=\-]{8,}"
        ),
        r"\1\2<token>",
    ),
    (re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:)[^@\s/]+@"), r"\1<password>@"),
)


def scrub_text(text: str) -> str:
    """``text`` with every credential shape of `TOKEN_PATTERNS` replaced."""
    for pattern, replacement in TOKEN_PATTERNS:
        text = pattern.sub(replacement, text)
    return text
