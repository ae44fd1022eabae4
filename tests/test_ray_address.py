"""``--backend ray --address HOST:PORT`` finds out within seconds, without Ray, that nothing or
something other than Ray listens there (agents/arena/tournament/backends.py
``ray_address_problem``).

Servers bound to 127.0.0.1 in the test: one that accepts and says nothing, an HTTP server, one
that answers a line and hangs up, a closed port, an HTTP/2 listener that answers SETTINGS and
then nothing, one trickling bytes, a plain gRPC server (grpcio), all refused within the probe's
one deadline; as the positive control a gRPC server answering Ray's GetClusterId passes. Ray's
own head is checked in tests/test_ray_address_ray.py (in .venv-ray)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from meduris_rl.agents.arena.tournament import backends
from meduris_rl.agents.arena.tournament.backends import PROBE_SECONDS, ray_address_problem
from meduris_rl.cli.main import main


@contextmanager
def serving(handle):
    """A server on 127.0.0.1 whose thread gives each connection to ``handle(conn, stop)``
    (``stop``: an Event set when the block ends); yields its address."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()

    def serve():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            handle(conn, stop)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        listener.close()


@contextmanager
def tcp_server(answer: bytes | None):
    """A server on 127.0.0.1 accepting connections; it sends ``answer`` and hangs up, or with
    None says nothing and keeps the connection open."""
    held = []

    def handle(conn, stop):
        if answer is None:
            held.append(conn)
        else:
            conn.sendall(answer)
            conn.close()

    try:
        with serving(handle) as address:
            yield address
    finally:
        for conn in held:
            conn.close()


@contextmanager
def http_server():
    class Hello(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"hello")

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def closed_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    yield f"127.0.0.1:{port}"


@contextmanager
def grpc_server(ray_like: bool = False):
    """A grpcio server on 127.0.0.1; ``ray_like``: it answers Ray's GetClusterId (raw bytes)."""
    from concurrent.futures import ThreadPoolExecutor

    import grpc
    server = grpc.server(ThreadPoolExecutor(max_workers=1))
    if ray_like:
        service, _, method = backends.RAY_METHOD.strip("/").partition("/")
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
            service, {method: grpc.unary_unary_rpc_method_handler(lambda request, context: b"")})])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None)


SERVERS = {
    "silent": (lambda: tcp_server(None), "accepts connections but does not answer as a Ray"),
    "http": (http_server, "is not a Ray cluster (it answered b'<!DOCTYPE"),
    "line": (lambda: tcp_server(b"220 hello\r\n"), "is not a Ray cluster (it answered b'220"),
    "hangs up": (lambda: tcp_server(b""), "is not a Ray cluster (it closed the connection"),
    "closed": (closed_port, "cannot reach a Ray cluster at 127.0.0.1:"),
}


@pytest.mark.parametrize("kind", SERVERS)
def test_a_port_where_ray_does_not_listen_is_found_out_within_seconds(kind):
    make, needle = SERVERS[kind]
    with make() as address:
        t0 = time.monotonic()
        problem = ray_address_problem(address)
        took = time.monotonic() - t0
    assert problem is not None and needle in problem and "\n" not in problem
    assert address in problem and "ray start --head" in problem
    assert took < PROBE_SECONDS + 2


def test_a_grpc_server_without_rays_service_is_refused_and_one_with_it_passes():
    """A plain gRPC server (any HTTP/2 server) is not Ray: its answer to Ray's GetClusterId is
    UNIMPLEMENTED; one that answers that method (as Ray's GCS does) passes."""
    with grpc_server() as address:
        problem = ray_address_problem(address)
    assert problem is not None and "speaks gRPC but is not a Ray cluster" in problem
    assert "UNIMPLEMENTED" in problem and "\n" not in problem
    with grpc_server(ray_like=True) as address:
        assert ray_address_problem(address) is None


@contextmanager
def trickling_server(answer: bytes, pause: float):
    """A server on 127.0.0.1 that sends ``answer`` one byte per ``pause`` seconds, then holds
    the connection open without a word."""
    def handle(conn, stop):
        with conn:
            for byte in answer:
                if stop.wait(pause):
                    break
                conn.sendall(bytes([byte]))
            stop.wait()

    with serving(handle) as address:
        yield address


SETTINGS = bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])  # an empty HTTP/2 SETTINGS frame


@pytest.mark.parametrize("answer,pause,needle", [
    (SETTINGS, 0.0, "speaks gRPC but is not a Ray cluster (no answer to Ray's GetClusterId"),
    (SETTINGS * 10, 1.0, "is not a Ray cluster (it answered b'\\x00\\x00"),
], ids=["settings then silence", "trickle"])
def test_an_http2_listener_or_a_trickling_server_is_refused_by_one_deadline(answer, pause,
                                                                            needle):
    """A listener that answers the preface with SETTINGS and then nothing (it hung a
    tournament for minutes), and one trickling a byte a second: each refused within the one
    deadline of the probe."""
    with trickling_server(answer, pause) as address:
        t0 = time.monotonic()
        problem = ray_address_problem(address)
        took = time.monotonic() - t0
    assert problem is not None and needle in problem and "\n" not in problem, problem
    assert took < PROBE_SECONDS + 1


@pytest.mark.parametrize("address", ["nonsense", "host:", ":6379", "127.0.0.1:99999",
                                     "127.0.0.1:0", "127.0.0.1:-1", "127.0.0.1:6e3"])
def test_a_malformed_address_is_named(address):
    assert "write host:port of the Ray head node" in ray_address_problem(address)


@pytest.mark.parametrize("kind", ["silent", "http", "closed"])
def test_the_tournament_command_says_it_in_one_line_before_any_game(kind, tmp_path, capsys,
                                                                      monkeypatch):
    """The command's own path (check_ray, before any work), Ray's presence assumed: the probe
    decides without importing ray, which this environment does not have."""
    monkeypatch.setattr(backends, "ray_available", lambda: True)
    with SERVERS[kind][0]() as address:
        t0 = time.monotonic()
        code = main(["tournament", "--agents", "greedy,random", "--games", "2", "--backend",
                     "ray", "--address", address, "--out", str(tmp_path / "r"),
                     "--no-progress"])
        took = time.monotonic() - t0
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("meduris: error: ") and err.count("\n") == 1
    assert SERVERS[kind][1] in err and took < 15
    assert not (tmp_path / "r" / "games.csv").exists()


def test_a_ray_client_address_is_checked_as_http2_not_as_the_gcs():
    """``ray://host:port`` (rllib-train's Ray Client) names Ray Client's server, which has no
    GCS method: a gRPC server there passes on its HTTP/2 answer, where the same server named
    as a GCS (host:port) is refused; a port that is not gRPC is refused either way."""
    with grpc_server() as address:
        assert ray_address_problem(f"ray://{address}", target=address) is None
        assert "speaks gRPC but is not a Ray cluster" in ray_address_problem(address)
    with http_server() as address:
        assert "is not a Ray cluster" in ray_address_problem(f"ray://{address}", target=address)
