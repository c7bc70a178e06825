"""A hostile page in a real browser: served by another program of this machine (another port),
it tries what issue 38 found possible (simple requests that export, reset or replace the rules,
preflighted ones, reading the request log, the owner's credential, the GCS API) and can do none of
it; it can act only as the Firebase user whose ID token it holds, under the rules, as in
production (docs/security.md, "Cross-site requests")."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest
import requests
from fbstorage.testing import mint_id_token

ADMIN = {"Authorization": "Bearer owner"}
PAGE = b"<!doctype html><title>a page of another origin</title><p>hostile</p>"
# Each attempt: what the page does, and how it ends: "opaque" (a no-cors request: the page cannot
# read the answer, only its effects show), "blocked" (fetch fails: no CORS answer) or the status.
ATTACKS = r"""
const [emulator, exportDir, userToken, done] = arguments;
const attempt = async (name, url, init) => {
  try {
    const response = await fetch(emulator + url, init);
    return [name, response.type === 'opaque' ? 'opaque' : response.status];
  } catch (error) {
    return [name, 'blocked'];
  }
};
const text = {'Content-Type': 'text/plain'};
const owner = {Authorization: 'Bearer owner'};
const user = {Authorization: 'Firebase ' + userToken};
Promise.all([
  attempt('export', '/internal/export', {method: 'POST', mode: 'no-cors', headers: text, body: JSON.stringify({path: exportDir})}),
  attempt('reset', '/internal/reset', {method: 'POST', mode: 'no-cors', headers: text}),
  attempt('control reset', '/_emulator/reset', {method: 'POST', mode: 'no-cors'}),
  attempt('allow-all rules', '/_emulator/rules', {method: 'PUT', body: ''}),
  attempt('request log', '/_emulator/requests', {}),
  attempt('ui log', '/ui/api/requests', {}),
  attempt('owner lists', '/v0/b/b/o?prefix=uploads%2F', {headers: owner}),
  attempt('owner deletes', '/v0/b/b/o/uploads%2Fbob%2Fsecret', {method: 'DELETE', headers: owner}),
  attempt('gcs lists', '/storage/v1/b/b/o', {}),
  attempt('user writes own', '/v0/b/b/o?name=uploads%2Falice%2Ffrom-page', {method: 'POST', headers: user, body: 'hi'}),
  attempt('user writes other', '/v0/b/b/o?name=uploads%2Fbob%2Ffrom-page', {method: 'POST', headers: user, body: 'hi'}),
  attempt('user reads', '/v0/b/b/o/uploads%2Fbob%2Fsecret?alt=media', {headers: user}),
  attempt('anonymous reads', '/v0/b/b/o/uploads%2Fbob%2Fsecret?alt=media', {}),
]).then((results) => done(Object.fromEntries(results)));
"""


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def hostile_origin() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def test_a_hostile_page_acts_only_as_its_user(browser, emulator, hostile_origin, tmp_path: Path):
    secret = requests.post(f"{emulator.base}/v0/b/b/o", params={"name": "uploads/bob/secret"}, data=b"bob's",
                           headers=ADMIN)
    assert secret.status_code == 200, secret.text
    export_dir = tmp_path / "exported"
    browser.get(hostile_origin + "/")
    browser.set_script_timeout(20)
    try:
        results = browser.execute_async_script(ATTACKS, emulator.base, str(export_dir), mint_id_token(emulator.base, "alice"))
    finally:
        # The browser reports each refused request in its console: the page's doing, not the UI's.
        console = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert results == {
        "export": "opaque", "reset": "opaque", "control reset": "opaque", "allow-all rules": "blocked",
        "request log": "blocked", "ui log": "blocked", "owner lists": "blocked", "owner deletes": "blocked",
        "gcs lists": "blocked", "user writes own": 200, "user writes other": 403, "user reads": 200,
        "anonymous reads": 403}, json.dumps(results)
    assert all(("blocked by CORS policy" in line or "status of 403" in line or "net::ERR_FAILED" in line)
               for line in console), "\n".join(console)
    # Nothing the page sent acted: no export, every object and the rules are as they were.
    assert not export_dir.exists()
    assert requests.get(f"{emulator.base}/v0/b/b/o/uploads%2Fbob%2Fsecret", params={"alt": "media"},
                        headers=ADMIN).content == b"bob's"
    assert requests.get(f"{emulator.base}/v0/b/b/o/uploads%2Fbob%2Ffrom-page", headers=ADMIN).status_code == 404
    anonymous = requests.post(f"{emulator.base}/v0/b/b/o", params={"name": "uploads/mallory/x"}, data=b"x")
    assert anonymous.status_code == 403  # not the allow-all rules an empty body would have set
    for name in ("uploads/bob/secret", "uploads/alice/from-page"):
        requests.delete(f"{emulator.base}/v0/b/b/o/{name.replace('/', '%2F')}", headers=ADMIN)


# Were it to run, this object's script would reset the emulator from its own origin (a synchronous
# request: done before the page's load event) and say so in the title.
HOSTILE_OBJECT = b"""<!doctype html><title>object</title><script>
const request = new XMLHttpRequest();
request.open('POST', '/_emulator/reset', false);
request.send();
document.title = 'ran: ' + request.status;
</script>"""


def test_a_hostile_html_object_opened_from_the_emulator_runs_nothing(browser, emulator):
    """Served with its stored type by the port that also serves the UI and the control routes, it
    is sandboxed (Content-Security-Policy: sandbox): no script runs, and its requests would carry
    `Origin: null`, which the cross-site policy refuses."""
    for name, data in (("uploads/bob/secret", b"bob's"), ("uploads/bob/page.html", HOSTILE_OBJECT)):
        stored = requests.post(f"{emulator.base}/v0/b/b/o", params={"name": name}, data=data,
                               headers={**ADMIN, "Content-Type": "text/html" if name.endswith(".html") else "text/plain"})
        assert stored.status_code == 200, stored.text
    token = requests.get(f"{emulator.base}/v0/b/b/o/uploads%2Fbob%2Fpage.html", headers=ADMIN).json()["downloadTokens"]
    browser.get(f"{emulator.base}/v0/b/b/o/uploads%2Fbob%2Fpage.html?alt=media&token={token}")
    console = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert browser.title == "object"
    assert console and all("sandboxed" in line and "allow-scripts" in line for line in console), console
    assert requests.get(f"{emulator.base}/v0/b/b/o/uploads%2Fbob%2Fsecret", params={"alt": "media"},
                        headers=ADMIN).content == b"bob's"  # not reset
    for name in ("uploads/bob/secret", "uploads/bob/page.html"):
        requests.delete(f"{emulator.base}/v0/b/b/o/{name.replace('/', '%2F')}", headers=ADMIN)
