"""The HTTP/1.1 protocol the service runs: uvicorn's (h11), whose answer to a request it cannot
parse is JSON like every other error of the service.

uvicorn answers such a request (two ``Host`` headers, a malformed request line or header) itself,
before the application sees it, with a plain-text 400; the contract wants every error as JSON
with an ``error`` field. This protocol answers the same 400 with that body.
"""

from __future__ import annotations

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: The sentence of the 400 a request the HTTP parser refuses gets.
NOT_HTTP = "The request is not valid HTTP/1.1 (a malformed line, or a header given twice)."


class JsonErrorsH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a JSON body on the 400 of a request it cannot parse."""

    def send_400_response(self, msg: str) -> None:  # msg: uvicorn's plain-text sentence
        body = json.dumps({"error": NOT_HTTP}).encode("utf-8")
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"connection", b"close"),
        ]
        try:
            head = h11.Response(status_code=400, headers=headers, reason=b"Bad Request")
            for event in (head, h11.Data(data=body), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event) or b"")
        except h11.LocalProtocolError:
            pass  # a response had begun already (a bad body after it): only the close is left
        self.transport.close()
