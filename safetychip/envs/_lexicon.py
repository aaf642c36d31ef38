"""An environment's verb lexicon: its verbs, each with one English template and the
phrasings people use for it.

Each environment owns one :class:`VerbLexicon` (``VirtualHomeEnv.verbs``, ``SpotEnv.verbs``,
``ThorEnv.verbs``): its actions print with the templates, and its ``parse`` reads the
phrasings, tried in the lexicon's order (verb by verb, pattern by pattern). A pattern is a
regular expression over the lower-case text with one group per object it names.

Examples
--------
>>> lexicon = VerbLexicon({
...     "walk": Verb("walk to {0}", (r"(?:walk|go)(?: to)? (.+)",)),
...     "put": Verb("put {0} on {1}", (r"(?:put|place) (.+?) (?:onto|on) (.+)",)),
...     "done": Verb("done", (r"done|stop",)),
... })
>>> list(lexicon), lexicon.templates["put"], lexicon.head("put")
(['walk', 'put', 'done'], 'put {0} on {1}', 'put')
>>> list(lexicon.matches("place the cup onto the table"))
[('put', ('the cup', 'the table'))]
>>> lexicon.forms("X", "Y")
['walk to X', 'put X on Y', 'done']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple

__all__ = ["Verb", "VerbLexicon"]


class Verb(NamedTuple):
    """One verb of a lexicon: its English *template* (``{0}`` and ``{1}`` stand for its
    objects), the *patterns* that read it, and the simulator's *script* name where it has one."""

    template: str
    patterns: tuple[str, ...]
    script: str = ""


class VerbLexicon(Mapping[str, Verb]):
    """An environment's verbs -> their :class:`Verb`, in the order its parser tries them.

    Parameters
    ----------
    verbs : Mapping[str, Verb]
        Each verb's template, patterns and script name.
    words : Iterable[str], optional
        Words a clause may start with, offered as suggestions when a clause reads as no
        action (default: none).
    """

    def __init__(self, verbs: Mapping[str, Verb], *, words: Iterable[str] = ()) -> None:
        self._verbs = dict(verbs)
        self.words: tuple[str, ...] = tuple(words)
        self._patterns = tuple(
            (verb, re.compile(f"^(?:{p})$")) for verb, spec in self._verbs.items()
            for p in spec.patterns
        )  # fmt: skip

    def __getitem__(self, verb: str) -> Verb:
        return self._verbs[verb]

    def __iter__(self) -> Iterator[str]:
        return iter(self._verbs)

    def __len__(self) -> int:
        return len(self._verbs)

    def __repr__(self) -> str:
        return f"VerbLexicon({', '.join(self._verbs)})"

    @property
    def templates(self) -> dict[str, str]:
        """Each verb -> its English template, in the lexicon's order."""
        return {verb: spec.template for verb, spec in self._verbs.items()}

    def head(self, verb: str) -> str:
        """The words of *verb*'s template before its first object (``turn on`` for
        ``turn on {0}``)."""
        return self._verbs[verb].template.split(" {")[0]

    def forms(self, *objects: str) -> list[str]:
        """Every template with *objects* in place of its objects, in the lexicon's order."""
        return [spec.template.format(*objects) for spec in self._verbs.values()]

    def matches(self, text: str) -> Iterator[tuple[str, tuple[str | None, ...]]]:
        """Every reading of *text* (already lower case): ``(verb, object phrases)`` per pattern
        that matches it whole, in the lexicon's order (an optional group that did not match
        is ``None``)."""
        for verb, pattern in self._patterns:
            match = pattern.match(text)
            if match:
                yield verb, match.groups()
