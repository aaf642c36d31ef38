r"""Characters that make text read differently from what it holds.

Bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) reorder how
a terminal, an editor or a notebook displays the text around them, and zero-width characters
(U+200B-U+200D, U+2060, U+FEFF) are not displayed at all (a zero-width joiner between two
emoji only joins them into one, and is allowed) ("Trojan Source", CVE-2021-42574).
A constraint sentence or a formula holding one can be reviewed as one thing and translated
or parsed as another, so the translator and the parsers refuse them, naming the first one.

Examples
--------
>>> hidden_character("Never enter the kitchen.") is None
True
>>> hidden_character("Never enter the \u202enehctik.")
(16, 'U+202E RIGHT-TO-LEFT OVERRIDE')
>>> hidden_character("never the kitchen \U0001f645\u200d\u2640\ufe0f") is None  # one emoji
True
>>> hidden_character("kitch\u200den")
(5, 'U+200D ZERO WIDTH JOINER')
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["hidden_character"]

# Emoji and their variation selector: a zero-width joiner between two of them joins one emoji
# ("🙅‍♀️"), which hides no text.
_EMOJI = "\u2600-\u27bf\ufe0f\U0001f000-\U0001faff"
_HIDDEN = re.compile(
    "[\u061c\u200b\u200c\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]"
    f"|(?<![{_EMOJI}])\u200d|\u200d(?![{_EMOJI}])"
)


def hidden_character(text: str) -> tuple[int, str] | None:
    """The position and the name (code point and Unicode name) of the first character of
    *text* that is invisible or reorders how text is displayed; None if there is none."""
    found = _HIDDEN.search(text)
    if found is None:
        return None
    char = found.group()
    return found.start(), f"U+{ord(char):04X} {unicodedata.name(char)}"
