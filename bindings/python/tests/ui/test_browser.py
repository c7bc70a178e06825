"""The web UI in a real browser (headless Chromium): browsing a large folder by pages, uploading,
editing custom metadata read back through the client library, deleting, a denial explained in the
request log, and the playground agreeing with the engine."""

from __future__ import annotations

import json
import time
from pathlib import Path
from urllib.parse import quote

import pytest
import requests
from conftest import screenshot, wait
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from fbstorage.testing import mint_id_token
from ui_support import LIMIT, fill

import fbstorage

BUCKET = "b"
ADMIN = {"Authorization": "Bearer owner"}


@pytest.fixture
def alice(emulator):
    """A client library Storage signed in as alice."""
    with fbstorage.Storage(bucket=BUCKET) as storage:
        storage.use_emulator("127.0.0.1", emulator.port)
        storage.set_auth_token(mint_id_token(emulator.base, "alice"))
        yield storage


def open_page(browser, emulator, fragment: str) -> None:
    """A fresh page load (the same URL with only its fragment changed would not reload)."""
    browser.get("about:blank")
    browser.get(f"{emulator.ui}#/{fragment}")


def open_folder(browser, emulator, prefix: str) -> None:
    open_page(browser, emulator, f"storage/{BUCKET}/{quote(prefix, safe='')}")


def rows(browser) -> list:
    return browser.find_elements(By.CSS_SELECTOR, "#objects tbody tr")


def first_cells(browser) -> list[str]:
    """The name column, read in one step (rows are replaced while a folder loads)."""
    return browser.execute_script("return [...document.querySelectorAll('#objects tbody tr')].map(r => r.cells[0].textContent)")


def object_row(browser, name: str):
    found = browser.find_elements(By.CSS_SELECTOR, f'#objects tr[data-name="{name}"]')
    return found[0] if found else None


def admin_upload(emulator, name: str, data: bytes, content_type: str = "text/plain") -> None:
    response = requests.post(f"{emulator.base}/v0/b/{BUCKET}/o", params={"name": name}, data=data,
                             headers={**ADMIN, "Content-Type": content_type})
    assert response.status_code == 200, response.text


def test_a_folder_of_ten_thousand_objects_is_browsed_by_pages(browser, emulator):
    fill(f"{emulator.base}/v0/b/{BUCKET}/o", [f"many/{index:05d}.bin" for index in range(10_000)])
    began = time.perf_counter()
    open_folder(browser, emulator, "many/")
    wait(browser, lambda driver: len(rows(driver)) == 200)
    shown_after = time.perf_counter() - began
    assert browser.find_element(By.ID, "count").text == "200 of 10000 shown"
    assert shown_after < 5, shown_after
    browser.find_element(By.ID, "more").click()
    wait(browser, lambda driver: len(rows(driver)) == 400)
    assert rows(browser)[399].get_attribute("data-name") == "many/00399.bin"
    assert [link.text for link in browser.find_elements(By.CSS_SELECTOR, "#breadcrumbs a")] == [BUCKET, "many"]
    browser.execute_script("window.scrollTo(0, 0)")
    screenshot(browser, "storage-paging")
    browser.find_element(By.CSS_SELECTOR, "#breadcrumbs a").click()  # up to the bucket's root
    wait(browser, lambda driver: first_cells(driver)[:1] == ["📁 many/"])
    requests.post(f"{emulator.ui}api/delete-folder")  # no token: refused, nothing deleted
    assert len(requests.get(f"{emulator.ui}api/list", params={"bucket": BUCKET, "prefix": "many/"}).json()["entries"]) == 200


def test_uploaded_files_are_listed_with_their_sizes(browser, emulator, tmp_path: Path, alice):
    files = {"notes.txt": b"hello, storage\n", "data.json": json.dumps({"k": list(range(500))}).encode()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    open_folder(browser, emulator, "uploads/alice/")
    wait(browser, lambda driver: driver.find_element(By.ID, "breadcrumbs").text.endswith("alice"))
    browser.find_element(By.ID, "file-input").send_keys("\n".join(str(tmp_path / name) for name in files))
    for name, data in files.items():
        row = wait(browser, lambda driver: object_row(driver, f"uploads/alice/{name}"))
        assert row.find_element(By.CSS_SELECTOR, "td.num").get_attribute("data-size") == str(len(data))
        assert alice.reference(f"uploads/alice/{name}").get_data() == data  # through the client library
    screenshot(browser, "storage-uploaded")


def test_custom_metadata_edited_in_the_panel_is_read_by_the_client_library(browser, emulator, alice):
    admin_upload(emulator, "uploads/alice/report.json", b'{"pages": 3}', "application/json")
    open_folder(browser, emulator, "uploads/alice/")
    wait(browser, lambda driver: object_row(driver, "uploads/alice/report.json")).find_element(By.TAG_NAME, "button").click()
    wait(browser, lambda driver: "pages" in driver.find_element(By.ID, "preview").text)  # the JSON preview
    form = browser.find_element(By.ID, "custom-metadata")
    form.find_element(By.XPATH, ".//button[text()='Add field']").click()
    keys, values = form.find_elements(By.CSS_SELECTOR, "input.key"), form.find_elements(By.CSS_SELECTOR, "input.value")
    keys[-1].send_keys("reviewer")
    values[-1].send_keys("bob")
    form.find_element(By.XPATH, ".//button[text()='Save metadata']").click()
    wait(browser, lambda driver: driver.find_element(By.ID, "toast").text == "Metadata saved.")
    assert alice.reference("uploads/alice/report.json").get_metadata().custom_metadata == {"reviewer": "bob"}
    screenshot(browser, "storage-object-panel")


def metadata_of(emulator, name: str) -> dict:
    return requests.get(f"{emulator.base}/v0/b/{BUCKET}/o/{quote(name, safe='')}", headers=ADMIN).json()


def test_dropped_files_upload_and_tokens_and_moves_change_the_object(browser, emulator):
    open_folder(browser, emulator, "dropped/")
    wait(browser, lambda driver: driver.find_element(By.ID, "breadcrumbs").text.endswith("dropped"))
    browser.execute_script("""
        const files = new DataTransfer();
        files.items.add(new File(['dropped bytes'], 'drop.txt', {type: 'text/plain'}));
        document.getElementById('drop-zone').dispatchEvent(new DragEvent('drop', {dataTransfer: files, bubbles: true, cancelable: true}));""")
    row = wait(browser, lambda driver: object_row(driver, "dropped/drop.txt"))
    assert row.find_element(By.CSS_SELECTOR, "td.num").get_attribute("data-size") == str(len(b"dropped bytes"))
    row.find_element(By.TAG_NAME, "button").click()
    wait(browser, lambda driver: "dropped bytes" in driver.find_element(By.ID, "preview").text)
    (first,) = metadata_of(emulator, "dropped/drop.txt")["downloadTokens"].split(",")
    browser.find_element(By.XPATH, "//aside//button[text()='Create token']").click()
    wait(browser, lambda driver: len(driver.find_elements(By.CSS_SELECTOR, ".tokens li")) == 2)
    tokens = metadata_of(emulator, "dropped/drop.txt")["downloadTokens"].split(",")
    assert len(tokens) == 2 and tokens[1] == first  # production lists a new token first
    browser.find_element(By.XPATH, f"//li[code[text()='{first}']]/button[text()='Revoke']").click()
    wait(browser, lambda driver: len(driver.find_elements(By.CSS_SELECTOR, ".tokens li")) == 1)
    assert metadata_of(emulator, "dropped/drop.txt")["downloadTokens"] == tokens[0]
    move = browser.find_element(By.CSS_SELECTOR, "#move input")
    move.clear()
    move.send_keys("moved/drop.txt", Keys.ENTER)
    wait(browser, lambda driver: object_row(driver, "dropped/drop.txt") is None)
    assert "error" in metadata_of(emulator, "dropped/drop.txt")
    moved = metadata_of(emulator, "moved/drop.txt")
    assert moved["size"] == str(len(b"dropped bytes")) and moved["contentType"] == "text/plain"


def test_deleting_an_object_and_a_folder(browser, emulator):
    for name in ("trash/keep/a.txt", "trash/keep/b.txt", "trash/one.txt"):
        admin_upload(emulator, name, b"bye")
    open_folder(browser, emulator, "trash/")
    wait(browser, lambda driver: object_row(driver, "trash/one.txt")).find_element(By.TAG_NAME, "button").click()
    wait(browser, lambda driver: driver.find_element(By.ID, "object-panel").is_displayed())
    browser.find_element(By.XPATH, "//aside//button[text()='Delete']").click()
    browser.find_element(By.CSS_SELECTOR, "#confirm button[value=ok]").click()
    wait(browser, lambda driver: object_row(driver, "trash/one.txt") is None)
    assert requests.get(f"{emulator.base}/v0/b/{BUCKET}/o/{quote('trash/one.txt', safe='')}", headers=ADMIN).status_code == 404
    open_folder(browser, emulator, "trash/keep/")
    wait(browser, lambda driver: object_row(driver, "trash/keep/b.txt"))
    browser.find_element(By.ID, "delete-folder").click()
    browser.find_element(By.CSS_SELECTOR, "#confirm button[value=ok]").click()
    wait(browser, lambda driver: driver.current_url.endswith(f"#/storage/{BUCKET}/trash%2F"))
    listing = requests.get(f"{emulator.base}/v0/b/{BUCKET}/o", params={"prefix": "trash/"}, headers=ADMIN).json()
    assert listing.get("items", []) == [] and listing.get("prefixes", []) == []


def test_a_denied_upload_is_shown_with_its_failing_condition(browser, emulator, alice):
    with pytest.raises(fbstorage.StorageError):
        alice.reference("uploads/alice/too-big.bin").put_data(b"x" * (LIMIT + 1048576)).wait()
    open_page(browser, emulator, "requests")
    Select(browser.find_element(By.NAME, "verdict")).select_by_value("denied")
    browser.find_element(By.NAME, "path").send_keys("too-big")
    badge = wait(browser, lambda driver: driver.find_element(By.CSS_SELECTOR, "#requests tr.denied button.badge"))
    cells = [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "#requests tr.denied td")]
    assert cells[1:2] + cells[3:5] == ["PUT", "alice", "403"]  # the finalizing chunk, for its session's user
    badge.click()
    details = wait(browser, lambda driver: driver.find_element(By.CSS_SELECTOR, "#requests tr.details:not([hidden])"))
    text = details.text
    assert "not granted by line 6" in text
    assert "request.resource.size < 5 * 1024 * 1024 (line 7) was false" in text
    assert f"request.resource.size was {LIMIT + 1048576}" in text and f"5 * 1024 * 1024 was {LIMIT}" in text
    browser.set_window_size(1100, 600)
    try:
        screenshot(browser, "requests-denied")
    finally:
        browser.set_window_size(1280, 860)


@pytest.mark.parametrize("path, size, status", [("uploads/alice/ok.bin", 10, 200),
                                                ("uploads/alice/big.bin", LIMIT, 403),
                                                ("uploads/bob/theirs.bin", 10, 403)])
def test_the_playground_agrees_with_the_engine(browser, emulator, alice, path, size, status):
    try:
        alice.reference(path).put_data(b"x" * size).wait()
        real = 200
    except fbstorage.StorageError:
        real = 403
    assert real == status
    open_page(browser, emulator, "rules")
    form = wait(browser, lambda driver: driver.find_element(By.ID, "playground"))
    wait(browser, lambda driver: driver.find_elements(By.CSS_SELECTOR, ".rules-source .tok-keyword"))
    for name, value in (("bucket", BUCKET), ("path", path), ("uid", "alice"), ("size", str(size))):
        field = form.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    Select(form.find_element(By.NAME, "method")).select_by_value("create")
    form.find_element(By.NAME, "size").send_keys(Keys.ENTER)  # submits, as a keyboard user would
    result = wait(browser, lambda driver: driver.find_element(By.CSS_SELECTOR, "#playground-result .decision"))
    assert browser.find_element(By.ID, "playground-result").text.startswith(f"A real request would get HTTP {real}")
    assert result.find_element(By.CSS_SELECTOR, ".badge").text == ("allowed" if real == 200 else "denied")
    if status == 403 and size == LIMIT:
        assert f"request.resource.size was {LIMIT}" in result.text
        screenshot(browser, "rules-playground")


def test_keyboard_and_narrow_window(browser, emulator):
    admin_upload(emulator, "kbd/readme.txt", b"plain text preview")
    browser.set_window_size(420, 860)
    try:
        open_folder(browser, emulator, "kbd/")
        wait(browser, lambda driver: object_row(driver, "kbd/readme.txt"))
        target = object_row(browser, "kbd/readme.txt").find_element(By.TAG_NAME, "button")
        for _ in range(40):  # Tab through the page until the object's name has the focus
            if browser.switch_to.active_element == target:
                break
            ActionChains(browser).send_keys(Keys.TAB).perform()
        assert browser.switch_to.active_element == target
        ActionChains(browser).send_keys(Keys.ENTER).perform()
        wait(browser, lambda driver: "plain text preview" in driver.find_element(By.ID, "preview").text)
        assert browser.switch_to.active_element.get_attribute("aria-label") == "Close"  # focus moved to the panel
        screenshot(browser, "narrow-window")  # which checks that nothing is wider than the window
        browser.find_element(By.CSS_SELECTOR, 'nav a[data-tab="requests"]').click()
        wait(browser, lambda driver: len(driver.find_elements(By.CSS_SELECTOR, "#requests tbody tr")) > 2)
        for badge in browser.find_elements(By.CSS_SELECTOR, "#requests button.badge")[:3]:
            badge.click()  # explanations open, and still fit
        screenshot(browser, "narrow-window-requests")
    finally:
        browser.set_window_size(1280, 860)


def test_a_failed_rules_reload_shows_its_error_line(browser, emulator):
    good = emulator.rules.read_text()
    emulator.rules.write_text(good.replace("allow read:", "allow read:: if"))
    try:
        wait(browser, lambda driver: requests.get(f"{emulator.ui}api/rules").json()["reloadError"])  # polled file
        open_page(browser, emulator, "rules")
        banner = wait(browser, lambda driver: driver.find_element(By.ID, "rules-error").is_displayed()
                      and driver.find_element(By.ID, "rules-error"))
        assert f"{emulator.rules}:5:" in banner.text
        assert banner.find_element(By.CSS_SELECTOR, ".error-line").text.splitlines() == [
            "5 |       allow read:: if if request.auth != null;", " " * 21 + "^"]  # under column 18
        screenshot(browser, "rules-reload-error")
    finally:
        emulator.rules.write_text(good)
    wait(browser, lambda driver: requests.get(f"{emulator.ui}api/rules").json()["reloadError"] is None)


def test_auth_users_are_created_changed_and_deleted(browser, emulator):
    accounts = f"{emulator.base}/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts"

    def lookup(email: str) -> list[dict]:
        return requests.post(f"{accounts}:lookup", json={"email": [email]}, headers=ADMIN).json().get("users", [])

    open_page(browser, emulator, "auth")
    form = wait(browser, lambda driver: driver.find_element(By.ID, "create-user"))
    form.find_element(By.NAME, "email").send_keys("carol@example.com")
    form.find_element(By.NAME, "password").send_keys("secret-pass", Keys.ENTER)
    toast = browser.find_element(By.ID, "toast")
    wait(browser, lambda driver: toast.text == "User created.")  # shown once the table is redrawn
    (carol,) = lookup("carol@example.com")
    row = browser.find_element(By.CSS_SELECTOR, f"#users tr[data-uid='{carol['localId']}']")
    assert row.find_elements(By.TAG_NAME, "td")[1].text == "carol@example.com"
    row.find_element(By.CSS_SELECTOR, "input.claims").send_keys('{"role": "editor"}')
    row.find_element(By.XPATH, ".//button[text()='Save claims']").click()
    wait(browser, lambda driver: toast.text == "Claims saved.")
    assert lookup("carol@example.com")[0]["customAttributes"] == '{"role": "editor"}'
    browser.find_element(By.XPATH, f"//tr[@data-uid='{carol['localId']}']//button[text()='Disable']").click()
    wait(browser, lambda driver: toast.text == "User disabled.")
    assert lookup("carol@example.com")[0]["disabled"] is True
    screenshot(browser, "auth-users")
    browser.find_element(By.XPATH, f"//tr[@data-uid='{carol['localId']}']//button[text()='Delete']").click()
    browser.find_element(By.CSS_SELECTOR, "#confirm button[value=ok]").click()
    wait(browser, lambda driver: toast.text == "User deleted.")
    assert not browser.find_elements(By.CSS_SELECTOR, f"#users tr[data-uid='{carol['localId']}']")
    assert lookup("carol@example.com") == []


def test_auth_pending_codes_are_applied_from_the_auth_tab(browser, emulator):
    """What "click the link in the email" is in a test: an app signed up and asked for a
    verification email; the Auth tab lists the code, and its button verifies the email."""
    identity = f"{emulator.base}/identitytoolkit.googleapis.com/v1"
    user = requests.post(f"{identity}/accounts:signUp", params={"key": "k"},
                         json={"email": "vera@example.com", "password": "secret-1"}).json()
    sent = requests.post(f"{identity}/accounts:sendOobCode", params={"key": "k"},
                         json={"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]})
    assert sent.status_code == 200, sent.text
    requests.post(f"{identity}/accounts:sendOobCode", params={"key": "k"},
                  json={"requestType": "PASSWORD_RESET", "email": "vera@example.com"}).raise_for_status()
    (verify, reset) = requests.get(f"{emulator.base}/emulator/v1/projects/demo-project/oobCodes").json()["oobCodes"]
    open_page(browser, emulator, "auth")
    row = wait(browser, lambda driver: driver.find_element(By.CSS_SELECTOR, f"#oob-codes tr[data-code='{verify['oobCode']}']"))
    assert row.find_element(By.CSS_SELECTOR, "code.link").text == verify["oobLink"]
    user_row = browser.find_element(By.CSS_SELECTOR, f"#users tr[data-uid='{user['localId']}']")
    assert user_row.find_elements(By.TAG_NAME, "td")[2].text == "no"
    screenshot(browser, "auth-pending-codes")
    row.find_element(By.XPATH, ".//button[text()='Verify email']").click()
    toast = browser.find_element(By.ID, "toast")
    wait(browser, lambda driver: toast.text == "Email verified.")
    user_row = browser.find_element(By.CSS_SELECTOR, f"#users tr[data-uid='{user['localId']}']")
    assert user_row.find_elements(By.TAG_NAME, "td")[2].text == "yes"
    lookup = requests.post(f"{identity}/accounts:lookup", params={"key": "k"}, json={"idToken": user["idToken"]}).json()
    assert lookup["users"][0]["emailVerified"] is True

    reset_row = browser.find_element(By.CSS_SELECTOR, f"#oob-codes tr[data-code='{reset['oobCode']}']")
    reset_row.find_element(By.CSS_SELECTOR, "input[type=password]").send_keys("new-secret", Keys.ENTER)
    wait(browser, lambda driver: toast.text == "Password reset.")
    assert browser.find_element(By.ID, "no-oob-codes").is_displayed()
    signed_in = requests.post(f"{identity}/accounts:signInWithPassword", params={"key": "k"},
                              json={"email": "vera@example.com", "password": "new-secret"})
    assert signed_in.status_code == 200 and signed_in.json()["localId"] == user["localId"]
