"""`selfish web` in a real browser: headless Chromium (Debian's chromium and chromium-driver,
installed by .ci/run) driven by selenium opens the page, waits for the lobby, creates a game with
bots by keystrokes and saves a screenshot of the table.

The page draws the terminal on a canvas, so the test reads the screen the way the page does: a
hook installed before the page's own scripts copies what the websocket delivers into a string,
which a terminal emulator (pyte) turns into lines of text.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pyte
import pytest

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from tests.gateway.conftest import NEW_ROOM_DIALOG  # noqa: E402

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER), reason="needs chromium and chromium-driver (.ci/run)"
)
SCREENSHOTS = Path(os.environ.get("SELFISH_SCREENSHOTS", tempfile.gettempdir()))

# Runs in the page before its scripts: keep every byte the terminal receives, and its size.
HOOK = """
window.__screen = ""; window.__size = null;
const Native = window.WebSocket;
const decoder = new TextDecoder();
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (e) => {
      if (e.data instanceof ArrayBuffer) {
        window.__screen += decoder.decode(e.data, {stream: true});
      }
    });
  }
  send(data) {
    try {
      const m = JSON.parse(data);
      if (m[0] === "resize") window.__size = m[1];
    } catch (err) {}
    super.send(data);
  }
};
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def web(tmp_path: Path) -> Iterator[str]:
    """`selfish web` with its embedded server, on a free loopback port; yields the page URL."""
    port = free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "SELFISH_NAME": "webtest"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "selfish_tui.cli",
            "web",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as reply:
                    assert reply.status == 200
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tempfile.mkdtemp(dir=tmp_path)}",
        "--window-size=1280,900",
        # The page links a web font: resolve nothing but loopback, so the test stays local.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
        yield driver
    finally:
        driver.quit()


class PageScreen:
    """The page's terminal as text."""

    def __init__(self, driver: webdriver.Chrome) -> None:
        self.driver = driver
        self.screen: pyte.Screen | None = None
        self.stream: pyte.Stream | None = None
        self.offset = 0

    def read(self) -> str:
        size = self.driver.execute_script("return window.__size")
        if self.screen is None:
            if not size:
                return ""
            self.screen = pyte.Screen(int(size["width"]), int(size["height"]))
            self.stream = pyte.Stream(self.screen)
        assert self.stream is not None
        received: str = self.driver.execute_script("return window.__screen")
        self.stream.feed(received[self.offset :])
        self.offset = len(received)
        return "\n".join(self.screen.display)

    def wait_for(self, *needles: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.read()
            if all(n in text for n in needles):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"{needles!r} not on the page:\n{text}")
            time.sleep(0.1)


class PageKeyboard:
    """Keys typed into the page's terminal, as a person types them.

    xterm.js reads keys from a hidden textarea; chromedriver refuses to type into a hidden
    element (Chromium 150 does), so the textarea is given the focus, without a click that the
    app would see as a mouse event, and the keys go to whatever has the focus.
    """

    def __init__(self, driver: webdriver.Chrome) -> None:
        self.driver = driver
        textarea = driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")
        driver.execute_script("arguments[0].focus()", textarea)

    def send_keys(self, keys: str) -> None:
        ActionChains(self.driver).send_keys(keys).perform()

    def create_room(self) -> None:
        """In the new-room dialog: shift+tab from its first field wraps to Create, whatever
        the rows between (as the SSH tests do it)."""
        chain = ActionChains(self.driver).key_down(Keys.SHIFT).send_keys(Keys.TAB)
        chain.key_up(Keys.SHIFT).send_keys(Keys.ENTER).perform()


def test_browser_plays_against_bots(web: str, browser: webdriver.Chrome) -> None:
    browser.get(web)
    page = PageScreen(browser)
    page.wait_for("Selfish — lobby", "Connected to", "Guest")
    keyboard = PageKeyboard(browser)
    keyboard.send_keys("n")
    page.wait_for(NEW_ROOM_DIALOG)
    keyboard.create_room()
    page.wait_for("You are the host")
    keyboard.send_keys("a")
    page.wait_for("press s to start")
    keyboard.send_keys("s")
    text = page.wait_for("Strips", "Hand", "Log", "Bot 1")
    assert "Guest" in text
    time.sleep(0.5)  # let the page paint the last frame
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / "selfish-web-table.png"
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_reload_keeps_the_seat_and_join_opens_the_room(
    web: str, browser: webdriver.Chrome
) -> None:
    browser.get(web)
    page = PageScreen(browser)
    page.wait_for("Selfish — lobby", "Connected to", "Guest")
    keyboard = PageKeyboard(browser)
    keyboard.send_keys("n")
    page.wait_for(NEW_ROOM_DIALOG)
    keyboard.create_room()
    text = page.wait_for("You are the host")
    found = re.search(r"Room ([A-Z]{4})", text)
    assert found, text
    code = found.group(1)
    host = re.search(r"(Guest \d{3})", text)
    assert host, text

    # A reload is the same player: back in the room it hosts, under the same name.
    browser.refresh()
    again = PageScreen(browser)
    text = again.wait_for(f"Room {code}", "You are the host")
    assert host.group(1) in text

    # Another browser (no cookie) opening ?join=CODE takes a seat in that room.
    browser.delete_all_cookies()
    browser.get(f"{web}?join={code}")
    joined = PageScreen(browser)
    text = joined.wait_for(f"Room {code}", "The host starts the game")
    seated = re.findall(r"\d\. (Guest \d{3})", text)
    assert len(seated) == 2 and host.group(1) in seated, text
