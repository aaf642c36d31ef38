"""``check_env``: test that an environment keeps the protocol of :class:`Env`.

Like Gymnasium's ``env_checker``, it drives the environment through a short episode and
raises on the first broken rule, naming it.

Examples
--------
>>> from safetychip.envs import VirtualHomeEnv
>>> env = VirtualHomeEnv("apartment_2").track(["agent_at(kitchen)", "is_open(fridge)"])
>>> check_env(env, refused="grab salmon")
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from safetychip.envs._base import Env
from safetychip.errors import EnvCheckError, ResetNeeded

__all__ = ["check_env"]


def check_env(
    env: Env,
    *,
    options: dict[str, Any] | None = None,
    refused: str | None = None,
    steps: int = 5,
) -> None:
    """Check that *env* follows the :class:`Env` protocol.

    The check resets *env* (with *options*), checks that :meth:`Env.parse` returns an
    action it has read as it is, compares :meth:`Env.preview` with
    :meth:`Env.step` on up to *steps* admissible actions spread over the list, steps
    *refused* (an action the environment must refuse) if given, then DONE, and finally
    checks that stepping after DONE raises ``ResetNeeded``. The environment is left
    terminated, not closed.

    Parameters
    ----------
    env : Env
    options : dict, optional
        Passed to ``reset``.
    refused : str, optional
        An action *env* must refuse in its reset state (e.g. grabbing something far away).
    steps : int
        How many admissible actions to execute.

    Raises
    ------
    EnvCheckError
        Naming the first rule *env* breaks.
    """
    name = type(env).__name__
    _require(isinstance(env, Env), f"{name} does not derive from safetychip.envs.Env")
    props = env.tracked
    reset = env.reset(options=options)
    _require(
        isinstance(reset, tuple) and len(reset) == 2,
        f"{name}.reset must return (obs, info), got {reset!r}",
    )
    obs, info = reset
    _require(isinstance(obs, str), f"{name}.reset: the observation must be text, got {obs!r}")
    _check_states(name, "reset", info, props, expected=1)
    _require(
        env.truth(props) == info["states"][0],
        f"{name}.reset: info['states'][0] differs from truth() of the tracked propositions",
    )
    if refused is not None:
        _check_refused(env, name, refused, props)
    actions = env.admissible_actions()
    _require(
        isinstance(actions, list) and all(isinstance(a, str) for a in actions),
        f"{name}.admissible_actions must return a list of str",
    )
    _require("done" in actions, f"{name}.admissible_actions must include 'done'")
    others = [a for a in actions if a != "done"]
    stride = max(1, len(others) // max(1, steps))
    for action in others[::stride][:steps]:
        parsed = env.parse(action)
        _require(
            env.parse(parsed) is parsed,
            f"{name}.parse must return an action it has read as it is (an action is read once)",
        )
        before = env.truth(props)
        preview = env.preview(action, props)
        _require(env.truth(props) == before, f"{name}.preview({action!r}) changed the world")
        result = env.step(action)
        _require(
            isinstance(result, tuple) and len(result) == 5,
            f"{name}.step must return (obs, reward, terminated, truncated, info)",
        )
        obs, reward, terminated, truncated, info = result
        _require(isinstance(obs, str), f"{name}.step({action!r}): the observation must be text")
        _require(
            isinstance(reward, (int, float)) and isinstance(terminated, bool)
            and isinstance(truncated, bool),
            f"{name}.step({action!r}): reward must be a number, terminated and truncated bools",
        )  # fmt: skip
        _check_states(name, f"step({action!r})", info, props, expected=None)
        _require(
            info.get("error") is None,
            f"{name}.step({action!r}) refused an admissible action: {info.get('error')}",
        )
        _require(
            info["states"] == preview,
            f"{name}.step({action!r}) produced {info['states']}, but preview said {preview}",
        )
        if preview:
            _require(
                env.truth(props) == preview[-1],
                f"{name}.step({action!r}): truth() afterwards is not the last state produced",
            )
        if terminated or truncated:
            return
    obs, reward, terminated, truncated, info = env.step("done")
    _require(terminated, f"{name}.step('done') must terminate the episode")
    try:
        env.step("done")
    except ResetNeeded:
        return
    raise EnvCheckError(f"{name}.step after DONE must raise ResetNeeded")


def _check_refused(env: Env, name: str, action: str, props: Iterable[str]) -> None:
    before = env.truth(props)
    _require(env.preview(action, props) == [], f"{name}.preview({action!r}) must return []")
    *_, info = env.step(action)
    error = info.get("error")
    _require(
        isinstance(error, str) and error != "",
        f"{name}.step({action!r}) must explain the refusal in info['error'], got {error!r}",
    )
    _require(info.get("states") == [], f"{name}.step({action!r}): a refusal produces no state")
    _require(
        env.truth(props) == before, f"{name}.step({action!r}) was refused but changed the world"
    )


def _check_states(
    name: str, where: str, info: Any, props: tuple[str, ...], expected: int | None
) -> None:
    _require(isinstance(info, dict), f"{name}.{where}: info must be a dict")
    states = info.get("states")
    _require(isinstance(states, list), f"{name}.{where}: info['states'] must be a list")
    _require(
        expected is None or len(states) == expected,
        f"{name}.{where}: info['states'] must hold {expected} state(s), got {len(states)}",
    )
    for state in states:
        _require(
            isinstance(state, dict)
            and list(state) == list(props)
            and all(isinstance(v, bool) for v in state.values()),
            f"{name}.{where}: each state must map the tracked propositions {list(props)} "
            f"to bools, got {state!r}",
        )
    _require("error" in info, f"{name}.{where}: info must have an 'error' entry")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise EnvCheckError(message)
