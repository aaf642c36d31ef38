"""Every form of every credential a run holds is redacted, in messages and logs: a key echoed
in part, the base64 Basic credential of a ``user:pass@`` URL, what the HTTP library logs,
and a malformed PostgreSQL URL (issue 45, class 5). Servers run on 127.0.0.1 only."""

from __future__ import annotations

import base64
import json
import logging
import traceback
from pathlib import Path

import pytest
from _llm_servers import completion_body, send

from safetychip._redact import redact, secret_forms
from safetychip.cli import main
from safetychip.errors import LLMStatusError
from safetychip.llm import OpenAIChatModel, OpenAIEndpoint

pytest.importorskip("openai")

KEY = "corp-gateway-token-4242-abcdef"
PASSWORD = "pa55-w0rd-hidden"
BASIC = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()


def _shown(error: BaseException) -> str:
    return "\n".join([str(error), repr(error), *traceback.format_exception(error)])


@pytest.mark.parametrize(
    "echo",
    [lambda h: h["authorization"].split()[-1][5:],  # the key without its first characters
     lambda h: h["authorization"].split()[-1][:-4],  # without its last ones
     lambda h: "…" + h["authorization"].split()[-1][3:20] + "…"],
    ids=["no-head", "no-tail", "middle"],
)  # fmt: skip
def test_a_key_echoed_in_part_never_reaches_the_error(serve, echo):
    def answer(server, connection, request):
        body = {"error": {"message": f"bad key {echo(request.headers)}"}}
        send(connection, json.dumps(body).encode(), "401 Unauthorized")

    server = serve(answer)
    llm = OpenAIChatModel("m", OpenAIEndpoint(server.url, api_key=KEY, max_retries=1))
    with pytest.raises(LLMStatusError) as caught:
        llm.complete("hi")
    shown = _shown(caught.value)
    assert "bad key" in shown
    assert not any(KEY[i : i + 8] in shown for i in range(len(KEY) - 7))


@pytest.mark.parametrize("cut", [0, 4, 9], ids=["whole", "cut-4", "cut-9"])
def test_the_basic_credential_of_a_url_is_never_shown(serve, cut):
    def answer(server, connection, request):
        value = request.headers.get("authorization", "")
        body = {"error": {"message": f"seen {value.split()[-1][cut:]} {BASIC[cut:]}"}}
        send(connection, json.dumps(body).encode(), "403 Forbidden")

    server = serve(answer)
    url = server.url.replace("http://", f"http://alice:{PASSWORD}@")
    llm = OpenAIChatModel("m", OpenAIEndpoint(url, api_key=KEY, max_retries=1))
    with pytest.raises(LLMStatusError) as caught:
        llm.complete("hi")
    shown = _shown(caught.value)
    assert "seen" in shown
    assert PASSWORD not in shown and BASIC[cut:].rstrip("=")[:12] not in shown


def test_the_http_library_logs_no_password(serve, caplog):
    server = serve(lambda server, connection, request: send(connection, completion_body()))
    url = server.url.replace("http://", f"http://alice:{PASSWORD}@")
    llm = OpenAIChatModel("m", OpenAIEndpoint(url, api_key=KEY))
    with caplog.at_level(logging.DEBUG):
        llm.complete("hi")
    assert "HTTP Request" in caplog.text  # httpx logged the request
    assert PASSWORD not in caplog.text and KEY not in caplog.text


def test_every_form_of_a_secret_is_redacted():
    forms = secret_forms("key/with+signs==", "bob", "p%40ss-word-long")
    text = ("key%2Fwith%2Bsigns%3D%3D p@ss-word-long p%40ss-word-long "
            + base64.b64encode(b"bob:p@ss-word-long").decode())  # fmt: skip
    assert redact(text, forms) == "*** *** *** ***"


@pytest.mark.parametrize(
    "url",
    ["postgresql://alice:s3cret%zz-pass@host/db",
     "postgresql://alice:s3cret-pass-99@[bad/db",
     "postgresql://alice:s3cret-pass-99@host/db?sslmode=nope&x",
     "postgresql://alice:pw%zz@host/db"],
)  # fmt: skip
def test_a_malformed_postgresql_url_is_never_quoted_with_its_password(url, capsys):
    pytest.importorskip("psycopg")
    password = url.partition("alice:")[2].rpartition("@")[0]
    assert main(["memory", "check", "push the vase", "--db", url]) == 2
    err = capsys.readouterr().err
    assert "is not a PostgreSQL URL" in err and password not in err


def test_no_form_of_a_secret_reaches_the_files_of_an_experiment(serve, tmp_path, monkeypatch,
                                                                 capsys):  # fmt: skip
    def answer(server, connection, request):
        echoed = request.headers["authorization"].split()[-1][5:]
        body = {"error": {"message": f"bad key {echoed}, credential {BASIC[3:]}"}}
        send(connection, json.dumps(body).encode(), "401 Unauthorized")

    server = serve(answer)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv(
        "OPENAI_BASE_URL", server.url.replace("http://", f"http://alice:{PASSWORD}@")
    )
    tasks = tmp_path / "tasks.jsonl"
    suite = Path(__file__).resolve().parent.parent / "data/virtualhome/tasks/four_room.jsonl"
    tasks.write_text(suite.read_text().splitlines()[0] + "\n")
    results, out = tmp_path / "r.jsonl", tmp_path / "out"
    assert main(["experiment", "--model", "m", "--tasks", str(tasks), "--agents", "base",
                 "--constraints", "1", "--results", str(results), "--out", str(out)]) == 0  # fmt: skip
    shown = "".join(capsys.readouterr())
    shown += "".join(p.read_text() for p in [results, *out.glob("*.csv"), *out.glob("*.md")])
    assert "bad key" in shown  # the server's answer is recorded, redacted
    assert not any(KEY[i : i + 8] in shown for i in range(len(KEY) - 7))
    assert PASSWORD not in shown and BASIC[3:15] not in shown
