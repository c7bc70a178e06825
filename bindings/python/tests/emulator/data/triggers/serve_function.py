"""Serves recorder.py's `record` with functions-framework on 127.0.0.1, a free port (printed)."""

import logging
import sys
from pathlib import Path

import werkzeug.serving
from functions_framework import create_app

logging.getLogger("werkzeug").setLevel(logging.ERROR)
app = create_app(target="record", source=str(Path(__file__).with_name("recorder.py")), signature_type="cloudevent")
server = werkzeug.serving.make_server("127.0.0.1", 0, app, threaded=True)
print(server.server_port, flush=True)
sys.stdout.close()
server.serve_forever()
