"""Permissions: a sentence that only permits ("You may turn on the stove.") forbids nothing,
so it yields no constraint; reading it as an obligation (``F is_switchedon(stove)``) would
make the agent do what it was merely allowed to.

A sentence only permits when it says so to the agent (*you may*, *you can*, *you are
allowed to*, *feel free to*, *it is fine to*, …), is not a question ("Could you …?" asks
for something), and has no word that restricts or obliges (a negation, *only*, *must*, a
count such as *twice* or *at most*, a time word such as *before*, *after*, *until*, a
condition such as *if*, *but*, a request such as *please*): "You may go into the kitchen
only after the bathroom" restricts, and is read as usual.

Examples
--------
>>> only_permits("You may turn on the stove.")
'you may'
>>> only_permits("Feel free to open the fridge")
'feel free to'
>>> only_permits("You may go into the kitchen up to three times.") is None
True
>>> only_permits("You can't open the fridge") is None
True
"""

from __future__ import annotations

import re

__all__ = ["only_permits"]

_PERMITS = re.compile(
    r"\b(you (?:may|can|are (?:allowed|permitted|free|welcome) to|have permission to)|"
    r"feel free to|(?:it is|it's) (?:fine|ok|okay|alright|all right) (?:for you )?to)\b"
)
_RESTRICTS = re.compile(
    r"n't\b|\b(not|no|never|nothing|nobody|none|cannot|only|just|must|should|shall|need|"
    r"needs|have to|has to|got to|ought|always|forbidden|prohibited|off-limits|off limits|"
    r"avoid|stay|keep|except|unless|but|before|after|until|till|while|when|whenever|once|"
    r"twice|times?|most|least|maximum|minimum|max|min|up to|more|less|fewer|limit|if|then|"
    r"neither|nor|please|make sure|sometime|some point|"
    r"as long as|during|again|first|last|later|eventually|finally|every|each|\d+)\b"
)


def only_permits(sentence: str) -> str | None:
    """The permissive phrase of *sentence* if it only permits (see the module), else None."""
    text = sentence.lower().replace("\u2019", "'")
    permit = _PERMITS.search(text)
    if permit is None or "?" in text or _RESTRICTS.search(text):
        return None
    return permit.group(1)
