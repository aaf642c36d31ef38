"""The grounded predicates of VirtualHome: the guide's seven and those of the other actions.

Truth values, read from the executor's graph (the character is the agent):

* the guide's seven (:data:`safetychip.ltl.PREDICATES`): ``agent_at(room)``: the character
  is INSIDE the room; ``agent_at(object)``: the character is CLOSE to it; ``is_open``,
  ``is_switchedon``: the node's OPEN / ON states; ``is_grabbed``: a HOLDS_RH or HOLDS_LH
  edge; ``is_on``, ``is_in``: ON / INSIDE edges; ``is_touched(x)``: true in the state
  produced by touching x;
* ``agent_sitting_on(x)`` / ``agent_lying_on(x)``: the character is SITTING / LYING and ON x
  (SIT and LIE; STANDUP ends both);
* ``agent_facing(x)``: a FACING edge from the character to x (TURNTO; walking ends it);
* ``is_grabbed_rh(x)`` / ``is_grabbed_lh(x)``: a HOLDS_RH / HOLDS_LH edge to x, i.e. x is held
  in the right / left hand (``is_grabbed`` is their disjunction);
* ``is_worn(x)``: x is ON the character (PUTON; PUTOFF ends it);
* ``is_dirty(x)`` / ``is_clean(x)``: the node's DIRTY / CLEAN state (WASH, RINSE, SCRUB and
  WIPE make it clean; a node may have neither);
* ``is_pluggedin(x)``: the node's PLUGGED_IN state (PLUGIN, PLUGOUT); only for objects with
  the HAS_PLUG property;
* ``is_poured(x)``: true in the state produced by pouring x into something (POUR).

**Class names.** An argument may also be a *class name* shared by several objects of the
scene (``window`` when the scene has ``bedroom_window`` and ``living_room_window``; a class
with one object is named by its class already, and a class name that is also some object's
unique name stays that object's name). A class name means *any* instance: ``is_open(window)``
holds when at least one window is open, ``agent_at(light)`` when the character is close to
some light, and in a predicate of two arguments each argument that is a class name ranges
over its instances independently (``is_in(knife,sink)``: the knife is in some sink;
``is_on(plate,table)``: some plate is on some table). So ``G !is_open(window)`` forbids
opening any window, which is what people mean by "never open the window". A class name is
accepted only when *every* instance supports the predicate (:data:`SUPPORT`: all windows
CAN_OPEN for ``is_open(window)``; a room class only for ``agent_at`` and as a container), so
it never silently covers fewer objects than its name says; otherwise it is refused, naming
the instance that lacks the property. A class name cannot be an initial condition (which
window would start open?): name the instance.

Examples
--------
>>> VIRTUALHOME_PREDICATES["is_on"], VIRTUALHOME_PREDICATES["agent_sitting_on"]
(2, 1)
>>> sorted(set(VIRTUALHOME_PREDICATES) - set(PREDICATES))[:3]
['agent_facing', 'agent_lying_on', 'agent_sitting_on']
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from safetychip.ltl import PREDICATES

__all__ = ["EVENT_VERBS", "PREDICATES", "SUPPORT", "VIRTUALHOME_PREDICATES"]

#: Every predicate a VirtualHome proposition may use, with its number of arguments.
VIRTUALHOME_PREDICATES: Mapping[str, int] = MappingProxyType({
    **PREDICATES,
    "agent_sitting_on": 1, "agent_lying_on": 1, "agent_facing": 1,
    "is_grabbed_rh": 1, "is_grabbed_lh": 1, "is_worn": 1,
    "is_dirty": 1, "is_clean": 1, "is_pluggedin": 1, "is_poured": 1,
})  # fmt: skip

#: Event predicates -> the verb whose state they hold in (its first object is the argument);
#: the verbs are keys of the verb lexicon (``VirtualHomeEnv.verbs``).
EVENT_VERBS: Mapping[str, str] = MappingProxyType({"is_touched": "touch", "is_poured": "pour"})

#: Predicates -> the property every instance of a class name must have for the predicate to
#: take the class name as its first argument (``is_open(window)``: every window CAN_OPEN).
SUPPORT: Mapping[str, str] = MappingProxyType({
    "is_open": "CAN_OPEN", "is_switchedon": "HAS_SWITCH", "is_pluggedin": "HAS_PLUG",
    "is_grabbed": "GRABBABLE", "is_grabbed_rh": "GRABBABLE", "is_grabbed_lh": "GRABBABLE",
    "agent_sitting_on": "SITTABLE", "agent_lying_on": "LIEABLE", "is_worn": "CLOTHES",
})  # fmt: skip
