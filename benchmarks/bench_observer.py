"""How much the grounded observer adds per candidate (issue 11's speed target: ≤ 5 ms median
with the offline extractors).

Run: .venv/bin/python benchmarks/bench_observer.py

An observer with every offline extractor (length, brevity, question rate, advice markers,
repetition against the last 3 agent turns) and a context value, and five overlays (two
prohibitory, one conditional prohibitory, a transfer, a permission), evaluates 2,000
candidates of 5–60 words after a 20-turn history: ``observer.evaluate(candidate, state)``
(features, assessments, decision), and the same through a majority ensemble of three such
observers. Then the Safety Chip as an overlay: the constraint monitor judging 2,000 previewed
proposals inside an observer, against the monitor filter directly.
Then the same observer with :class:`TopicDrift` on the real MiniLM added, on ONNX Runtime, on
PyTorch and on PyTorch with one thread as ONNX Runtime has (the ``embeddings`` extra; each
utterance embedded once, so a candidate costs one new embedding; 200 candidates, the model
loaded and the history embedded beforehand; skipped without the extra), and the same
candidates evaluated again (every embedding cached, as on a re-evaluation).
Then the small-talk drift study of 50 turns, without and with the observer (target ≤ 10 s).

Prints the median and the worst time of each.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from safetychip.errors import MissingDependencyError
from safetychip.llm import MiniLMEmbedder
from safetychip.monitor import Monitor
from safetychip.observer import (
    OFFLINE,
    Candidate,
    Condition,
    ContextValue,
    Ensemble,
    FilterOverlay,
    Observer,
    ObserverState,
    PermissiveOverlay,
    ProhibitoryOverlay,
    TopicDrift,
    TransferOverlay,
)  # fmt: skip
from safetychip.observer._studies import smalltalk_study
from safetychip.shield import MonitorFilter, Proposal

WORDS = ("you should try a short walk today is it sunny the weather looks nice how was your "
         "day make sure to rest remember that I hear you this sounds hard").split()  # fmt: skip
N = 2000


def _text(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(1, 6)):
        words = rng.choices(WORDS, k=rng.randint(5, 10))
        sentences.append(" ".join(words) + rng.choice([".", "?", "!"]))
    return " ".join(sentences)


def _times(function: Callable[[Any], object], inputs: Sequence[Any]) -> list[float]:
    times = []
    for item in inputs:
        start = time.perf_counter()
        function(item)
        times.append((time.perf_counter() - start) * 1000)
    return times


def _report(label: str, times: list[float]) -> None:
    print(f"{label:<48} median {statistics.median(times):7.3f} ms   "
          f"worst {max(times):7.3f} ms   (n={len(times)})")  # fmt: skip


def _drift(observer: Observer, state: ObserverState, candidates: Sequence[Candidate],
           backend: str) -> None:  # fmt: skip
    """The observer with TopicDrift on MiniLM run by *backend* added: new candidates, then
    the same again."""
    drift = TopicDrift(MiniLMEmbedder(backend=backend.split(",")[0]), n=4)
    with_drift = Observer([*observer.extractors, drift], observer.overlays)
    try:
        _times(lambda c: with_drift.evaluate(c, state), candidates[:20])  # load, history
    except MissingDependencyError as exc:
        print(f"observer.evaluate, + TopicDrift on {backend}: skipped ({exc})")
        return
    _report(f"observer.evaluate, + TopicDrift (MiniLM on {backend}, new candidate)",
            _times(lambda c: with_drift.evaluate(c, state), candidates[100:300]))  # fmt: skip
    _report("  the same candidates again (embeddings cached)",
            _times(lambda c: with_drift.evaluate(c, state), candidates[100:300]))  # fmt: skip


def main() -> None:
    rng = random.Random(0)
    observer = Observer(
        [*OFFLINE, ContextValue("frustration")],
        [ProhibitoryOverlay("brief", "length", at_most=30, rigidity=5),
         ProhibitoryOverlay("repeat", "repetition", at_most=0.6, rigidity=0.1),
         ProhibitoryOverlay("calm_brevity", "brevity", at_least=0.5,
                            when=Condition("frustration", 0.7)),
         TransferOverlay("empathy", Condition("frustration", 0.7), "question_rate", 0.3,
                         away="advice", ceiling=0.2, rigidity=0.05),
         PermissiveOverlay("asked", Condition("frustration", 0.95), ["brief"])],
    )  # fmt: skip
    state = ObserverState(context={"frustration": 0.8})
    for turn in range(20):
        state.say("user" if turn % 2 else "agent", _text(rng))
    candidates = [Candidate(_text(rng), rng.random()) for _ in range(N)]
    _times(lambda c: observer.evaluate(c, state), candidates[:100])  # warm up
    _report(
        "observer.evaluate, offline extractors",
        _times(lambda c: observer.evaluate(c, state), candidates),
    )
    for backend in ("onnx", "torch"):
        _drift(observer, state, candidates, backend)
    if "torch" in sys.modules:  # one thread, as ONNX Runtime has: torch's wait on a busy machine
        sys.modules["torch"].set_num_threads(1)
        _drift(observer, state, candidates, "torch, 1 thread")
    ensemble = Ensemble({"a": observer, "b": observer, "c": observer})
    _report(
        "ensemble of three observers (majority)",
        _times(lambda c: ensemble.evaluate(c, state), candidates),
    )

    constraints = ["G !a", "!b W c", "F d", "G (e -> F !e)"]
    atoms = "abcde"
    trace = ({p: False for p in atoms},)
    states = [({p: rng.random() < 0.3 for p in atoms},) for _ in range(N)]
    proposals = [Proposal(f"jump {i}", s) for i, s in enumerate(states)]
    direct = MonitorFilter(Monitor(constraints))
    direct.reset(trace[0])
    inner = MonitorFilter(Monitor(constraints))
    inner.reset(trace[0])
    chip = Observer(overlays=[FilterOverlay(inner)])
    chip_state = ObserverState(trace=trace)
    _report(
        "monitor filter directly", _times(lambda p: direct.judge(p, trace[0], trace), proposals)
    )
    _report("monitor filter as an overlay (observer.evaluate)", _times(
        lambda p: chip.evaluate(Candidate(p.action, payload=p), chip_state),
        proposals))  # fmt: skip
    _report("small-talk drift study, 50 turns (both runs)",
            _times(lambda _: smalltalk_study(turns=50), range(5)))  # fmt: skip


if __name__ == "__main__":
    main()
