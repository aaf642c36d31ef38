"""Prompt files: the text under ``data/prompts/``, read once, with ``{slot}`` filling.

Examples
--------
>>> "Expressions:" in load_prompt("referring_expressions")
True
>>> fill("Utterance: {sentence}", sentence="never touch [a]")
'Utterance: never touch [a]'
"""

from __future__ import annotations

from functools import cache

from safetychip.errors import DataFileError
from safetychip.paths import DATA_DIR

__all__ = ["PROMPT_DIR", "PROMPTS", "fill", "load_prompt"]

#: Where the prompt files live.
PROMPT_DIR = DATA_DIR / "prompts"

#: The prompts safetychip uses, by name (each is ``PROMPT_DIR / f"{name}.txt"``): the
#: translator's, the explanations' and the agents'.
PROMPTS = ("referring_expressions", "lifted_translation", "back_translation", "agent_query",
           "agent_planner", "agent_code")  # fmt: skip


@cache
def load_prompt(name: str) -> str:
    """The text of prompt *name* (see :data:`PROMPTS`), without its ``#`` header lines.

    Raises
    ------
    ValueError
        If *name* is not one of :data:`PROMPTS`.
    DataFileError
        If the file is missing.
    """
    if name not in PROMPTS:
        raise ValueError(f"unknown prompt {name!r}; choose one of {', '.join(PROMPTS)}")
    path = PROMPT_DIR / f"{name}.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise DataFileError(str(path), f"cannot read the prompt: {err}") from None
    lines = text.splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines).strip() + "\n"


def fill(template: str, **slots: str) -> str:
    """Replace each ``{name}`` of *template* by ``slots[name]``; other braces stay as they are."""
    out = template
    for key, value in slots.items():
        out = out.replace("{" + key + "}", value)
    return out
