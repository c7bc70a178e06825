"""Fixtures of the UI's browser tests: one emulator with storage.rules (its UI on a free port),
headless Chromium from Debian driven by Selenium through the system chromedriver, screenshots
under build/ui-screenshots/, and no console error allowed in any test."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait
from ui_support import RULES

PYTHON_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = PYTHON_ROOT.parents[1] / "build" / "ui-screenshots"


class UiEmulator:
    def __init__(self, rules: Path):
        self._stderr = tempfile.TemporaryFile(mode="w+")  # a file: a pipe nobody reads could fill up
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fbstorage.emulator", "--host", "127.0.0.1", "--port", "0", "--rules", str(rules)],
            stdout=subprocess.PIPE, stderr=self._stderr, text=True,
            env={**os.environ, "PYTHONPATH": str(PYTHON_ROOT)})
        lines = [self.process.stdout.readline() for _ in range(3)]  # READY, READY-AUTH, READY-UI
        addresses = dict(line.split() for line in lines if line.startswith("READY"))
        if not lines[0].startswith("READY ") or "READY-UI" not in addresses:
            self.process.kill()
            raise RuntimeError(f"emulator did not start: {lines!r} {self.stderr()}")
        self.base, self.ui = addresses["READY"], addresses["READY-UI"] + "/ui/"
        self.port = int(self.base.rsplit(":", 1)[1])
        self.rules = rules

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()

    def stop(self) -> str:
        self.process.terminate()
        self.process.wait(timeout=10)
        return self.stderr()


@pytest.fixture(scope="session")
def emulator() -> Iterator[UiEmulator]:
    with tempfile.TemporaryDirectory() as directory:
        rules = Path(directory) / "storage.rules"
        rules.write_text(RULES)
        running = UiEmulator(rules)
        yield running
        assert "Traceback" not in running.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,860",
                     "--disable-gpu", "--no-first-run", "--disable-extensions", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--metrics-recording-only"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


@pytest.fixture(autouse=True)
def no_console_errors(request):
    """Every test that used the browser leaves its console free of errors."""
    yield
    if "browser" in request.fixturenames:
        driver = request.getfixturevalue("browser")
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == []


def screenshot(driver: webdriver.Chrome, name: str) -> Path:
    """Saved under build/ui-screenshots/, after checking that nothing is wider than the window."""
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name}: the page is {overflow} px wider than the window"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def wait(driver: webdriver.Chrome, condition, timeout: float = 10):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition)
