"""Language models for safetychip: one chat interface, real clients, caches and stand-ins.

::

    ChatModel                  complete(messages, *, temperature, stop, max_tokens) -> Completion
    ├── OpenAIChatModel        any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp),
    │                          structured output (a JSON schema for the reply) where supported;
    │                          local_model(): SmolLM2-135M-Instruct behind `make model-server`
    ├── CachedModel            record/replay wrapper around any ChatModel, in an SQLite file
    └── StandInModel           offline, deterministic, every completion labelled stand_in=True
        └── ScriptedModel      replies from a list, for tests

    Embedder                   encode(texts) -> unit-norm float32 array (n, d)
    ├── MiniLMEmbedder         all-MiniLM-L6-v2 on this machine, never downloaded
    └── OpenAIEmbedder         an OpenAI-compatible /embeddings endpoint

The prompts (the translator's, the explanations' and the agents') are text files under
``data/prompts/``, read by :func:`load_prompt`.

Errors are in :mod:`safetychip.errors`, under :class:`~safetychip.errors.LLMError`.

Examples
--------
>>> from safetychip.llm import StandInModel
>>> llm = StandInModel(lambda messages: "[walk] <kitchen> (11)")
>>> reply = llm.complete([{"role": "system", "content": "You are a robot."},
...                       {"role": "user", "content": "Go to the kitchen."}])
>>> reply.text, reply.stand_in, llm.usage.calls
('[walk] <kitchen> (11)', True, 1)
"""

from safetychip._public import publish
from safetychip.llm._base import (
    ChatModel,
    ChatRequest,
    Completion,
    Message,
    MessageLike,
    Usage,
    UsageCounter,
)
from safetychip.llm._cache import CachedModel, CacheMode
from safetychip.llm._embeddings import Embedder, MiniLMEmbedder, OpenAIEmbedder
from safetychip.llm._openai import (
    LOCAL_MODEL,
    STRUCTURED,
    OpenAIChatModel,
    OpenAIEndpoint,
    local_model,
)
from safetychip.llm._prompts import PROMPT_DIR, PROMPTS, fill, load_prompt
from safetychip.llm._standin import ScriptedModel, StandInModel

__all__ = [
    "ChatModel",
    "ChatRequest",
    "Completion",
    "Message",
    "MessageLike",
    "Usage",
    "UsageCounter",
    "OpenAIEndpoint",
    "OpenAIChatModel",
    "LOCAL_MODEL",
    "STRUCTURED",
    "local_model",
    "CacheMode",
    "CachedModel",
    "StandInModel",
    "ScriptedModel",
    "Embedder",
    "MiniLMEmbedder",
    "OpenAIEmbedder",
    "PROMPT_DIR",
    "PROMPTS",
    "fill",
    "load_prompt",
]

publish(__name__, globals(), __all__)
