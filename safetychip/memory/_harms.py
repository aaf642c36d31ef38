"""The open harm taxonomy: the harms an episode or rule can name, the free-text names that
mean them, and the safe alternative suggested for each.

Built in (:data:`HARMS`): breakage, fire, electric_shock, explosion, poisoning, slip,
water_damage, furniture_damage, injury, appliance_misuse, and the harms of the memory's
first format (collision, cut, burn, crush, spill), so stores written before the taxonomy
open unchanged. :func:`harm_name` reads a free-text name ("electrocution", "Water damage",
"set it on fire") as one of them, and :func:`define_harm` adds a harm of the user's for the
rest of the process. An unknown name raises :class:`~safetychip.errors.UnknownHarmError`
naming the nearest harms.

Examples
--------
>>> harm_name("Electrocution"), harm_name("water damage"), harm_name("burn")
('electric_shock', 'water_damage', 'burn')
>>> harm_name("boredom")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
safetychip.errors.UnknownHarmError: Episode.harm must be one of breakage, fire, ...
>>> define_harm("scratch", "lift it instead of sliding it", aliases=("scratched",)).name
'scratch'
>>> harm_name("Scratched"), ALTERNATIVES["scratch"]
('scratch', 'lift it instead of sliding it')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .._names import close_names
from ..errors import UnknownHarmError

__all__ = ["ALTERNATIVES", "HARMS", "Harm", "define_harm", "harm_name"]

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Harm:
    """One harm type of the taxonomy.

    Attributes
    ----------
    name : str
        Its canonical name (lower case, words joined by ``_``).
    alternative : str
        The safe alternative suggested when a command is blocked for this harm.
    aliases : tuple of str
        Free-text names that mean it (normalised as :func:`harm_name` reads them).

    Examples
    --------
    >>> HARMS["fire"].alternative
    'keep flammable things away from heat, and turn the heat source off first'
    """

    name: str
    alternative: str
    aliases: tuple[str, ...] = ()


def _key(text: str) -> str:
    """*text* as a harm key: lower case, runs of non-letters joined by ``_``."""
    return "_".join(re.findall(r"[a-z0-9]+", text.lower()))


_BUILT_IN = (
    Harm("breakage", "move it slowly with both hands",
         ("break", "broken", "broke", "shatter", "shattered", "smash", "smashed", "damage to "
          "an object", "broken glass", "fragile object broken")),
    Harm("fire", "keep flammable things away from heat, and turn the heat source off first",
         ("fire_hazard", "flame", "flames", "burning", "set_on_fire", "set_it_on_fire",
          "catch_fire", "ignition", "overheating", "smoke")),
    Harm("electric_shock", "keep liquids away from devices that are on, and switch them off",
         ("electrocution", "electrical_shock", "shock", "electric_hazard", "electrical_hazard",
          "short_circuit", "electricity")),
    Harm("explosion", "never heat sealed containers, metal or eggs in the microwave",
         ("explode", "exploded", "explosive", "blast", "burst")),
    Harm("poisoning", "keep cleaning products and spoiled food away from food and drink",
         ("poison", "poisoned", "ingestion", "toxic", "food_poisoning", "contamination",
          "contaminated", "chemical_ingestion")),
    Harm("slip", "wipe the floor dry and keep walkways clear",
         ("slipping", "slippery_floor", "wet_floor", "fall", "falling", "trip", "tripping")),
    Harm("water_damage", "pour only into containers that can hold liquid",
         ("liquid_damage", "flood", "flooding", "wet", "soaked", "water")),
    Harm("furniture_damage", "set things down gently on a protected surface",
         ("decor_damage", "furniture", "scratch_furniture", "stain", "stained", "dent")),
    Harm("injury", "keep a safe distance from people and hand things over handle first",
         ("injury_to_a_person", "personal_injury", "hurt", "harm_to_a_person", "wound",
          "bodily_harm")),
    Harm("appliance_misuse", "use the appliance only as its manual says",
         ("misuse", "misuse_of_an_appliance", "appliance_damage", "device_misuse")),
    Harm("collision", "navigate around the person", ("bump", "hit_a_person")),
    Harm("cut", "grasp by the handle", ("laceration", "cut_by_a_blade")),
    Harm("burn", "grasp by the handle after it has cooled, or use an oven mitt",
         ("scald", "scalding", "burned", "burnt", "hot_surface")),
    Harm("crush", "push it slowly with both hands, keeping clear of feet", ("crushed", "pinch")),
    Harm("spill", "carry it upright and slowly", ("spilled", "spillage", "spilt")),
)  # fmt: skip

_HARMS: dict[str, Harm] = {h.name: h for h in _BUILT_IN}
_ALIASES: dict[str, str] = {_key(a): h.name for h in _BUILT_IN for a in h.aliases}

#: Every harm known in this process, by name (the built-in ones, then :func:`define_harm`'s).
HARMS: Mapping[str, Harm] = MappingProxyType(_HARMS)


class _Alternatives(Mapping[str, str]):
    """Each harm's safe alternative, by name: a live view of :data:`HARMS`."""

    def __getitem__(self, name: str) -> str:
        return _HARMS[name].alternative

    def __iter__(self) -> Iterator[str]:
        return iter(_HARMS)

    def __len__(self) -> int:
        return len(_HARMS)

    def __repr__(self) -> str:
        return repr(dict(self))


#: The safe alternative suggested for each harm when a command is blocked (a live view of
#: :data:`HARMS`).
ALTERNATIVES: Mapping[str, str] = _Alternatives()


def harm_name(text: object, field: str = "Episode.harm") -> str:
    """The canonical name of the harm *text* names (a name of :data:`HARMS` or an alias, in
    any case and spacing).

    Raises
    ------
    UnknownHarmError
        If *text* names no known harm; the message (led by *field*) names the nearest harms
        and how to define a new one.

    Examples
    --------
    >>> harm_name("Fire Hazard"), harm_name("short circuit")
    ('fire', 'electric_shock')
    """
    key = _key(text) if isinstance(text, str) else ""
    if key in _HARMS:
        return key
    if key in _ALIASES:
        return _ALIASES[key]
    names = [*_HARMS, *_ALIASES]
    near = dict.fromkeys(_ALIASES.get(n, n) for n in close_names(key or repr(text), names))
    hint = f": did you mean {' or '.join(near)}?" if near else ""
    raise UnknownHarmError(
        f"{field} must be one of {', '.join(_HARMS)}; got {text!r:.80}{hint} (a harm of "
        "your own: safetychip.memory.define_harm(name, alternative))",
        text,
        tuple(near),
    )


def define_harm(name: str, alternative: str, aliases: Iterable[str] = ()) -> Harm:
    """Add the harm *name* (with its safe *alternative* and free-text *aliases*) to the
    taxonomy for the rest of the process; defining it again with the same values is a no-op.

    Raises
    ------
    ValueError
        If *name* is not a lower-case identifier, *alternative* is empty, or the name or an
        alias already means another harm.

    Examples
    --------
    >>> define_harm("fire", "anything")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: harm 'fire' is already defined ...
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"a harm's name must be a lower-case identifier such as "
                         f"'scratch', got {name!r:.80}")  # fmt: skip
    if not isinstance(alternative, str) or not alternative.strip():
        raise ValueError(f"harm {name!r} needs a safe alternative (a non-empty string)")
    harm = Harm(name, alternative.strip(), tuple(_key(a) for a in aliases))
    if name in _HARMS and _HARMS[name] != harm:
        raise ValueError(f"harm {name!r} is already defined as {_HARMS[name]!r}: pick another "
                         "name")  # fmt: skip
    taken = [a for a in (name, *harm.aliases) if _ALIASES.get(a, name) != name]
    if taken:
        raise ValueError(f"harm {name!r}: {', '.join(taken)} already name another harm "
                         f"({', '.join(sorted({_ALIASES[a] for a in taken}))})")  # fmt: skip
    _HARMS[name] = harm
    _ALIASES.update(dict.fromkeys(harm.aliases, name))
    return harm
