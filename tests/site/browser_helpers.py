"""What the browser tests share: opening a page from disk, reading a table's column, pressing keys in one
call, reading the console (a module of its own: test modules do not import each other)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selenium.webdriver.chromium.webdriver import ChromiumDriver
    from selenium.webdriver.remote.webdriver import WebDriver

HOSTILE = "<script>alert(1)</script>"  # the name conftest gives the hostile bot


def open_page(browser: WebDriver, path: Path) -> None:
    browser.get(path.resolve().as_uri())
    assert browser.current_url.startswith("file://")


def column(browser: WebDriver, table_id: str, index: int) -> list[str]:
    from selenium.webdriver.common.by import By

    rows = browser.find_elements(By.CSS_SELECTOR, f"#{table_id} tbody tr")
    return [str(row.find_elements(By.TAG_NAME, "td")[index].get_attribute("data-value")) for row in rows]


def no_alert(browser: WebDriver) -> bool:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        browser.switch_to.alert
    except NoAlertPresentException:
        return True
    return False


def press_arrow_right(browser: WebDriver, times: int) -> list[tuple[str, str]]:
    """Press ArrowRight ``times`` times on the page as the keydown events its keyboard handler listens to,
    in one WebDriver call instead of three a step: (step label, event text) after each press."""
    return [(str(label), str(text)) for label, text in browser.execute_script("""
        var seen = [], label = document.getElementById("step-label"), text = document.getElementById("event-text");
        for (var i = 0; i < arguments[0]; i++) {
          document.body.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", code: "ArrowRight",
                                                                    bubbles: true, cancelable: true}));
          seen.push([label.innerText.trim(), text.innerText.trim()]);
        }
        return seen;""", times)]


def ends_the_game(text: str) -> bool:
    """The last step's text: the sentences of its action, the last of them the game's end with the scores
    (a step is one action; its sentences are the engine's, engine/narration.py)."""
    return "Game over. " in text and text.rsplit("Game over. ", 1)[1].count(".") == 1 and text.endswith(".")


def severe_console_messages(browser: ChromiumDriver) -> list[str]:
    return [str(entry["message"]) for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
