"""Import VirtualHome's evolving-graph executor from the ``virtualhome`` wheel, and patch
its two crashes in a subclass of our own.

The wheel's top-level ``virtualhome/__init__.py`` imports Unity code and fails, so the
``simulation`` folder is put on ``sys.path`` and the three modules safetychip uses are
imported as ``evolving_graph.*``. Importing ``evolving_graph`` also seeds Python's global
random generator (``evolving_graph/utils.py`` calls ``random.seed``); that state is restored.

``virtualhome==2.3.0`` raises ``TypeError`` on two kinds of script line: a FIND of an object
the character is not close to (``FindExecutor`` hands ``JoinedExecutor.execute`` two
arguments it does not take) and every PUTOFF (``PutOffExecutor.check_putoff`` is called
without its ``char_index`` and passes one too many to ``_get_character_node``).
:func:`script_executor` returns an executor whose FIND and PUTOFF are the wheel's own code
with those calls fixed; the wheel's modules are left unchanged, and every other action runs
the wheel's executor as it is. A FIND whose id is not in the graph, on which the wheel would
also raise ``TypeError``, is refused like any missing object.

:func:`state_class` is the wheel's ``EnvironmentState`` with one shortcut, for speed: when
an action is applied in place and deletes a node's edges "to any node" (walking, grabbing),
only the nodes it has such edges with are visited, not every node of the scene. The result
is the same (deleting an edge that does not exist changes nothing); on a 325-node scene a
walk takes a fraction of the time.

Examples
--------
>>> vh = evolving_graph()
>>> vh.environment.Relation.HOLDS_RH.name
'HOLDS_RH'
>>> sorted(implemented_actions())[:4]
['CLOSE', 'CUT', 'DRINK', 'DROP']
>>> len(implemented_actions()), "LOOKAT_MEDIUM" in implemented_actions()  # 42 and an alias
(43, True)
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
import weakref
from functools import cache
from pathlib import Path
from types import FunctionType, SimpleNamespace
from typing import Any, ClassVar

from safetychip.errors import MissingDependencyError

__all__ = ["INSTALL", "evolving_graph", "implemented_actions", "script_executor", "state_class"]

#: The command that installs the executor (its own pins would break the environment).
INSTALL = "pip install --no-deps virtualhome==2.3.0 termcolor"


@cache
def evolving_graph() -> SimpleNamespace:
    """Return VirtualHome's ``environment``, ``execution`` and ``scripts`` modules.

    Returns
    -------
    types.SimpleNamespace
        With attributes ``environment``, ``execution`` and ``scripts``.

    Raises
    ------
    MissingDependencyError
        If the ``virtualhome`` wheel (or numpy, which it needs) is not installed; the
        message gives the install command.
    """
    spec = importlib.util.find_spec("virtualhome")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(f"the VirtualHome environment needs 'virtualhome': {INSTALL}")
    simulation = str(Path(next(iter(spec.submodule_search_locations))) / "simulation")
    if simulation not in sys.path:
        sys.path.append(simulation)
    saved = random.getstate()
    try:
        modules = {
            name: importlib.import_module(f"evolving_graph.{name}")
            for name in ("environment", "execution", "scripts")
        }
    except ImportError as exc:
        raise MissingDependencyError(
            f"VirtualHome's executor could not be imported ({exc}): pip install numpy; {INSTALL}"
        ) from exc
    finally:
        random.setstate(saved)
    return SimpleNamespace(**modules)


def implemented_actions() -> frozenset[str]:
    """The script actions the executor implements (its own table; LOOKAT_MEDIUM is LOOKAT)."""
    vh = evolving_graph()
    table = vh.execution.ScriptExecutor._action_executors
    return frozenset(n for n, a in vh.scripts.Action.__members__.items() if a in table)


def script_executor(graph: Any) -> Any:
    """Return a ``ScriptExecutor`` over ``EnvironmentGraph`` *graph*, its two crashes patched.

    The executor's ``name_equivalence`` is empty and it acts for character 0.
    """
    return _patched_class()(graph, name_equivalence={})


@cache
def _patched_class() -> type:
    execution = evolving_graph().execution
    env = evolving_graph().environment

    class Joined(execution.JoinedExecutor):  # type: ignore[name-defined]
        """``JoinedExecutor`` taking the arguments every other executor takes."""

        def execute(self, script, state, info, char_index, modify=True, in_place=False):
            for executor in self.executors:
                yield from executor.execute(script, state, info, char_index, modify, in_place)

    # The wheel's own FindExecutor.execute, reading the fixed walk-then-find executor.
    names = {**vars(execution), "_walk_find_executor": Joined(
        execution.WalkExecutor(), execution._FindExecutor())}  # fmt: skip
    wheel_find = execution.FindExecutor.execute
    find = FunctionType(wheel_find.__code__, names, wheel_find.__name__, wheel_find.__defaults__)

    class Find(execution.FindExecutor):  # type: ignore[name-defined]
        def execute(self, script, state, info, char_index, modify=True, in_place=False):
            found = find(self, script, state, info, char_index, modify, in_place)
            return iter(()) if found is None else found  # None: the id is not in the graph

    class PutOff(execution.PutOffExecutor):  # type: ignore[name-defined]
        def check_putoff(self, state, node, info, char_index=0):
            character = execution._get_character_node(state, char_index)
            worn = env.ExistsRelation(
                env.NodeInstance(node), env.Relation.ON, env.NodeInstanceFilter(character)
            )
            if not state.evaluate(worn):
                info.error("{} is not on {}", node, character)
                return False
            if env.Property.CLOTHES not in node.properties:
                info.error("{} is not clothes", node)
                return False
            return True

    action = evolving_graph().scripts.Action

    class Patched(execution.ScriptExecutor):  # type: ignore[name-defined]
        """VirtualHome's ``ScriptExecutor`` with FIND and PUTOFF fixed (see the module)."""

        _action_executors: ClassVar[dict[Any, Any]] = {
            **execution.ScriptExecutor._action_executors,
            action.FIND: Find(),
            action.PUTOFF: PutOff(),
        }

    return Patched


def state_class() -> type:
    """The executor's ``EnvironmentState``, applying in-place "delete to any node" quickly."""
    return _state_class()


@cache
def _state_class() -> type:
    env = evolving_graph().environment
    incoming: weakref.WeakKeyDictionary[Any, dict[Any, set[int]]] = weakref.WeakKeyDictionary()

    def sources(graph: Any) -> dict[Any, set[int]]:
        """(to id, relation) -> ids with that edge to it, in the scene file."""
        found = incoming.get(graph)
        if found is None:
            found = {}
            for (a, relation), targets in graph._edge_map.items():
                for b in targets:
                    found.setdefault((b, relation), set()).add(a)
            incoming[graph] = found
        return found

    class FastState(env.EnvironmentState):  # type: ignore[name-defined]
        def change_state(self, changers, node=None, obj=None, in_place=False):
            if not in_place:
                return super().change_state(changers, node, obj, in_place)
            new = FastState(self._graph, self._name_equivalence, self.instance_selection)
            new._new_nodes, new._removed_edges_from = self._new_nodes, self._removed_edges_from
            new._new_edges_from, new._script_objects = self._new_edges_from, self._script_objects
            new.executor_data = self.executor_data
            if obj is not None and node is not None:
                new._script_objects[(obj.name, obj.instance)] = node.id
            for changer in changers:
                if isinstance(changer, env.DeleteEdges) and type(changer.to_node) is env.AnyNode:
                    new._delete_to_any(changer)
                else:
                    changer.apply_changes(new)
            return new

        def _delete_to_any(self, changer: Any) -> None:
            """``DeleteEdges(x, relations, AnyNode())`` visiting only x's neighbours."""
            graph, added = self._graph, self._new_edges_from
            into = sources(graph)
            for a in changer.from_node.enumerate(self):
                for relation in changer.relations:
                    targets = {
                        *graph._get_node_maps_from(a.id, relation),
                        *added.get((a.id, relation), ()),
                    }
                    for b in targets:
                        self.delete_edge(a, relation, env.Node(b))
                    if changer.delete_reverse:
                        back = set(into.get((a.id, relation), ()))
                        back.update(
                            f for (f, r), ids in added.items() if r == relation and a.id in ids
                        )
                        for b in back:
                            self.delete_edge(env.Node(b), relation, a)

    return FastState
