"""Self-corrections: a speaker takes back a word and says another ("the living room, sorry,
I meant the bedroom"; "within five steps, no, within three").

A correction is a marker after a clause boundary (*sorry*, *I meant*, *no wait*, *scratch
that*, *what am I saying*, *make that* …), then the corrected words up to the next comma or
sentence end. The corrected words replace what they correct in the clause before the marker,
found by their shape:

* placeholders ("[b]", "[c] then [b]") replace as many placeholders, the last ones before
  the marker;
* a count ("three", "exactly twice", "only once") replaces the last count;
* words opened by a word the clause has ("before [c]", "until [c] is off", "in [c]")
  replace the clause from that word's last use.

A sentence after the correction that only restates it ("Never the bedroom.", "At least
twice.": at most four words, naming nothing new) is dropped; anything else after it stays.
When no shape fits, the sentence is left as it is (and the readers refuse it as before).

>>> take_back("Never go into [a], sorry, I meant [b]. Never [b].")
('Never go into [b].', 'sorry, I meant [b]')
>>> take_back("If you switch on [a], switch it off within five steps, no, within three.")
('If you switch on [a], switch it off within three steps.', 'no, within three')
>>> take_back("Don't go into [a] before [b]. Actually, make that before [c].")
("Don't go into [a] before [c].", 'Actually, make that before [c]')
>>> take_back("Never go into [a] before [b].") is None
True
"""

from __future__ import annotations

import re
from types import MappingProxyType

from ._lift import LETTERS, LiftedSentence
from ._normalize import NUMBER

__all__ = ["take_back", "taken_back"]

# The words that take something back; "no" and "wait" only with a comma after them.
_STRONG = (r"sorry|i meant|i mean|or rather|what am i saying|scratch that|correction|"
           r"make (?:that|it)|no,? wait|no,? sorry|"
           r"actually,? (?:make (?:that|it)|i meant|i mean)")  # fmt: skip
_MARKER = re.compile(
    r"(?:(?<=[,;.!?:])|(?<=\s[-—–]))\s*"
    r"(?P<marker>(?:(?:hmm+|um+|uh+|erm?|oops|ah|oh)[,.!]?\s+)?"
    rf"(?:(?:{_STRONG})\b[,.!:]?\s*(?:(?:{_STRONG}|no|wait)\b[,.!:]?\s*)*"
    r"|(?:no|nope|wait)[,.!]\s+(?:(?:" + _STRONG + r"|no|wait)\b[,.!:]?\s*)*))",
    re.I,
)
_QUALIFIER = (r"exactly|only|at least|at most|no more than|not more than|no fewer than|"
              r"no less than|max(?:imum)?|min(?:imum)?|up to")  # fmt: skip
_UNIT = r"times?|visits?|entries|entry|trips?|steps?|occasions?"
_COUNT = re.compile(
    rf"\b(?:(?P<q>{_QUALIFIER})\s+)?(?P<n>{NUMBER}|a single)\b(?:\s+(?P<u>{_UNIT})\b)?", re.I
)
_PLACEHOLDER = re.compile(r"\[[a-z]\]")
_OPENERS = "before after until till in into to within from at on off while when near inside out of"
_FILLER_TAIL = re.compile(r"\s+(?:instead|is enough|is fine|will do|is plenty|then|please)\s*$",
                          re.I)  # fmt: skip


def take_back(lifted: str) -> tuple[str, str] | None:
    """The lifted sentence with its self-correction applied, and the marker with the words
    it brought; None when there is none (or none whose shape fits)."""
    for m in _MARKER.finditer(lifted):
        before = lifted[: m.start()].rstrip(" ,;:-—–")
        after = lifted[m.end() :]
        end = re.search(r"[,.;!?]", after)
        said = (after[: end.start()] if end else after).strip()
        rest = after[end.start() :] if end else ""
        said = _FILLER_TAIL.sub("", said)
        if not said:
            continue
        head, _, clause = before.rpartition(". ") if ". " in before else ("", "", before)
        if not clause.strip() and head:  # "… three times. Hmm, no, make it twice."
            head, _, clause = head.rpartition(". ") if ". " in head else ("", "", head)
        clause = clause.rstrip(".!?")
        fixed = _replace(clause, said)
        if fixed is None:
            continue
        sentence = (f"{head}. " if head else "") + fixed
        rest = _drop_restatements(rest, sentence)
        text = (sentence + rest).strip()
        if not re.search(r"[.!?]$", text) and re.search(r"[.!?]\s*$", lifted):
            text += "."
        return text, (m.group("marker") + said).strip()
    return None


def taken_back(lifted: LiftedSentence) -> tuple[LiftedSentence, str] | None:
    """:func:`take_back` on a lifted sentence: the placeholders no longer used are dropped
    and the rest lettered again in order of first appearance; with the words taken back.

    >>> s = LiftedSentence("Go to [a], no wait, [b].", {"a": "bedroom", "b": "bathroom"},
    ...                    {"a": "the bedroom", "b": "the bathroom"})
    >>> fixed, said = taken_back(s)
    >>> fixed.text, dict(fixed.placeholders), said
    ('Go to [a].', {'a': 'bathroom'}, 'no wait, the bathroom')
    """
    found = take_back(lifted.text)
    if found is None:
        return None
    text, said = found
    said = lifted.written(said)
    order = list(dict.fromkeys(m.group()[1] for m in _PLACEHOLDER.finditer(text)))
    new = dict(zip(order, LETTERS, strict=False))
    text = _PLACEHOLDER.sub(lambda m: f"[{new[m.group()[1]]}]", text)
    return LiftedSentence(text, MappingProxyType({new[x]: lifted.placeholders[x] for x in order}),
                          MappingProxyType({new[x]: lifted.expressions[x] for x in order})
                          ), said  # fmt: skip


def _replace(clause: str, said: str) -> str | None:
    """*clause* with *said* in place of what it corrects, or None."""
    said = re.sub(r"^(?:it'?s|it is|that'?s|that is|to)\s+", "", said, flags=re.I)
    taken = _PLACEHOLDER.findall(said)
    if taken and _PLACEHOLDER.match(said):
        spots = list(_PLACEHOLDER.finditer(clause))
        if len(spots) < len(taken):
            return None
        first, last = spots[-len(taken)], spots[-1]
        return clause[: first.start()] + said + clause[last.end() :]
    new = _COUNT.search(said)
    if not taken and new is not None:
        counts = list(_COUNT.finditer(clause))
        if not counts:
            return None
        old = counts[-1]
        once = new.group("n").lower() in ("once", "twice", "thrice")
        unit = new.group("u") or (None if once else old.group("u"))
        words = [new.group("q") or old.group("q"), new.group("n"), unit]
        return clause[: old.start()] + " ".join(w for w in words if w) + clause[old.end() :]
    opener = said.split()[0].lower()
    if opener in _OPENERS.split():
        spots = list(re.finditer(rf"\b{re.escape(opener)}\b", clause, re.I))
        if spots:
            return clause[: spots[-1].start()] + said
    return None


def _drop_restatements(rest: str, sentence: str) -> str:
    """*rest* without the short sentences after a correction that name nothing new."""
    named = set(_PLACEHOLDER.findall(sentence))
    kept = []
    for piece in re.split(r"(?<=[.!?])\s+", rest.strip()):
        words = re.findall(r"[\w\[\]']+", piece)
        if piece.startswith(",") or not words:
            kept.append(piece)
        elif len(words) > 4 or not set(_PLACEHOLDER.findall(piece)) <= named:
            kept.append(" " + piece)
    return "".join(kept).rstrip() if any(p.strip(" .!?") for p in kept) else ""
