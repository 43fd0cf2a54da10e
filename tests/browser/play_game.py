#!/usr/bin/env python3
"""Plays one whole game on `ddz serve`'s page in headless Chromium, by clicking as a person does.

At each turn it asks for a hint, clicks the hinted cards in the hand (or Pass) and presses Play;
on its first lead it first presses Pass and expects the refusal on screen. Under laizi, cards
that make more than one play bring up the page's choice of readings: it clicks the hinted one,
and at its first turn with such cards it plays one of them whatever the hint. At the end it
checks the end screen. Prints one JSON line: the plays made and the result (and how many
opponents the table shows, and its two-player target line). Exits non-zero on failure.

With --review it then presses "Review this game" and waits for the review page's plot.

    play_game.py URL [--seat landlord] [--screenshot PATH --screenshot-at N] [--review]
"""
import argparse
import json
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait


def browser():
    opts = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(arg)
    opts.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(options=opts, service=Service("/usr/bin/chromedriver"))


# One script, so that the page cannot change between the checks (a reply may land at any time).
TURN = """
if (document.getElementById("end").classList.contains("shown")) return "end";
if (busy) return false;
if (!document.getElementById("bidding").hidden)
  return [...document.querySelectorAll("#bidding .bid")].some((b) => !b.disabled) ? "bid" : false;
return document.getElementById("play").disabled ? false : "turn";
"""


def my_turn_or_end(d):
    return d.execute_script(TURN)


def click_cards(d, play):
    """Clicks the hand's cards of `play` (ranks), one element per card."""
    for rank in play:
        cards = d.find_elements(By.CSS_SELECTOR, f'#hand .card[data-rank="{rank}"]:not(.selected)')
        if not cards:
            raise AssertionError(f"no unselected {rank} in the hand for {play}")
        cards[0].click()
    selected = "".join(e.get_attribute("data-rank") for e in d.find_elements(By.CSS_SELECTOR, "#hand .card.selected"))
    assert sorted(selected) == sorted(play), f"selected {selected}, wanted {play}"


def choose_reading(d, wait, entry):
    """Clicks the reading button of `entry` ("5557 as 5555") that pressing Play brought up."""
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hints .reading-choice"))
    buttons = d.find_elements(By.CSS_SELECTOR, "#hints .reading-choice")
    choice = [b for b in buttons if b.get_attribute("data-entry") == entry]
    assert len(buttons) > 1 and choice, f"no choice {entry!r} among {[b.text for b in buttons]}"
    choice[0].click()


def review_played(d):
    """Presses the end screen's review button; the number of plays the review shows."""
    d.find_element(By.ID, "review-game").click()
    WebDriverWait(d, 60, poll_frequency=0.05).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#report svg#curve"))
    assert "/review?game=" in d.current_url, d.current_url
    return len(d.find_elements(By.CSS_SELECTOR, "#plays tr[id^=move-]"))


def play_game(d, url, seat, screenshot, screenshot_at):
    wait = WebDriverWait(d, 60, poll_frequency=0.05)
    d.get(url)
    Select(d.find_element(By.ID, "seat")).select_by_value(seat)
    d.find_element(By.ID, "new").click()
    plays, tried_pass, bids, readings_chosen = [], False, [], []
    while (turn := wait.until(my_turn_or_end)) != "end":
        if turn == "bid":  # bid 2 when it is open (two-player: call or rob), else pass
            bid_buttons = d.find_elements(By.CSS_SELECTOR, "#bidding .bid")
            open_bids = [b for b in bid_buttons if b.is_enabled() and b.is_displayed()]
            want = "1" if d.execute_script("return TWO_PLAYER") else "2"
            choice = next((b for b in open_bids if b.get_attribute("data-bid") == want), open_bids[0])
            bids.append(int(choice.get_attribute("data-bid")))
            choice.click()
            continue
        status = d.find_element(By.ID, "status").text
        if "you lead" in status and not tried_pass and len(plays) == 0:
            tried_pass = True
            d.find_element(By.ID, "pass").click()
            wait.until(lambda d: "not allowed when you lead" in d.find_element(By.ID, "message").text)
            wait.until(my_turn_or_end)
        readings = d.execute_script("return game.view.readings || []")
        if readings and not readings_chosen:
            # Cards with more than one reading: the page must ask which one is meant.
            r = readings[-1]
            click_cards(d, r["cards"])
            d.find_element(By.ID, "play").click()
            choose_reading(d, wait, r["entry"])
            readings_chosen.append(r["entry"])
            plays.append(r["entry"])
            continue
        d.find_element(By.ID, "hint").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hints .hint"))
        hint = d.find_elements(By.CSS_SELECTOR, "#hints .hint")[0]
        play, reading = hint.get_attribute("data-play"), hint.get_attribute("data-as")
        if play == "pass":
            d.find_element(By.ID, "pass").click()
        else:
            click_cards(d, play)
            if screenshot and len(plays) >= screenshot_at:
                d.save_screenshot(screenshot)
                screenshot = None
            d.find_element(By.ID, "play").click()
            entry = f"{play} as {reading}"
            if any(r["entry"] == entry for r in readings):
                choose_reading(d, wait, entry)
                readings_chosen.append(entry)
        plays.append(play)
    title = d.find_element(By.ID, "end-title").text
    detail = d.find_element(By.ID, "end-detail").text
    assert title in ("You win!", "You lose"), title
    assert "Your points:" in detail, detail
    wild = d.execute_script("return game.view.wild || null")
    seats = len([e for e in d.find_elements(By.CSS_SELECTOR, "#table .seat") if e.is_displayed()])
    target = d.find_element(By.ID, "target").text
    return {"plays": plays, "bids": bids, "title": title, "detail": detail, "tried_pass": tried_pass,
            "wild": wild, "readings_chosen": readings_chosen, "opponents_shown": seats, "target": target}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url")
    ap.add_argument("--seat", default="landlord")
    ap.add_argument("--screenshot", help="save a PNG of the game in progress here")
    ap.add_argument("--screenshot-at", type=int, default=3, help="at the first play of cards after this many plays")
    ap.add_argument("--review", action="store_true", help="then review the game on the review page")
    args = ap.parse_args()
    d = browser()
    try:
        result = play_game(d, args.url, args.seat, args.screenshot, args.screenshot_at)
        if args.review:
            result["reviewed_plays"] = review_played(d)
    except Exception:
        state = d.execute_script(
            "return {view: game && game.view, busy, controls: $('controls').hidden, bidding: $('bidding').hidden,"
            " status: $('status').textContent, message: $('message').textContent}"
        )
        print(f"page state at the failure: {json.dumps(state)}", file=sys.stderr)
        raise
    finally:
        d.quit()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
