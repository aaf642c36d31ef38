"""Credentials never shown: :func:`redact` replaces every form of every secret a run holds
by ``***``, in messages, files and logs.

A secret is hidden in every form it can take on the wire: verbatim, percent-encoded or
decoded, and (for a ``user:password@`` URL) the base64 credential of HTTP Basic
authentication; and in part: any run of at least :data:`MIN_SECRET_LENGTH` characters of
one of those forms (a server that echoes a key without its first characters). Patterns
catch credentials of any shape besides (``Authorization`` headers, ``api_key=``, URL user
information, ``sk-…`` keys). :func:`guard_logs` applies the same to what the HTTP libraries
log.

Examples
--------
>>> forms = secret_forms("sk-proj-abcdef0123456789", "alice", "pa55-w0rd-hidden")
>>> print(redact("echoed ...bcdef0123456789 and YWxpY2U6cGE1NS13MHJkLWhpZGRlbg==", forms))
echoed ...*** and ***
"""

from __future__ import annotations

import base64
import logging
import re
from collections.abc import Iterable
from urllib.parse import quote as percent_encode
from urllib.parse import unquote

__all__ = ["MIN_SECRET_LENGTH", "guard_logs", "quote", "redact", "secret_forms"]

#: A secret (API key, URL password) is hidden when it is at least this long, and so is any
#: run of this many of its characters; shorter ones are still caught by the patterns of
#: :func:`redact`.
MIN_SECRET_LENGTH = 8

_HIDDEN = "***"
_SEPARATOR = r"""\\?["']?\s*[:=]\s*\\?["']?"""
_PATTERNS = (
    # user:password@ in a URL
    (re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#\s@]+@"), rf"\1{_HIDDEN}@"),
    # a header, JSON key or query parameter that holds a credential, and its value
    (
        re.compile(
            r"(?i)\b((?:proxy-)?authorization|x-api-key|api[-_]?key|access[-_]token|cookie"
            rf"|password|secret)({_SEPARATOR})((?:bearer|basic)\s+)?[^\s\\\"',;&}}]+"
        ),
        rf"\1\2\3{_HIDDEN}",
    ),
    # a Bearer or Basic credential anywhere else
    (re.compile(r"(?i)\b(bearer|basic)\s+[^\s\\\"',;&}]+"), rf"\1 {_HIDDEN}"),
    # an OpenAI-style key
    (re.compile(r"\bsk-[A-Za-z0-9_-]{6,}"), _HIDDEN),
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Replace credentials in *text* by ``***``.

    Hidden are: user information in URLs; the values of ``Authorization``, ``X-Api-Key``,
    ``api_key``, ``Cookie``, ``password`` and similar headers, JSON keys or query
    parameters; Bearer and Basic credentials; OpenAI-style ``sk-…`` keys; and every run of
    at least :data:`MIN_SECRET_LENGTH` characters of each of *secrets* (give them with
    :func:`secret_forms` to hide their encoded forms too).

    Examples
    --------
    >>> print(redact("GET https://bob:hunter2@proxy.local/v1 Authorization: Bearer tok3n"))
    GET https://***@proxy.local/v1 Authorization: Bearer ***
    >>> print(redact('{"x-api-key": "abc", "note": "key sk-live-0123456789"}'))
    {"x-api-key": "***", "note": "key ***"}
    >>> print(redact("echo: my-private-token", secrets=["my-private-token"]))
    echo: ***
    >>> print(redact("echo: ...ivate-token", secrets=["my-private-token"]))
    echo: ...***
    """
    text = _hide_runs(text, [s for s in secrets if len(s) >= MIN_SECRET_LENGTH])
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def quote(text: str, limit: int = 200, *, secrets: Iterable[str] = ()) -> str:
    """Quote the first *limit* characters of a reply, redacted, for an error message.

    Credentials are removed (see :func:`redact`) before the text is shortened, so that no
    part of a secret survives the cut.

    Examples
    --------
    >>> print(quote("<html>" + "x" * 300, limit=10))
    '<html>xxxx'…
    >>> print(quote("Authorization: Bearer sk-0123456789abcdef"))
    'Authorization: Bearer ***'
    """
    shown = redact(text, secrets)
    return repr(shown[:limit]) + ("…" if len(shown) > limit else "")


def _hide_runs(text: str, secrets: list[str]) -> str:
    """*text* with every run of :data:`MIN_SECRET_LENGTH` or more characters of one of
    *secrets* replaced by ``***``."""
    n, spans = MIN_SECRET_LENGTH, []
    for secret in secrets:
        for window in {secret[i : i + n] for i in range(len(secret) - n + 1)}:
            start = text.find(window)
            while start != -1:
                spans.append((start, start + n))
                start = text.find(window, start + 1)
    if not spans:
        return text
    shown, end = [], 0
    for start, stop in sorted(spans):
        if start > end:
            shown += [text[end:start], _HIDDEN]
        elif not shown:
            shown.append(_HIDDEN)
        end = max(end, stop)
    return "".join(shown) + text[end:]


def secret_forms(key: str | None = None, user: str | None = None,
                 password: str | None = None) -> tuple[str, ...]:  # fmt: skip
    """The forms *key* and the URL credential *user*:*password* take on the wire, for
    :func:`redact`: each verbatim, percent-decoded and percent-encoded, and the base64
    credential of HTTP Basic authentication (with and without its padding).

    Examples
    --------
    >>> secret_forms(None, "bob", "hunter2%21")
    ('hunter2%21', 'hunter2!', 'hunter2%2521', 'Ym9iOmh1bnRlcjIh')
    """
    forms: list[str] = []
    for secret in (key, password):
        if secret:
            forms += [secret, unquote(secret), percent_encode(secret, safe="")]
    if password:
        pair = f"{unquote(user or '')}:{unquote(password)}".encode()
        basic = base64.b64encode(pair).decode("ascii")
        forms += [basic, basic.rstrip("=")]
    return tuple(dict.fromkeys(forms))


class _LogRedactor(logging.Filter):
    """Redacts the secrets of every guarded run from log records."""

    secrets: tuple[str, ...] = ()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        shown = redact(message, self.secrets)
        if shown != message:
            record.msg, record.args = shown, ()
        return True


_REDACTOR = _LogRedactor()
#: The HTTP stack's loggers, by the start of their names (``httpx2`` is httpx's too).
_LOGGERS = ("httpx", "httpcore", "openai")


def guard_logs(secrets: Iterable[str]) -> None:
    """Redact *secrets* (and credentials of any shape) from what the HTTP libraries log,
    at any level, from now on in this process (call it once they are imported: a filter
    goes on each of their loggers)."""
    _REDACTOR.secrets = tuple(dict.fromkeys((*_REDACTOR.secrets, *secrets)))
    names = [n for n in list(logging.root.manager.loggerDict) if n.startswith(_LOGGERS)]
    for name in {*names, *_LOGGERS}:
        logger = logging.getLogger(name)
        if _REDACTOR not in logger.filters:
            logger.addFilter(_REDACTOR)
