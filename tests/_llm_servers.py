"""A scriptable HTTP/1.1 server on 127.0.0.1 for tests of the OpenAI client's failure modes.

Unlike ``http.server``, an answer writes raw bytes with any timing, so a test can drip a
reply byte by byte, send a gzip bomb, lie about its length or echo the request's headers.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Request:
    method: str
    path: str
    head: str  # the request line and headers, verbatim
    headers: dict[str, str]  # names in lower case
    body: bytes


class RawServer:
    """Answers each connection's first request with ``answer(server, connection, request)``.

    ``stopping`` is set when the test ends; long answers (drips) must watch it.
    """

    def __init__(self, answer: Callable[[RawServer, socket.socket, Request], None]) -> None:
        self.answer = answer
        self.requests: list[Request] = []
        self.stopping = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.05)
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)
        self.listener.close()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(5)
            try:
                request = _read_request(connection)
                self.requests.append(request)
                self.answer(self, connection, request)
            except OSError:  # the client hung up: what a limit is for
                pass


def _read_request(connection: socket.socket) -> Request:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            raise ConnectionError("the client closed before sending a request")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    while len(body) < int(headers.get("content-length", "0")):
        body += connection.recv(65536)
    method, path, _ = lines[0].split(" ", 2)
    return Request(method, path, head.decode("latin-1"), headers, body)


def head(status: str = "200 OK", **headers: str | int) -> bytes:
    """The status line and headers of an answer (``Content_Type`` for ``Content-Type``)."""
    lines = [f"HTTP/1.1 {status}"] + [
        f"{name.replace('_', '-')}: {value}" for name, value in headers.items()
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def send(
    connection: socket.socket, body: bytes, status: str = "200 OK", **headers: str | int
) -> None:
    """Send a whole answer with a correct Content-Length, and close the connection."""
    headers = {
        "Content_Type": "application/json",
        "Content_Length": len(body),
        "Connection": "close",
        **headers,
    }
    connection.sendall(head(status, **headers) + body)


def completion_body(text: str = "walk to bathroom", **fields: object) -> bytes:
    """A well-formed chat completion, with *fields* added or replaced at the top level."""
    data = {
        "id": "chatcmpl-raw",
        "object": "chat.completion",
        "model": "raw-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 3},
        **fields,
    }
    return json.dumps(data).encode()
