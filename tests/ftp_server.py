"""A real FTP server on 127.0.0.1 for tests (pyftpdlib, in a thread): a remote file system
fsspec reaches over the network, with no disk shared with the build's working copy."""

from __future__ import annotations

import contextlib
import logging
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def ftp_server(root: Path, seconds: float = 600.0) -> Iterator[str]:
    """Serve ``root`` read-write to anonymous users on a free port of 127.0.0.1; yields its
    ``ftp://`` URL. Stopped on exit, or after ``seconds`` whatever the test does."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # asyncore, on Python 3.11
        from pyftpdlib.authorizers import DummyAuthorizer
        from pyftpdlib.handlers import FTPHandler
        from pyftpdlib.servers import ThreadedFTPServer

    log = logging.getLogger("pyftpdlib")
    if not log.handlers:
        log.addHandler(logging.NullHandler())  # else pyftpdlib sets up console logging
    authorizer = DummyAuthorizer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # write access for anonymous: a test
        authorizer.add_anonymous(str(root), perm="elradfmwMT")
    handler = type("Handler", (FTPHandler,), {"authorizer": authorizer})
    server = ThreadedFTPServer(("127.0.0.1", 0), handler)
    host, port = server.address[:2]
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"timeout": 0.2, "blocking": True}, daemon=True
    )
    thread.start()
    timer = threading.Timer(seconds, server.close_all)
    timer.start()
    try:
        yield f"ftp://{host}:{port}"
    finally:
        timer.cancel()
        server.close_all()
        thread.join(10)
