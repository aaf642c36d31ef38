"""The memory's lifecycle as free functions: seeds, clustering, consolidation patterns,
splitting over-broad rules, confidence decay (:class:`~safetychip.memory.EpisodicMemory`
delegates to them).

* :func:`load_seeds`: the ten seed violations of ``data/memory/seeds.json``.
* :func:`cluster_episodes`: episodes of one harm and one verb, linked when their commands'
  embeddings have a cosine of at least *similarity* (single linkage); clusters of at least
  *min_size*.
* :func:`rule_pattern`: the verb and target of a cluster: the class of the object every
  episode's command acts on (:func:`~safetychip.memory.acted_object`) when it is the same,
  else the attribute all those objects carry (the most specific one, i.e. the rarest among
  the cluster's scenes, when several are shared).
* :func:`effect_clusters`: harmful episodes of one harm whose action frames caused the same
  state change, with the features every changed object shares: the pattern of a rule over
  affordances ("broken × breakable" from a vase, a bowl and a lamp).
* :func:`split_rule`: an over-broad rule's specific replacements after overrides.
* :func:`decay`: θ halves every *half_life* interactions without reinforcement.

Examples
--------
>>> seeds = load_seeds()
>>> len(seeds), seeds[0]
(10, <Episode 'push the glass vase off the shelf': breakage, person 0.8>)
>>> decay(Rule("push", "vase", confidence=0.8), now=100, half_life=100).confidence
0.4
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..paths import DATA_DIR
from ._episode import (
    FUNCTION_WORDS,
    VERB_WORDS,
    Episode,
    Rule,
    acted_object,
    command_verb,
    command_words,
)
from ._scene import SceneGraph, SceneObject

__all__ = [
    "SEEDS", "cluster_episodes", "decay", "effect_clusters", "load_seeds", "rule_pattern",
    "split_rule",
]  # fmt: skip

#: The seed violations shipped with safetychip.
SEEDS = DATA_DIR / "memory" / "seeds.json"

_SEED_FORMAT = "safetychip-memory-seeds 1"

_Example = tuple[str, SceneGraph]


def load_seeds(path: str | os.PathLike[str] = SEEDS) -> list[Episode]:
    """The seed episodes of *path* (time 0: before any experience).

    Raises
    ------
    ValueError
        If the file is not a seed file or an entry is malformed (the message names it).
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != _SEED_FORMAT:
        raise ValueError(f"{path} is not a seed file: its 'format' must be {_SEED_FORMAT!r}")
    episodes = []
    for i, entry in enumerate(data.get("episodes", [])):
        try:
            episodes.append(Episode.from_dict({"time": 0.0, **entry}))
        except (ValueError, TypeError) as error:
            raise ValueError(f"{path}: seed episode {i} is malformed: {error}") from error
    return episodes


def cluster_episodes(episodes: Sequence[Episode], vectors: np.ndarray, *,
                     similarity: float = 0.4, min_size: int = 3) -> list[list[int]]:  # fmt: skip
    """Clusters of *episodes* (indices, ascending): one harm, one verb, linked by cosine
    (harmless episodes cluster among themselves; consolidation gives it harmful ones only).

    Parameters
    ----------
    episodes : sequence of Episode
    vectors : ndarray
        Their commands' unit-norm embeddings, one row each.
    similarity : float
        Two episodes are linked when their cosine is at least this.
    min_size : int
        Smaller clusters are left out.

    Returns
    -------
    list of list of int
        Ordered by their first index.
    """
    groups: dict[tuple[str | None, str | None], list[int]] = {}
    for i, episode in enumerate(episodes):
        groups.setdefault((episode.harm, command_verb(episode.command)), []).append(i)
    clusters = []
    for members in groups.values():
        if len(members) < min_size:
            continue
        block = np.asarray(vectors)[members]
        linked = block @ block.T >= similarity
        seen: set[int] = set()
        for start in range(len(members)):
            if start in seen:
                continue
            component, frontier = {start}, [start]
            while frontier:
                new = set(np.flatnonzero(linked[frontier.pop()]).tolist()) - component
                component |= new
                frontier.extend(new)
            seen |= component
            if len(component) >= min_size:
                clusters.append(sorted(members[j] for j in component))
    return sorted(clusters)


def rule_pattern(episodes: Sequence[Episode]) -> tuple[str, str] | None:
    """The shared verb and target of a cluster, or None when they share none.

    The target is the class of the object every episode's command acts on
    (:func:`~safetychip.memory.acted_object`) when it is the same, else the attribute carried
    by the most of those objects, if by more than half of the episodes (the rarest among the
    cluster's scenes on a tie: the most specific), so that one odd episode does not keep a
    cluster from its rule.

    Examples
    --------
    >>> shelf = lambda thing: SceneGraph.of({thing: ["fragile"], "shelf": ["heavy"]})
    >>> rule_pattern([Episode(f"push the {t} off the shelf", shelf(t))
    ...               for t in ("vase", "bowl", "glass")])
    ('push', 'fragile')
    """
    verbs = {command_verb(e.command) for e in episodes}
    if len(verbs) != 1 or None in verbs:
        return None
    verb = verbs.pop() or ""
    objects = [o for e in episodes if (o := acted_object(e.command, e.scene)) is not None]
    if len(objects) == len(episodes) and len({o.cls for o in objects}) == 1:
        return verb, objects[0].cls
    carried = Counter(a for o in objects for a in o.attributes)
    rarity = Counter(a for e in episodes for o in e.scene.objects for a in o.attributes)
    best = min(carried, key=lambda a: (-carried[a], rarity[a], a), default=None)
    if best is None or 2 * carried[best] <= len(episodes):
        return None
    return verb, best


def effect_clusters(episodes: Sequence[Episode], *, min_size: int = 3
                    ) -> list[tuple[str, str, tuple[str, ...], list[int]]]:  # fmt: skip
    """Groups of harmful *episodes* whose action frames caused one state change (gained, to
    the object or the target), one harm a group, at least *min_size* episodes each.

    Returns
    -------
    list of (harm, state, features, members)
        *features*: what every changed object of the group has (class, affordances, tags,
        states, ``holds_…``; sorted), empty when they share nothing; *members*: indices
        into *episodes*, ascending. Ordered by harm, then state.

    Examples
    --------
    >>> from safetychip.memory import ActionFrame
    >>> broke = lambda verb, thing, *features: Episode(f"{verb} the {thing}", frames=[
    ...     ActionFrame(verb, thing, features, effects=["object:broken"])])
    >>> effect_clusters([broke("push", "vase", "breakable", "glass"),
    ...                  broke("knock", "bowl", "breakable", "receptacle"),
    ...                  broke("throw", "mug", "breakable", "fillable")])
    [('breakage', 'broken', ('breakable',), [0, 1, 2])]
    """
    groups: dict[tuple[str, str], dict[int, set[str]]] = {}
    for i, episode in enumerate(episodes):
        if episode.harm is None:
            continue
        for frame in episode.frames:
            for change in frame.effects:
                role, state = change.split(":", 1)
                if role != "other" and not state.startswith("-"):
                    changed = groups.setdefault((episode.harm, state), {}).setdefault(i, set())
                    changed |= frame.features(role)
    return [
        (harm, state, tuple(sorted(set.intersection(*members.values()))), sorted(members))
        for (harm, state), members in sorted(groups.items())
        if len(members) >= min_size
    ]


def _hits(rule: Rule, examples: Sequence[_Example]) -> list[tuple[SceneObject, str]]:
    """The objects the commands of *examples* act on that *rule*'s target hits, with the
    command."""
    acted = [(acted_object(command, scene), command) for command, scene in examples]
    return [
        (o, command)
        for o, command in acted
        if o is not None and (rule.target == o.cls or rule.target in o.attributes)
    ]


def split_rule(rule: Rule, positives: Sequence[_Example], negatives: Sequence[_Example], *,
               total: int) -> list[Rule]:  # fmt: skip
    """Specific rules replacing the over-broad *rule* that *negatives* overrode.

    When an overridden command acted on an object of a class that harmful episodes
    (*positives*) also acted on, the objects cannot tell harm from no harm, the command's
    manner can: if every overridden command names a word that no positive command names,
    other than verbs, :data:`~safetychip.memory.FUNCTION_WORDS` and the classes of the
    overridden scenes ("pick up the knife by the *handle*" against "grab the knife by the
    blade"), the rule is narrowed by those words: the same pattern excluding them, θ =
    |positives| / *total* (as consolidation would). Otherwise each object a harmful episode
    acted on under the rule's target is kept by its most common distinguishing feature: the
    attribute or class, other than the target, carried by the most positive objects and by
    no overridden object. Each such feature becomes a rule (same verb and harm) excluding
    the overridden objects' classes, with θ = the positives it covers / *total*. Without
    positives the rule is only narrowed: the same pattern excluding those classes.

    Examples
    --------
    >>> vase = ("push the vase", SceneGraph.of({"vase": ["heavy", "fragile"]}))
    >>> tv = ("push the tv", SceneGraph.of({"tv": ["heavy", "fragile"]}))
    >>> chair = ("push the chair", SceneGraph.of({"chair": ["heavy", "wooden"]}))
    >>> split_rule(Rule("push", "heavy"), [vase, tv], [chair], total=4)
    [<Rule push × fragile − chair → block (θ=0.5, breakage)>]
    >>> knife = lambda end: (f"grab the knife by the {end}", SceneGraph.of({"knife": ["sharp"]}))
    >>> split_rule(Rule("grasp", "sharp", "cut"), [knife("blade")], [knife("handle")], total=4)
    [<Rule grasp × sharp − handle → block (θ=0.25, cut)>]
    """
    bad = [o for o, _ in _hits(rule, negatives)]
    same = {o.cls for o in bad} & {o.cls for o, _ in _hits(rule, positives)}
    words = _distinguishing_words(positives, negatives) if same else set()
    if words:
        return [replace(rule, id="", exclude=tuple(sorted({*rule.exclude, *words})),
                        confidence=round(min(len(positives) / max(total, 1), 1.0), 6))]  # fmt: skip
    banned = {rule.target}.union(*(o.attributes | {o.cls} for o in bad))
    exclude = tuple(sorted(set(rule.exclude) | {o.cls for o in bad}))
    if not positives:
        return [replace(rule, id="", exclude=exclude)]
    objects = [(o.attributes | {o.cls}, command) for o, command in _hits(rule, positives)]
    common = Counter(a for features, _ in objects for a in features)
    covered: dict[str, set[str]] = {}
    for features, command in objects:
        kept = sorted(features - banned, key=lambda a: (-common[a], a))
        if kept:
            covered.setdefault(kept[0], set()).add(command)
    return [Rule(rule.verb, target, rule.harm, round(len(commands) / max(total, 1), 6),
                 exclude=exclude, stamp=rule.stamp)
            for target, commands in sorted(covered.items())]  # fmt: skip


def _distinguishing_words(positives: Sequence[_Example], negatives: Sequence[_Example]
                          ) -> set[str]:  # fmt: skip
    """The words every command of *negatives* names and none of *positives*, except verbs,
    function words and the words of the negatives' scenes' classes (manner, not things)."""
    if not negatives:
        return set()
    shared = set.intersection(*(command_words(c) for c, _ in negatives))
    named = set().union(*(command_words(c) for c, _ in positives))
    things = {word for _, scene in negatives for c in scene.classes for word in c.split("_")}
    return shared - named - VERB_WORDS - FUNCTION_WORDS - things


def decay(rule: Rule, *, now: int, half_life: int) -> Rule:
    """*rule* with θ halved every *half_life* interactions since its stamp, stamped *now*."""
    factor = 0.5 ** (max(now - rule.stamp, 0) / half_life)
    return replace(rule, confidence=round(rule.confidence * factor, 6), stamp=now)
