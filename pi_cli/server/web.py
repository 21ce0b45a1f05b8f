"""The web client's routes: ``/`` (the page), ``/static/<file>`` (its script, style, icon).

Shipped as plain files in ``pi_cli/server/web/`` (no build step, nothing from another origin).
Every response carries a strict Content-Security-Policy: scripts, styles, images and
connections from this origin only, no inline script or style, no framing. ``/?token=...`` (the
address ``pi serve --url`` prints) sets the token as an HttpOnly, SameSite=Strict cookie and
redirects to ``/``, so the token leaves the address bar and the history.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from pi_cli.server.auth import COOKIE

WEB = Path(__file__).parent / "web"
FILES = {
    "app.js": "text/javascript; charset=utf-8",
    "markdown.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "icon.svg": "image/svg+xml",
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}


async def index(request: Request) -> Response:
    """The page; with ``?token=`` the cookie is set and the token dropped from the address."""
    if "token" in request.query_params:
        response: Response = RedirectResponse("/", status_code=303, headers=HEADERS)
        response.set_cookie(
            COOKIE,
            request.state.token,
            httponly=True,
            samesite="strict",
            path="/",
            secure=request.url.scheme == "https",
        )
        return response
    body = (WEB / "index.html").read_bytes()
    return Response(body, media_type="text/html; charset=utf-8", headers=HEADERS)


async def static(request: Request) -> Response:
    """One of :data:`FILES` (anything else is 404: a name is never a path)."""
    name = request.path_params["name"]
    kind = FILES.get(name)
    if kind is None:
        return Response("not found\n", status_code=404, media_type="text/plain", headers=HEADERS)
    return Response((WEB / name).read_bytes(), media_type=kind, headers=HEADERS)


def web_routes() -> list[Route]:
    """The routes, for the application."""
    return [
        Route("/", index, methods=["GET"]),
        Route("/static/{name}", static, methods=["GET"]),
    ]
