#!/usr/bin/python3
"""Drives the playground page in headless Chromium (run by browser-check.sh).

Usage: browser_check.py http://127.0.0.1:PORT/

Loads the page, waits for the first result image, sets a new width and checks that the
built URL, the result image and the shown byte count follow. One PASS/FAIL line per check;
exit status 1 when any fails.
"""

import json
import re
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

TIMEOUT = 60  # seconds; the first request decodes and encodes, on a debug build too
NEW_WIDTH = 240  # the sample is 640x427: rs:fit:240:0 makes exactly 240 pixels wide

failures = 0


def check(name, ok, detail=""):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} {name}" + (f": {detail}" if detail else ""), flush=True)
    if not ok:
        failures += 1


def wait_for(condition, timeout=TIMEOUT):
    """condition() once it is truthy, or its last value after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def main():
    url = sys.argv[1]
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--no-first-run", "--disable-extensions", "--window-size=1280,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        run(driver, url)
    finally:
        driver.quit()
    print(f"{'PASS' if failures == 0 else 'FAIL'} browser check ({failures} failed)", flush=True)
    return 1 if failures else 0


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def natural_width(driver):
    return driver.execute_script("const i = document.getElementById('result'); return i.complete ? i.naturalWidth : 0;")


def run(driver, url):
    driver.get(url)
    check("the page loads", driver.title == "WebImage playground", f"title {driver.title!r}")

    first = wait_for(lambda: natural_width(driver))
    check("the first result image loads", first > 0,
          f"naturalWidth {first}, URL {text(driver, 'built-url')}, status {text(driver, 'status')!r}")
    check("the first URL is the sample's", "/insecure/rs:fit:300:0/plain/local:///sample.jpg" in text(driver, "built-url"),
          text(driver, "built-url"))

    width = driver.find_element(By.ID, "width")
    width.clear()
    width.send_keys(str(NEW_WIDTH))

    built = wait_for(lambda: f"rs:fit:{NEW_WIDTH}:" in text(driver, "built-url") and text(driver, "built-url"))
    check("#built-url follows the new width", bool(built), text(driver, "built-url"))
    resized = wait_for(lambda: natural_width(driver) == NEW_WIDTH and driver.execute_script(
        "return document.body.dataset.state") == "done")
    check("#result is as wide as the new width", bool(resized),
          f"naturalWidth {natural_width(driver)}, want {NEW_WIDTH}; status {text(driver, 'status')!r}")
    check("the shown size is the image's", text(driver, "result-size").startswith(f"{NEW_WIDTH} × "), text(driver, "result-size"))

    shown_bytes = text(driver, "result-bytes")
    count = re.match(r"(\d+) bytes", shown_bytes)
    check("the shown byte count is more than 0", bool(count) and int(count.group(1)) > 0, shown_bytes)
    check("the format is shown", text(driver, "result-format") not in ("", "–"), text(driver, "result-format"))
    check("the time is shown", re.fullmatch(r"\d+ ms", text(driver, "result-time")) is not None, text(driver, "result-time"))

    info = wait_for(lambda: text(driver, "info"), timeout=10)
    try:
        details = json.loads(info or "")
    except ValueError:
        details = {}
    check("#info shows the source's /info JSON", details.get("width") == 640 and details.get("format") == "jpeg"
          and str(details.get("thumbHash", "")) != "", (info or "")[:120].replace("\n", " "))

    try:
        logs = driver.get_log("browser")
    except WebDriverException as error:
        logs = []
        print(f"note: no browser log ({error.msg})")
    violations = [entry["message"] for entry in logs if "Content Security Policy" in entry["message"]]
    check("no Content-Security-Policy violation", not violations, "; ".join(violations)[:300])


if __name__ == "__main__":
    sys.exit(main())
