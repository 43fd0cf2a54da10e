#!/usr/bin/env python3
"""Reviews one game on `ddz serve`'s review page in headless Chromium, as a person does.

It pastes the game log, presses Review, waits for the report (the win-chance plot drawn), then
clicks the worst mistake and checks that the page went to that play's row. Prints one JSON line:
the plays in the report, the curve's points, the mistakes listed and the row it went to. Exits
non-zero on failure.

    review_game.py URL LOG_FILE [--screenshot PATH]
"""
import argparse
import json
import sys

from play_game import browser
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def review(d, url, log, screenshot):
    wait = WebDriverWait(d, 60, poll_frequency=0.05)
    d.get(url)
    d.find_element(By.ID, "log").send_keys(log)
    d.find_element(By.ID, "go").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#report svg#curve polyline"))
    points = len(d.find_element(By.CSS_SELECTOR, "#report svg#curve polyline.landlord").get_attribute("points").split())
    rows = d.find_elements(By.CSS_SELECTOR, "#plays tr[id^=move-]")
    mistakes = d.find_elements(By.CSS_SELECTOR, "#mistakes a")
    assert mistakes, "the game has mistakes to click"
    href = mistakes[0].get_attribute("href").split("#")[1]
    mistakes[0].click()
    wait.until(lambda d: d.execute_script("return location.hash") == "#" + href)
    target = d.execute_script("return document.querySelector(':target') && document.querySelector(':target').id")
    assert target == href, f"went to {target}, not {href}"
    if screenshot:
        d.execute_script("window.scrollTo(0, 0)")
        d.save_screenshot(screenshot)
    return {"plays": len(rows), "landlord_points": points, "mistakes": len(mistakes), "went_to": target}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url")
    ap.add_argument("log")
    ap.add_argument("--screenshot", help="save a PNG of the report here")
    args = ap.parse_args()
    with open(args.log) as f:
        log = next(line.strip() for line in f if line.strip())
    d = browser()
    try:
        result = review(d, args.url, log, args.screenshot)
    except Exception:
        print(f"page at the failure: {d.execute_script('return document.body.innerText')[:2000]}", file=sys.stderr)
        raise
    finally:
        d.quit()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
