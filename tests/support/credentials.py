"""Generated credentials, in every shape the SDK's scrubber names (issue 27, item 8).

`secrets()` draws a `Secret`: the text as it would be written (``ghp_...``, ``AKIA...``,
``sk-ant-...``, ``https://user:password@host``, ``Bearer ...``) and ``core``, the part that
must never reach a span, a repr, argv or a recording. Every core holds a digit and is at
least 12 characters long, so it cannot appear by chance in the SDK's own text (placeholders
such as ``<password>`` hold no digit).
"""

from __future__ import annotations

import string

import attrs
from hypothesis import strategies as st

_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits
_KEY = _ALNUM + "_-"
_URL_PASSWORD = _ALNUM + "._~-!$&'*+=;"


@attrs.frozen
class Secret:
    text: str
    core: str


def _with_digit(alphabet: str, min_size: int, max_size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=min_size, max_size=max_size).filter(
        lambda s: any(c.isdigit() for c in s)
    )


@st.composite
def secrets(draw: st.DrawFn) -> Secret:
    """One credential of a random shape."""
    shape = draw(st.sampled_from(["ghp", "github_pat", "akia", "sk-ant", "sk", "url", "bearer"]))
    if shape == "ghp":
        core = draw(_with_digit(_ALNUM, 36, 40))
        prefix = draw(st.sampled_from(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]))
        return Secret(prefix + core, core)
    if shape == "github_pat":
        core = draw(_with_digit(_ALNUM + "_", 22, 82))
        return Secret("github_pat_" + core, core)
    if shape == "akia":
        core = draw(_with_digit(_UPPER, 16, 16))
        prefix = draw(st.sampled_from(["AKIA", "ASIA"]))
        return Secret(prefix + core, prefix + core)
    if shape == "sk-ant":
        core = draw(_with_digit(_KEY, 20, 100))
        return Secret("sk-ant-api03-" + core, core)
    if shape == "sk":
        core = draw(_with_digit(_KEY, 20, 60))
        prefix = draw(st.sampled_from(["sk-", "sk-proj-"]))
        return Secret(prefix + core, core)
    if shape == "url":
        user = draw(st.text(alphabet=_ALNUM + "._-", min_size=1, max_size=10))
        password = draw(_with_digit(_URL_PASSWORD, 12, 30))
        scheme = draw(st.sampled_from(["https", "http", "postgres", "redis", "git+ssh"]))
        return Secret(f"{scheme}://{user}:{password}@db.example.com:5432/x", password)
    word = draw(st.sampled_from(["Bearer", "bearer", "Basic", "token"]))
    core = draw(_with_digit(_ALNUM + "._~+/=-", 20, 60))
    return Secret(f"{word} {core}", core)


#: Text around a secret in a sentence (a word boundary on each side, as people write them).
surroundings = st.tuples(
    st.sampled_from(["", "key ", "use ", "export X=", "(", "'", '"', "\n", "url: "]),
    st.sampled_from(["", " now", ".", ")", "'", '"', "\n", ", then"]),
)
