"""The Safety Chip (and any other shield filter) as an overlay, and an observer as a shield
filter: the two adapters through which the constraint monitor, the episodic memory and the
observer compose in one loop.

:class:`FilterOverlay` turns any :class:`~safetychip.shield.Filter` into a prohibitory
overlay with ε = 0 (δ = 0 when the filter admits, 1 when it refuses); the candidate's
payload is the shield :class:`~safetychip.shield.Proposal` with its previewed states.
:class:`ObserverFilter` sits an observer in the shield: the proposal becomes the candidate,
the shield's trace the observer's, and a refusal by a filter overlay is that filter's own
judgement, so the monitor inside the observer gives the monitor's verdicts.

Examples
--------
>>> from safetychip.monitor import Monitor
>>> from safetychip.shield import MonitorFilter, Proposal
>>> chip = ObserverFilter(Observer(overlays=[FilterOverlay(MonitorFilter(
...     Monitor(["G !is_open(fridge)"])))]))
>>> chip.reset({"is_open(fridge)": False}).admitted
True
>>> j = chip.judge(Proposal("open fridge", ({"is_open(fridge)": True},)), {}, ())
>>> j.admitted, j.constraints, j.filter
(False, ('c1',), 'monitor')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import ObserverError
from ..shield import Filter, Judgement, Proposal
from ._observer import Observer
from ._overlay import Assessment, Features, Overlay
from ._state import Candidate, ObserverState

__all__ = ["FilterOverlay", "ObserverFilter"]

State = Mapping[str, bool]


class FilterOverlay(Overlay):
    """A shield filter as a prohibitory overlay with zero tolerance (ε = 0).

    Parameters
    ----------
    filter : Filter
        Any shield filter (the constraint monitor's, the episodic memory's, …).
    name : str, optional
        Default: the filter's name.
    """

    kind = "prohibitory"

    def __init__(self, filter: Filter, name: str | None = None) -> None:
        if not isinstance(filter, Filter):
            raise TypeError(f"FilterOverlay needs a safetychip.shield.Filter, got "
                            f"{type(filter).__name__}")  # fmt: skip
        self.filter, self.name, self.rigidity = filter, name or filter.name, 0.0

    def assess(self, features: Features, candidate: Candidate,
               state: ObserverState) -> Assessment:  # fmt: skip
        """The filter's judgement of the candidate's proposal in the state's trace.

        Raises
        ------
        ObserverError
            If the candidate carries no shield Proposal.
        """
        proposal = candidate.payload
        if not isinstance(proposal, Proposal):
            raise ObserverError(f"overlay {self.name!r} judges robot actions: give candidate "
                                f"{candidate.text!r} a shield Proposal as its payload (an "
                                "ObserverFilter does)")  # fmt: skip
        reset = state.filters
        if reset is not None and id(self.filter) not in reset:
            raise ObserverError(
                f"overlay {self.name!r} sits where its ObserverFilter cannot find it (inside "
                "an object that is neither an overlay, an observer nor a container), so its "
                "filter is never reset or committed and would judge an empty trace: keep the "
                "wrapped overlay in an attribute of an Overlay or Observer"
            )
        judgement = self.filter.judge(proposal, state.state, state.trace)
        descriptor = judgement.reason or ("admitted" if judgement.admitted else "refused")
        return self._assessment(descriptor, 0.0 if judgement.admitted else 1.0,
                                judgement=judgement)  # fmt: skip


class ObserverFilter(Filter):
    """An observer as a shield filter: admit what the observer finds admissible.

    Parameters
    ----------
    observer : Observer
        Its filter overlays are reset and committed with the shield's episode, wherever they
        sit: in the observer, in an ensemble's members, in a wrapping overlay (such as
        :class:`AdaptiveRigidity`), or in a lookahead's observer. A filter overlay kept
        where the search cannot look (inside an object that is neither an overlay, an
        observer nor a container) refuses every proposal it is asked about, naming itself.
    """

    name = "observer"

    def __init__(self, observer: Observer) -> None:
        self.observer = observer
        self.inner = _nested_filters(observer)
        self.propositions = tuple(dict.fromkeys(p for f in self.inner for p in f.propositions))
        self._ids = frozenset(map(id, self.inner))

    def reset(self, initial: State) -> Judgement:
        """Reset the filter overlays; the first refusal, else the first monitor's answer."""
        return _first([f.reset(initial) for f in self.inner], self.name)

    def judge(self, proposal: Proposal, state: State, trace: Sequence[State]) -> Judgement:
        """The observer's decision on *proposal*; a fault refuses (fail safe)."""
        candidate = Candidate(proposal.action, payload=proposal)
        try:
            asked = ObserverState(trace=trace, filters=self._ids)
            record = self.observer.evaluate(candidate, asked)
        except Exception as exc:  # never admit what was not evaluated
            return Judgement.refuse(self.name, f"the observer failed safe: {exc}")
        judgements = [a.judgement for a in record.assessments if a.judgement is not None]
        if record.admissible:
            return _first(judgements, self.name)
        for a in record.rejections:
            if a.judgement is not None and a.overlay not in record.lifted:
                return a.judgement
        return Judgement.refuse(
            self.name,
            "; ".join(f"{a.overlay}: {a.descriptor}" for a in record.rejections),
            tuple(a.overlay for a in record.rejections),
            details=record.to_dict(),
        )

    def commit(self, proposal: Proposal, states: Sequence[State]) -> Judgement | None:
        """Commit what ran to every filter overlay (all of them, even after one raised); the
        last late judgement, if any.

        Raises
        ------
        ObserverError
            If a filter overlay's commit raised (after the others committed), naming it.
        """
        late, failed = None, []
        for f in self.inner:
            try:
                late = f.commit(proposal, states) or late
            except Exception as exc:  # the others still record what ran
                failed.append(f"{f.name}: {type(exc).__name__}: {exc}")
        if failed:
            raise ObserverError(f"filter overlays failed to commit ({'; '.join(failed)})")
        return late

    def idle(self, seconds: float | None) -> int:
        """Give every filter overlay up to *seconds* to finish deferred work (see
        :meth:`Filter.idle <safetychip.shield.Filter.idle>`)."""
        return sum(f.idle(seconds) for f in self.inner)

    def __repr__(self) -> str:
        return f"<ObserverFilter: {self.observer!r}>"


def _nested_filters(observer: Observer) -> tuple[Filter, ...]:
    """The shield filters of every :class:`FilterOverlay` reachable from *observer*: through
    overlays and observers (their attributes), and the lists, tuples, sets and dicts they
    hold; each once, in the order found.

    Examples
    --------
    >>> from safetychip.observer import AdaptiveRigidity, ContextValue, Ensemble
    >>> from safetychip.shield import MonitorFilter
    >>> from safetychip.monitor import Monitor
    >>> chip = FilterOverlay(MonitorFilter(Monitor(["G !b"])))
    >>> members = {"x": Observer([ContextValue("score")],
    ...                          [AdaptiveRigidity(chip, "score", n_max=1)]),
    ...            "y": Observer()}
    >>> _nested_filters(Ensemble(members))
    (<MonitorFilter: 1 constraints>,)
    """
    found: dict[int, Filter] = {}
    seen: set[int] = set()
    todo: list[object] = [observer]
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, FilterOverlay):
            found.setdefault(id(item.filter), item.filter)
        elif isinstance(item, (Overlay, Observer)):
            todo.extend(reversed(list(vars(item).values())))
        elif isinstance(item, dict):
            todo.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple, set, frozenset)):
            todo.extend(reversed(list(item)))
    return tuple(found.values())


def _first(judgements: Sequence[Judgement], name: str) -> Judgement:
    """The first refusal, else the first judgement with a monitor verdict, else an admission
    (the shield's own rule)."""
    refused = [j for j in judgements if not j.admitted]
    if refused:
        return refused[0]
    verdicts = [j for j in judgements if j.verdict is not None]
    return verdicts[0] if verdicts else Judgement.admit(name)
