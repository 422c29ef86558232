"""The real dashboard in headless Chromium (Debian's chromium + chromedriver, driven by Selenium).

Skips with the reason when the browser is not installed (``tools/install-browser.sh`` installs
it; the README's test command runs that first). Screenshots land in ``out/screenshots``.
"""
from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pytest

from tests.test_webui import PLAYERS, game_states
from webui.app import create_app
from webui.live import DRAW_GRACE_S, LiveGame
from webui.loop import serve
from webui.store import Store

SHOTS = Path(__file__).resolve().parents[1] / "out" / "screenshots"

pytestmark = pytest.mark.skipif(not (shutil.which("chromium") and shutil.which("chromedriver")),
                                reason="chromium and chromedriver are not installed (tools/install-browser.sh)")


@pytest.fixture
def browser():
    os.environ.setdefault("SE_OFFLINE", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1280,800"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})     # for a failure's report (browser_report)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


def wait_for(cond, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        try:
            if cond():
                return True
        except Exception:
            pass
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


def outlined(browser) -> set[str]:
    """The regions the map outlines for a check."""
    from selenium.webdriver.common.by import By
    return {e.get_attribute("id")[2:] for e in browser.find_elements(By.CSS_SELECTOR, "#map path.doubt")}


def review_doubts(browser, snapshots: int) -> list[str]:
    """The doubted changes the review lists for the last of ``snapshots`` snapshots (the review
    tab opened for them, the live tab back after)."""
    from selenium.webdriver.common.by import By
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#timeline button")) == snapshots)
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[-1].click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#snap-a li.doubt"))
    texts = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#snap-a li.doubt")]
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="live"]').click()
    return texts


@pytest.fixture
def dashboard(browser, tmp_path):
    """A live game served to the browser, its page open with the map drawn; yields the game."""
    from selenium.webdriver.common.by import By
    store = Store(tmp_path / "rec")
    live = LiveGame.open(store, PLAYERS, resume=False)
    _, server = serve(create_app(live), "127.0.0.1", 0)
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/")
        wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#map path.region")) == 57)
        yield live
    finally:
        server.shutdown()
        store.close()


def test_dashboard_plays_corrects_confirms_and_reviews(browser, dashboard):
    from selenium.webdriver.common.by import By
    live = dashboard
    store = live.store
    states = game_states(6)
    for s in states:
        live.commit(s, b"\xff\xd8\xff\xe0")
        time.sleep(0.15)
    # the map, the score track and the event list follow the game
    wait_for(lambda: int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-updates") or 0) >= 6)
    wait_for(lambda: browser.find_element(By.ID, "round").text.startswith("Round"))
    # the phase in words ("land attack"), not its identifier ("land_attack")
    assert live.game.ctx.phase.name.lower().replace("_", " ") in browser.find_element(By.ID, "round").text
    assert "_" not in browser.find_element(By.ID, "round").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#track .marker")) == 3
    assert browser.find_elements(By.CSS_SELECTOR, "#events li")
    owner = next(iter(states[-1].owners))
    assert browser.find_element(By.ID, "r-" + owner).value_of_css_property("fill") != "rgb(233, 223, 196)"
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / "dashboard-tablet.png"))
    # confirm an inferred event
    browser.find_element(By.CSS_SELECTOR, "#events li button").click()
    wait_for(lambda: any(store.decisions(s.id) for s in store.snapshots(live.game_id)))
    # correct a miscount by tapping the region
    browser.execute_script(f"document.getElementById('r-{owner}').dispatchEvent(new MouseEvent('click'))")
    wait_for(lambda: browser.find_element(By.ID, "correct").get_attribute("open") is not None)
    field = browser.find_element(By.ID, "c-legionary")
    field.clear()
    field.send_keys("9")
    browser.find_element(By.ID, "c-vexillum").clear()
    browser.find_element(By.ID, "c-vexillum").send_keys("0")
    browser.find_element(By.ID, "c-save").click()
    wait_for(lambda: store.corrections(live.game_id))
    assert store.corrections(live.game_id)[0]["after"][states[-1].owners[owner]] == {"legionary": 9}
    # review: open an old snapshot (the empty panels say what to do, not a blank box)
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#timeline button")) >= 6)
    assert browser.find_element(By.ID, "snap-a").text.startswith("Pick a snapshot above")
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[1].click()
    wait_for(lambda: "#" in browser.find_element(By.CSS_SELECTOR, "#snap-a h2").text)
    assert browser.find_element(By.ID, "snap-b").text.startswith("Pick a second one")
    browser.save_screenshot(str(SHOTS / "review-tablet.png"))
    browser.set_window_size(390, 844)
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="live"]').click()
    time.sleep(0.3)
    browser.save_screenshot(str(SHOTS / "dashboard-phone.png"))
    assert (SHOTS / "dashboard-phone.png").stat().st_size > 10_000


def test_empty_lists_say_so_and_the_entry_controls_are_named(browser, dashboard):
    """A player opening the dashboard before anything is committed sees words, not blank space,
    and a screen reader (or a long press) names the card pickers and the event buttons."""
    from selenium.webdriver.common.by import By
    live = dashboard

    def placeholder(list_id: str) -> str:
        return browser.execute_script(
            f"return getComputedStyle(document.getElementById('{list_id}'), '::before').content")
    assert "nothing committed yet" in placeholder("events")
    assert "no rule questioned" in placeholder("verdicts")
    # the page asked for nothing the server lacks (a missing favicon, a script) and threw nothing
    assert not [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    labels = [e.get_attribute("aria-label") for e in browser.find_elements(By.CSS_SELECTOR, "#cards-form select")]
    assert labels == ["player", "first card of the set", "second card of the set", "third card of the set"]
    for s in game_states(3):
        live.commit(s, b"\xff\xd8\xff\xe0")
        time.sleep(0.15)
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#events li button"))
    assert placeholder("events") in ("none", "normal", "")
    titles = {b.get_attribute("title") for b in browser.find_elements(By.CSS_SELECTOR, "#events li button")}
    assert titles == {"confirm: this happened", "reject: this did not happen"}


def test_regions_the_camera_doubts_are_outlined_until_a_player_counts_them(browser, dashboard):
    from selenium.webdriver.common.by import By
    from tracker.readings import LOW_CONFIDENCE
    from tracker.state import ObservedState
    live = dashboard
    state = game_states(1)[0]
    owned = sorted(state.owners)
    doubtful, sure, hidden = owned[0], owned[1], owned[2]
    d = state.to_dict()
    # read four legionaries over its garrison: too far off for the set-up rules to settle (or,
    # read as the set-up leaves it, to vouch for), so the camera's doubt stands
    d["regions"][doubtful] = {state.owners[doubtful]: {"legionary": state.legions[doubtful] + 4}}
    d["confidence"] = {doubtful: round(LOW_CONFIDENCE - 0.3, 3), sure: round(LOW_CONFIDENCE + 0.1, 3)}
    d["unseen"] = [hidden]
    live.commit(ObservedState.from_dict(d), b"\xff\xd8\xff\xe0")
    wait_for(lambda: outlined(browser) == {doubtful, hidden})
    assert browser.find_element(By.ID, "check").text == "2 to check"
    title = browser.find_element(By.CSS_SELECTOR, f"#r-{doubtful} title").get_attribute("textContent")
    assert "check the count" in title
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / "dashboard-doubts.png"))
    # in review, the snapshot says which of its changes the camera doubted
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#timeline button"))
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[0].click()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#snap-a li.doubt")) == 2)
    texts = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#snap-a li.doubt")]
    assert any("% sure: check" in t for t in texts) and any("not seen by the camera" in t for t in texts)
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="live"]').click()
    # a player counts the doubtful region by hand: the doubt is gone
    colour, pieces = next(iter(d["regions"][doubtful].items()))
    live.correct(doubtful, {colour: pieces})
    wait_for(lambda: outlined(browser) == {hidden})
    assert browser.find_element(By.ID, "check").text == "1 to check"
    # the hidden province was never seen (unseen from the first commit): the tablet asks for its
    # count, and its button opens the correction form for it
    title = browser.find_element(By.CSS_SELECTOR, f"#r-{hidden} title").get_attribute("textContent")
    assert "never seen by the camera" in title and "last count kept" not in title
    prompt = browser.find_element(By.ID, "unknown")
    assert prompt.is_displayed() and "no count is known there" in prompt.text
    prompt.find_element(By.CSS_SELECTOR, f'button[data-region="{hidden}"]').click()
    wait_for(lambda: browser.find_element(By.ID, "correct").is_displayed())
    assert browser.find_element(By.ID, "correct-title").text.endswith(live.game.board.name(hidden))
    browser.find_element(By.CSS_SELECTOR, '#correct button[value="cancel"]').click()
    live.correct(hidden, state.to_dict()["regions"][hidden])     # a player sets it: no longer asked for
    wait_for(lambda: not prompt.is_displayed())
    title = browser.find_element(By.CSS_SELECTOR, f"#r-{hidden} title").get_attribute("textContent")
    assert "not seen by the camera: last count kept" in title
    # the camera side's notice (the light has changed a lot) shows in the status bar until it clears
    notice = browser.find_element(By.ID, "camera-notice")
    assert not notice.is_displayed()
    live.set_camera_notice("the light has changed a lot since calibration")
    wait_for(lambda: notice.is_displayed() and notice.text == "the light has changed a lot since calibration")
    one_line = notice.size["height"]
    # a long one (the calibration's, standing all game) keeps to one line until tapped
    long = "pieces stand on the map in the calibration photo (about 94, over Baleares and 44 more): " * 4
    live.set_camera_notice(long)
    wait_for(lambda: notice.get_attribute("title") == long)
    assert notice.size["height"] == one_line and notice.get_attribute("textContent") == long
    assert browser.execute_script("return document.documentElement.scrollWidth <= innerWidth")   # cut, not the page
    notice.click()
    wait_for(lambda: notice.size["height"] > 2 * one_line)
    live.set_camera_notice("")
    wait_for(lambda: not notice.is_displayed())


def test_a_piece_lying_knocked_over_is_marked_until_the_camera_sees_it_stand(browser, dashboard):
    """The counter marks a province where a piece lies on its side (vision.lying): the map asks
    the players to stand it up, and the review says so of the snapshot; once it stands, the next
    commit reads the province without the mark."""
    from selenium.webdriver.common.by import By
    from tracker.state import ObservedState
    from vision.lying import LYING_CONFIDENCE
    live = dashboard
    state = game_states(1)[0]
    region = sorted(state.owners)[0]
    live.commit(state, b"\xff\xd8\xff\xe0")
    d = state.to_dict()
    # read as two legionaries more: a lying one's long blob
    d["regions"][region] = {state.owners[region]: {"legionary": state.legions[region] + 2}}
    d["confidence"], d["lying"] = {region: LYING_CONFIDENCE}, [region]
    live.commit(ObservedState.from_dict(d), b"\xff\xd8\xff\xe0")
    wait_for(lambda: outlined(browser) == {region})
    title = browser.find_element(By.CSS_SELECTOR, f"#r-{region} title").get_attribute("textContent")
    assert "lie knocked over here: if so, stand it up" in title
    # a tablet cannot hover: the prompt is said beside the map, and the correction form says why
    prompt = browser.find_element(By.ID, "lying")
    name = live.game.board.name(region)
    assert prompt.is_displayed() and f"knocked over in {name}: stand it up" in prompt.text
    prompt.find_element(By.CSS_SELECTOR, f'button[data-region="{region}"]').click()
    wait_for(lambda: browser.find_element(By.ID, "correct").is_displayed())
    assert "lie knocked over here" in browser.find_element(By.ID, "c-why").text
    browser.find_element(By.CSS_SELECTOR, '#correct button[value="cancel"]').click()
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#timeline button"))
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[-1].click()
    wait_for(lambda: any("lie knocked over" in e.text
                         for e in browser.find_elements(By.CSS_SELECTOR, "#snap-a li.doubt")))
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="live"]').click()
    # the players stand it up: the camera reads the province afresh, with no piece lying there
    live.commit(state, b"\xff\xd8\xff\xe0")
    wait_for(lambda: "knocked over" not in browser.find_element(By.CSS_SELECTOR, f"#r-{region} title")
             .get_attribute("textContent"))
    assert not prompt.is_displayed()


def test_the_current_players_card_names_the_marks_its_claim_hangs_on(browser, dashboard):
    """Red claims no province point on a set-up of nine provinces each; a blue province read in
    doubt might be red's: red's card says the claim hangs on it, until a player sets its count."""
    from selenium.webdriver.common.by import By
    from tracker.state import ObservedState
    live = dashboard
    s0 = game_states(1)[0]
    blue = sorted(s0.provinces_of("blue"))[0]
    live.commit(s0)
    d = s0.to_dict()
    d["confidence"] = {blue: 0.3}
    live.commit(ObservedState.from_dict(d))
    name = live.game.board.name(blue)
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#players .player.current small.claim-doubt"))
    (line,) = browser.find_elements(By.CSS_SELECTOR, "#players small.claim-doubt")
    assert f"claimed 0 VP this turn: it hangs on {name}" in line.text and "before moving the marker" in line.text
    live.correct(blue, s0.to_dict()["regions"][blue])
    wait_for(lambda: not browser.find_elements(By.CSS_SELECTOR, "#players small.claim-doubt"))


def test_a_score_marker_the_camera_sees_off_the_score_is_pointed_out(browser, dashboard):
    """The camera reads red's marker on box 3 while the score is 0 (vision.track): red's card
    says so and the track rings box 3 in red; once the marker is read on 0, both go. The review
    shows both readings."""
    from selenium.webdriver.common.by import By
    live = dashboard
    live.commit(game_states(1)[0])
    live.set_track({"red": 3, "blue": 0, "yellow": None})
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#players small.marker-off"))
    (line,) = browser.find_elements(By.CSS_SELECTOR, "#players small.marker-off")
    assert "the marker on the board stands on 3, the score is 0" in line.text
    (ring,) = browser.find_elements(By.CSS_SELECTOR, "#track .marker.seen")
    assert ring.find_element(By.XPATH, "..").get_attribute("title") == "box 3"
    assert ring.get_attribute("title") == "red's marker as the camera sees it"
    live.set_track({"red": 0, "blue": 0, "yellow": None})
    wait_for(lambda: not browser.find_elements(By.CSS_SELECTOR, "#players small.marker-off"))
    assert not browser.find_elements(By.CSS_SELECTOR, "#track .marker.seen")
    # the review lists both readings under the snapshot they followed, the one off the score doubted
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#timeline button"))
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[0].click()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#snap-a li.track-read")) == 2)
    first, second = (e.text for e in browser.find_elements(By.CSS_SELECTOR, "#snap-a li.track-read"))
    assert first.startswith("score markers seen at ")
    assert "red on 3 (its score was 0), blue on 0, yellow not found" in first
    assert "red on 0, blue on 0, yellow not found" in second
    assert len(browser.find_elements(By.CSS_SELECTOR, "#snap-a li.track-read.doubt")) == 1


def test_a_count_a_rule_questioned_is_outlined_until_a_player_sets_it(browser, dashboard):
    """Yellow, not in turn, read surely with four legionaries more: a violation, shown once with
    its commit; the map goes on outlining the province, and says why, until a player counts it."""
    from selenium.webdriver.common.by import By
    from tracker.state import ObservedState
    live = dashboard
    states = game_states(2)
    live.commit(states[0])
    live.commit(states[1])
    region = sorted(states[1].provinces_of("yellow"))[0]
    d = states[1].to_dict()
    d["regions"][region] = {"yellow": {"legionary": states[1].legions[region] + 4}}
    d["confidence"] = {region: 0.95}
    live.commit(ObservedState.from_dict(d))
    live.commit(ObservedState.from_dict(d))         # a later commit: the verdict is not shown again
    wait_for(lambda: outlined(browser) == {region})
    assert browser.find_element(By.ID, "check").text == "1 to check"
    title = browser.find_element(By.CSS_SELECTOR, f"#r-{region} title").get_attribute("textContent")
    assert "a rule questioned this count" in title
    live.correct(region, states[1].to_dict()["regions"][region])
    wait_for(lambda: outlined(browser) == set())


def test_a_doubted_placement_is_outlined_until_the_turn_s_due_accounts_for_it(browser, dashboard):
    """The player in turn places one short of its due in a province, read at 0.5: the map outlines
    it. Once the last legionary is placed elsewhere and read surely, the turn has placed all it
    was due, and the outline goes."""
    from tracker.state import ObservedState
    live = dashboard
    s0 = game_states(1)[0]
    live.commit(s0)
    actor, due = live.game.current, live.game.ctx.due
    first, last = sorted(s0.provinces_of(actor))[:2]
    d = s0.to_dict()
    d["regions"][first] = {actor: {"legionary": s0.legions[first] + due - 1}}
    d["confidence"] = {first: 0.5}
    live.commit(ObservedState.from_dict(d))
    wait_for(lambda: outlined(browser) == {first})
    d["regions"][last] = {actor: {"legionary": s0.legions[last] + 1}}
    live.commit(ObservedState.from_dict(d))
    wait_for(lambda: outlined(browser) == set())
    assert live.view()["vouched"] == [first]


def test_the_review_says_why_a_doubted_placement_was_not_asked_for(browser, dashboard):
    """The player in turn places all it is due in one province, read at 0.5: the map does not
    outline it, and the review of that commit lists the change with the camera's doubt and why no
    check was asked, not as a doubt to check."""
    from selenium.webdriver.common.by import By
    from tracker.state import ObservedState
    live = dashboard
    s0 = game_states(1)[0]
    live.commit(s0)
    actor, due = live.game.current, live.game.ctx.due
    region = sorted(s0.provinces_of(actor))[0]
    d = s0.to_dict()
    d["regions"][region] = {actor: {"legionary": s0.legions[region] + due}}
    d["confidence"] = {region: 0.5}
    live.commit(ObservedState.from_dict(d))
    wait_for(lambda: live.view()["vouched"] == [region])
    # the map has drawn that commit (its label shows the new count) before it is looked at: once,
    # under a loaded machine, the page was read before its first state arrived, every region
    # outlined as unseen
    placed = str(s0.legions[region] + due)
    wait_for(lambda: browser.find_element(By.ID, "t-" + region).text.split()[:1] == [placed])
    assert region not in outlined(browser)
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#timeline button")) == 2)
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[-1].click()
    name = live.game.board.name(region)
    wait_for(lambda: any(e.text.startswith(name + ":") for e in browser.find_elements(By.CSS_SELECTOR, "#snap-a li")))
    item = next(e for e in browser.find_elements(By.CSS_SELECTOR, "#snap-a li") if e.text.startswith(name + ":"))
    assert "50% sure" in item.text and "no check was asked" in item.text and "check)" not in item.text
    assert "doubt" not in (item.get_attribute("class") or "")
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="live"]').click()


def test_a_province_the_rules_kept_says_so_not_the_camera(browser, dashboard):
    """§14.1: a province read empty after the set-up keeps one legionary, a guess of the rules.
    The map asks for a check, and says who guessed: the camera saw nothing there to be sure of."""
    from selenium.webdriver.common.by import By
    from tracker.state import ObservedState
    live = dashboard
    setup = game_states(1)[0]
    live.commit(setup, b"\xff\xd8\xff\xe0")
    province = sorted(setup.provinces_of("blue"))[0]
    d = setup.to_dict()
    d["regions"].pop(province)
    live.commit(ObservedState.from_dict(d), b"\xff\xd8\xff\xe0")
    wait_for(lambda: [e.get_attribute("id")[2:] for e in browser.find_elements(By.CSS_SELECTOR, "#map path.doubt")]
             == [province])
    title = browser.find_element(By.CSS_SELECTOR, f"#r-{province} title").get_attribute("textContent")
    assert "the rules keep one" in title and "% sure" not in title
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#timeline button")) == 2)
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[-1].click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#snap-a li.doubt"))
    (text,) = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#snap-a li.doubt")]
    assert "the rules kept one" in text and "% sure" not in text


def test_a_set_up_army_the_rules_guessed_says_so(browser, dashboard):
    """A yellow pair read as nothing beside a neutral group read as 4 yellow legionaries, both in
    deep doubt: the set-up rules settle both, and the map asks which army stands in each."""
    from selenium.webdriver.common.by import By
    from tracker.state import ObservedState
    live = dashboard
    setup = game_states(1)[0]
    pair, group = next((p, q) for p in sorted(setup.provinces_of("yellow"))
                       for q in sorted(setup.board.land_neighbours[p]) if setup.owners.get(q) == "black")
    d = setup.to_dict()
    d["regions"].pop(pair)
    d["regions"][group] = {"yellow": {"legionary": 4}}
    d["confidence"] = {pair: 0.07, group: 0.09}
    live.commit(ObservedState.from_dict(d), b"\xff\xd8\xff\xe0")
    wait_for(lambda: {e.get_attribute("id")[2:] for e in browser.find_elements(By.CSS_SELECTOR, "#map path.doubt")}
             == {pair, group})
    for region in (pair, group):
        title = browser.find_element(By.CSS_SELECTOR, f"#r-{region} title").get_attribute("textContent")
        assert "check which army stands here" in title and "% sure" not in title
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()       # in review too
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#timeline button"))
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[0].click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#snap-a li.doubt"))
    texts = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#snap-a li.doubt")]
    assert sorted(t.split(":")[0] for t in texts) == sorted(setup.board.name(r) for r in (pair, group))
    assert all("the set-up rules chose the army" in t and "% sure" not in t for t in texts)
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="live"]').click()


def test_a_piece_read_across_the_border_says_no_hand_touched_it(browser, dashboard):
    """A hand placed a piece in one province, read as before; the province beside it, which no
    hand touched, read one more: the map asks for both, and says of the second that no hand
    touched it, on the map and in review."""
    from selenium.webdriver.common.by import By
    from tracker.state import ObservedState
    live = dashboard
    s0, s1 = game_states(2)
    live.commit(s0)
    live.commit(s1)
    touched, beside = next((p, q) for p in sorted(s1.owners) for q in sorted(s1.board.land_neighbours[p])
                           if s1.owners.get(q) == s1.owners[p])
    d = s1.to_dict()
    d["regions"][beside] = {s1.owners[beside]: {"legionary": s1.legions[beside] + 1}}
    live.commit(ObservedState.from_dict(d), moved=frozenset({touched}))
    wait_for(lambda: outlined(browser) >= {touched, beside})
    title = browser.find_element(By.CSS_SELECTOR, f"#r-{beside} title").get_attribute("textContent")
    assert "no hand touched this province" in title and "% sure" not in title
    assert "still reads the count it read before" in \
        browser.find_element(By.CSS_SELECTOR, f"#r-{touched} title").get_attribute("textContent")
    texts = review_doubts(browser, 3)
    assert any(t.startswith(s1.board.name(beside)) and "no hand touched it" in t for t in texts)


def test_a_province_no_hand_reached_into_read_otherwise_says_so(browser, dashboard):
    """A province no hand reached into is read one more, surely: the map asks for it and says
    that no hand reached into it, on the map and in review (the print's hard seed 367)."""
    from selenium.webdriver.common.by import By
    from tracker.state import ObservedState
    live = dashboard
    s0, s1 = game_states(2)
    live.commit(s0)
    live.commit(s1)
    region = sorted(s1.owners)[0]
    d = s1.to_dict()
    d["regions"][region] = {s1.owners[region]: {"legionary": s1.legions[region] + 1}}
    d["confidence"] = {region: 0.9}
    live.commit(ObservedState.from_dict(d), moved=frozenset())
    wait_for(lambda: outlined(browser) == {region})
    title = browser.find_element(By.CSS_SELECTOR, f"#r-{region} title").get_attribute("textContent")
    assert "no hand reached into this province" in title and "% sure" not in title
    texts = review_doubts(browser, 3)
    assert any(t.startswith(s1.board.name(region)) and "no hand reached into it" in t for t in texts)


def test_a_set_count_doubted_after_a_move_says_why(browser, dashboard):
    """The rules settled a misread set-up count; a hand then moved pieces there and the camera
    reads it as before. The map asks for a check of the settled count, and says why."""
    from selenium.webdriver.common.by import By
    from tracker.state import ObservedState
    live = dashboard
    setup = game_states(1)[0]
    region = sorted(setup.owners)[0]
    d = setup.to_dict()
    d["regions"][region] = {setup.owners[region]: {"legionary": setup.legions[region] - 1}}
    misread = ObservedState.from_dict(d)
    live.commit(misread, b"\xff\xd8\xff\xe0")
    live.commit(misread, b"\xff\xd8\xff\xe0", moved=frozenset({region}))
    wait_for(lambda: [e.get_attribute("id")[2:] for e in browser.find_elements(By.CSS_SELECTOR, "#map path.doubt")]
             == [region])
    title = browser.find_element(By.CSS_SELECTOR, f"#r-{region} title").get_attribute("textContent")
    assert "pieces were moved here" in title and "% sure" not in title
    assert browser.find_element(By.ID, "check").text == "1 to check"


def test_an_arena_centre_the_camera_missed_is_marked_from_the_prompt(browser, dashboard):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    live = dashboard
    store = live.store
    states = game_states(2)
    live.commit(states[0])
    prompt = browser.find_element(By.ID, "owed")
    assert not prompt.is_displayed()
    live.game.hands["red"].count = 3
    live.enter("cards", {"player": "red", "cards": ["arena", "legionary", "trireme"]})
    live.commit(states[1])
    wait_for(lambda: prompt.is_displayed() and "red played an arena" in prompt.text)
    pick = Select(prompt.find_element(By.TAG_NAME, "select"))
    [owed] = live.view()["centres_owed"]
    names = [o.text for o in pick.options]
    assert sorted(o.get_attribute("value") for o in pick.options) == owed["where"] and names == sorted(names)
    province = owed["where"][-1]
    pick.select_by_value(province)
    live.set_camera_notice("a live update")            # redraws the prompt: the pick stays
    wait_for(lambda: browser.find_element(By.ID, "camera-notice").is_displayed())
    pick = Select(prompt.find_element(By.TAG_NAME, "select"))
    assert pick.first_selected_option.get_attribute("value") == province
    live.set_camera_notice("")
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / "dashboard-centre-owed.png"))
    prompt.find_element(By.TAG_NAME, "button").click()
    wait_for(lambda: live.game.state.centres == {province: 1})
    wait_for(lambda: not prompt.is_displayed())
    assert "◎" in browser.find_element(By.ID, "t-" + province).text
    (c,) = store.corrections(live.game_id)
    assert c["region"] == province and c["after"]["neutral"] == {"centre": 1}
    assert c["after"]["red"] == states[1].to_dict()["regions"][province]["red"]


def test_a_tablet_entry_is_answered_beside_the_form(browser, dashboard):
    """Cards played out of turn are refused at once beside the form; a card drawn is recorded
    there and judged in the Rules list when the next commit comes."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    live = dashboard
    states = game_states(4)
    for s in states[:3]:
        live.commit(s)
    wait_for(lambda: live.game.current == "blue" and Select(browser.find_element(By.ID, "cards-player"))
             .first_selected_option.text == "blue")
    said = browser.find_element(By.ID, "entry-said")
    assert not said.is_displayed()
    Select(browser.find_element(By.ID, "cards-player")).select_by_visible_text("red")
    browser.find_element(By.CSS_SELECTOR, '#cards-form button[type="submit"]').click()
    wait_for(lambda: "outside their own turn" in said.text)
    assert said.text.startswith("§8.2") and "bad" in said.get_attribute("class").split()
    Select(browser.find_element(By.ID, "cards-player")).select_by_visible_text("red")
    browser.find_element(By.ID, "draw").click()
    wait_for(lambda: said.text == "card drawn recorded")
    assert "bad" not in said.get_attribute("class").split()
    # the review lists what was entered since the last commit, with what the rules said then
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    after = browser.find_element(By.ID, "entries-after")
    wait_for(lambda: after.is_displayed() and len(after.find_elements(By.CSS_SELECTOR, "li.entry")) == 2)
    played, drawn = after.find_elements(By.CSS_SELECTOR, "li.entry")
    assert played.text.startswith("tablet: red played cards:") and "§8.2" in played.text
    assert "violation" in played.get_attribute("class").split() and drawn.text == "tablet: red drew a card"
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="live"]').click()
    live.commit(states[3])
    wait_for(lambda: any("red drew a card outside their own turn" in li.text
                         for li in browser.find_elements(By.CSS_SELECTOR, "#verdicts li")))
    # ...and once the commit came, beside it: its button is marked, its detail lists them first
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#timeline button")) == 4 and not after.is_displayed())
    last = browser.find_elements(By.CSS_SELECTOR, "#timeline button")[-1]
    assert "entered" in last.get_attribute("class").split() and "violation" in last.get_attribute("class").split()
    last.click()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#snap-a li.entry")) == 2)
    items = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#snap-a li")]
    assert items[1] == "tablet: red drew a card"
    assert any("red drew a card outside their own turn" in t for t in items[2:])
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / "review-tablet-entries.png"))


def test_dice_for_a_dispute_are_tapped_in_and_answered_beside_the_form(browser, dashboard):
    """The dice are entered by tapping their faces, up to three a side, each taken back by a tap
    (no typing into a browser prompt on a tablet); the losses they give are said beside the entry
    form, and the entry is recorded as entered."""
    from selenium.webdriver.common.by import By
    live = dashboard
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    browser.refresh()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#map path.region")) == 57)
    dlg, record = browser.find_element(By.ID, "dice-dialog"), browser.find_element(By.ID, "dice-record")
    assert not dlg.is_displayed()
    browser.find_element(By.ID, "dice").click()
    wait_for(dlg.is_displayed)
    assert not record.is_enabled()
    side = {s: browser.find_element(By.CSS_SELECTOR, f'#dice-form .dice-side[data-side="{s}"]')
            for s in ("attacker", "defender")}

    def tap(who: str, *faces: int) -> None:
        for d in faces:
            side[who].find_element(By.CSS_SELECTOR, f'.faces button[value="{d}"]').click()

    def rolled(who: str) -> list[str]:
        return [b.text.split()[-1] for b in side[who].find_elements(By.CSS_SELECTOR, ".rolled button")]

    tap("attacker", 6, 4, 2)
    assert rolled("attacker") == ["6", "4", "2"] and not record.is_enabled()      # no defender's die yet
    # three dice at most: the faces are closed, and each is finger-sized on a touch screen
    for b in side["attacker"].find_elements(By.CSS_SELECTOR, ".faces button"):
        assert not b.is_enabled() and b.size["width"] >= 44 and b.size["height"] >= 44, b.size
    side["attacker"].find_elements(By.CSS_SELECTOR, ".rolled button")[1].click()    # the 4 was a 3
    tap("attacker", 3)
    assert rolled("attacker") == ["6", "2", "3"]
    tap("defender", 5, 3)
    assert rolled("defender") == ["5", "3"] and record.is_enabled()
    assert browser.find_element(By.ID, "dice-naval-label").is_displayed()      # S.P.Q.RisiKo! has sea battles
    assert not [r for r in browser.find_elements(By.CSS_SELECTOR, "#more-entries .entry-row") if r.is_displayed()]
    record.click()
    said = browser.find_element(By.ID, "entry-said")
    wait_for(lambda: "attacker loses 1, defender loses 1" in said.text)
    assert not dlg.is_displayed() and not {"bad", "warn"} & set(said.get_attribute("class").split())   # no breach
    (entry,) = live.store.entries(live.game_id)
    assert entry["kind"] == "dice" and entry["payload"]["attacker"] == [6, 2, 3] \
        and entry["payload"]["defender"] == [5, 3] and not entry["payload"].get("naval")
    # opened again it starts afresh; fewer dice than the defender is a breach, said as one; at sea
    # a tied pair sinks nobody
    browser.find_element(By.ID, "dice").click()
    wait_for(dlg.is_displayed)
    assert rolled("attacker") == [] == rolled("defender") and not record.is_enabled()
    tap("attacker", 4)
    tap("defender", 4, 1)
    browser.find_element(By.ID, "dice-naval").click()
    record.click()
    wait_for(lambda: "§10.13" in said.text)
    assert "attacker loses 0, defender loses 0" in said.text and "bad" in said.get_attribute("class").split()
    assert live.store.entries(live.game_id)[-1]["payload"]["naval"] is True
    # cancelled, nothing is recorded
    browser.find_element(By.ID, "dice").click()
    wait_for(dlg.is_displayed)
    tap("attacker", 6)
    tap("defender", 1)
    dlg.find_element(By.CSS_SELECTOR, 'button[value="cancel"]').click()
    wait_for(lambda: not dlg.is_displayed())
    time.sleep(0.3)
    assert len(live.store.entries(live.game_id)) == 2


@pytest.mark.parametrize("ruleset, players, symbols, defence", [
    ("lotr", ["green", "red", "yellow"], ["infantry", "cavalry", "creature", "wild"], 2),
    ("tournament-2v2", ["red", "blue", "yellow", "green"], ["infantry", "cavalry", "artillery", "wild"], None)])
def test_the_entry_form_offers_the_ruleset_s_cards_and_dice(browser, tmp_path, ruleset, players, symbols, defence):
    """A game of another ruleset gets its own card symbols in the form, and its own dice: the
    LotR defender taps in two at most; the dice-free tournament has no dice button."""
    from selenium.webdriver.common.by import By
    store = Store(tmp_path / "rec")
    extra = {"neutrals": ["purple"]} if ruleset == "tournament-2v2" else None
    live = LiveGame.open(store, players, ruleset, resume=False, **({"extra": extra} if extra else {}))
    _, server = serve(create_app(live), "127.0.0.1", 0)
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/")
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#map path.region")
                 and len(browser.find_elements(By.CSS_SELECTOR, "#cards-form .card option")) == 3 * len(symbols))
        for sel in browser.find_elements(By.CSS_SELECTOR, "#cards-form .card"):
            assert [o.get_attribute("value") for o in sel.find_elements(By.TAG_NAME, "option")] == symbols
        dice = browser.find_element(By.ID, "dice")
        assert dice.is_displayed() == (defence is not None)
        if defence is None:
            return
        dice.click()
        dlg = browser.find_element(By.ID, "dice-dialog")
        wait_for(dlg.is_displayed)
        side = browser.find_element(By.CSS_SELECTOR, '#dice-form .dice-side[data-side="defender"]')
        assert side.find_element(By.TAG_NAME, "legend").text == f"Defender (up to {defence} dice)"
        for d in (5, 4, 3):
            face = side.find_element(By.CSS_SELECTOR, f'.faces button[value="{d}"]')
            if face.is_enabled():
                face.click()
        assert len(side.find_elements(By.CSS_SELECTOR, ".rolled button")) == defence
        assert not browser.find_element(By.ID, "dice-naval-label").is_displayed()     # no sea battles
    finally:
        server.shutdown()
        store.close()


@pytest.mark.parametrize("ruleset", ["lotr", "tournament-2v2"])
def test_the_ruleset_s_other_entries_are_made_at_the_tablet(browser, tmp_path, ruleset):
    """LotR's adventure cards and the Fellowship's die, the tournament's declared reinforcements,
    renounced bonuses and extra time: each is entered from the tablet and recorded, and only the
    rows of the game's own ruleset are offered."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    from tracker.replay import replay_lines
    from tracker.risiko.rules import risiko_rules
    from tracker.risiko.simulator import simulate_game
    start, steps, header = simulate_game(risiko_rules(ruleset), seed=5, max_turns=3)
    store = Store(tmp_path / "rec")
    live = LiveGame.open(store, header["game"]["players"], ruleset, resume=False,
                         extra={"neutrals": header["game"].get("neutrals", [])})
    live.commit(next(iter(replay_lines(start, steps))).state, source="replay")
    _, server = serve(create_app(live), "127.0.0.1", 0)
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/")
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#map path.region")
                 and browser.execute_script("return view && view.current") == live.game.current)
        shown = {r.get_attribute("data-entry") for r in browser.find_elements(By.CSS_SELECTOR, "#more-entries .entry-row")
                 if r.is_displayed()}
        # every tile's label (its territory's name and count) keeps within the tile
        over = browser.execute_script(
            "return [...document.querySelectorAll('#map path.region')].filter(p => {"
            "  const t = document.getElementById('t-' + p.id.slice(2)), a = p.getBoundingClientRect(), b = t.getBoundingClientRect();"
            "  return t.textContent && (b.left < a.left - 1 || b.right > a.right + 1); }).map(p => p.id)")
        assert over == []
        # each player's card says what this ruleset counts: territories and armies, not provinces and seas
        standing = live.game.score(live.game.current)
        first = browser.find_element(By.CSS_SELECTOR, "#players .player.current").text
        assert f"{standing.territories} territories · {standing.armies} armies" in first and "seas" not in first
        said = browser.find_element(By.ID, "entry-said")
        current = live.game.current
        # the correction form asks for this board's pieces (tanks and flags; battalions, a leader
        # and the Ring), and a count set there is saved
        region = live.game.state.provinces_of(current)[0]
        browser.execute_script(f"document.getElementById('r-{region}').dispatchEvent(new MouseEvent('click'))")
        dlg = browser.find_element(By.ID, "correct")
        wait_for(dlg.is_displayed)
        fields = [i.get_attribute("id")[2:] for i in dlg.find_elements(By.CSS_SELECTOR, "#c-kinds input")]
        pieces = live.game.board.pieces
        assert fields == list(pieces.garrison) + list(pieces.tokens) + list(pieces.naval) + list(pieces.neutral)
        assert Select(browser.find_element(By.ID, "c-colour")).first_selected_option.text == current
        unit = next(iter(pieces.garrison))
        field = browser.find_element(By.ID, "c-" + unit)
        field.clear()
        field.send_keys("6")
        browser.find_element(By.ID, "c-save").click()
        wait_for(lambda: live.store.corrections(live.game_id))
        assert live.store.corrections(live.game_id)[0]["after"][current][unit] == 6
        if ruleset == "lotr":
            assert shown == {"adventure", "fellowship_roll"}
            browser.find_element(By.CSS_SELECTOR, '#ring-faces button[value="5"]').click()
            wait_for(lambda: said.text == "the Fellowship's 5 recorded")
            Select(browser.find_element(By.ID, "adv-kind")).select_by_value("mission")
            assert browser.find_element(By.ID, "adv-site").is_displayed()
            site = Select(browser.find_element(By.ID, "adv-site"))
            assert len(site.options) == len(live.game.board.features["site_of_power"])
            points = browser.find_element(By.ID, "adv-points")
            points.clear()
            points.send_keys("3")
            browser.find_element(By.ID, "adv-enter").click()
            wait_for(lambda: len(live.store.entries(live.game_id)) == 2)
            entry = live.store.entries(live.game_id)[-1]
            assert entry["kind"] == "adventure" and entry["payload"] == {
                "player": current, "type": "mission", "points": 3, "site": site.first_selected_option.get_attribute("value")}
            assert live.store.entries(live.game_id)[0]["payload"] == {"value": 5}
        else:
            assert shown == {"declare", "renounce", "extra_turn"}
            declared = browser.find_element(By.ID, "declared")
            declared.clear()
            declared.send_keys("7")
            browser.find_element(By.ID, "declare").click()
            wait_for(lambda: live.store.entries(live.game_id))
            assert live.store.entries(live.game_id)[0]["payload"] == {"player": current, "armies": 7}
            browser.execute_script("window.confirm = () => true")
            browser.find_element(By.ID, "renounce").click()
            wait_for(lambda: said.text == f"{current} renounced continent bonuses recorded")
            assert current in live.game.table.renounced
    finally:
        server.shutdown()
        store.close()


def test_a_card_judged_on_a_settled_table_joins_the_rules_list_and_the_review(browser, dashboard):
    """The player in turn draws and nothing moves after: the camera's settled table judges the card;
    the Rules list shows it at once, and the review lists it as the camera's entry."""
    from selenium.webdriver.common.by import By
    live = dashboard
    for s in game_states(3):
        live.commit(s)
    drawer = live.game.current
    wait_for(lambda: live.game.current == drawer)
    browser.find_element(By.ID, "draw").click()
    said = browser.find_element(By.ID, "entry-said")
    wait_for(lambda: said.text == "card drawn recorded")
    assert live.table_settled(now=live.draw_entered + DRAW_GRACE_S)
    message = f"{drawer} drew a card without conquering a province"
    wait_for(lambda: any(message in li.text for li in browser.find_elements(By.CSS_SELECTOR, "#verdicts li")))
    first = browser.find_elements(By.CSS_SELECTOR, "#verdicts li")[0]
    assert message in first.text and "violation" in first.get_attribute("class").split()     # the newest first
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    after = browser.find_element(By.ID, "entries-after")
    wait_for(lambda: after.is_displayed() and len(after.find_elements(By.CSS_SELECTOR, "li.entry")) == 2)
    drawn, judged = after.find_elements(By.CSS_SELECTOR, "li.entry")
    assert drawn.text == f"tablet: {drawer} drew a card"
    assert judged.text.startswith("camera: the table stood still") and message in judged.text


def test_region_map_fitted_by_dragging_on_the_preview(browser, tmp_path):
    """Set-up tab: two drags from the drawn map to the printed board, then "fit the map"."""
    import cv2
    import numpy as np
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    from calibration.profile import CalibrationProfile, calibrate
    from tests.test_vision import PLAYERS as MARKERS, scene
    from vision.synth.board_art import procedural_art
    img, _, cal = scene()
    store = Store(tmp_path / "rec")
    live = LiveGame.open(store, PLAYERS, resume=False)
    live.profile, live.profile_path = calibrate(cal, procedural_art(), players=MARKERS), tmp_path / "cal.json"
    live.profile.save(live.profile_path)
    live.commit(game_states(1)[0], cv2.imencode(".jpg", img)[1].tobytes())
    _, server = serve(create_app(live), "127.0.0.1", 0)
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/")
        wait_for(lambda: browser.find_element(By.ID, "round").text.startswith("Round"))
        # the tab opened and the preview measured in one script, before it can have arrived: it
        # holds the camera frame's shape from the start, so the buttons under it keep their place
        width, height = browser.execute_script(
            "document.querySelector('nav button[data-tab=\"setup\"]').click();"
            "const box = document.getElementById('preview').getBoundingClientRect(); return [box.width, box.height];")
        assert width > 100 and height == pytest.approx(width * img.shape[0] / img.shape[1], abs=2)
        preview = browser.find_element(By.ID, "preview")
        wait_for(lambda: browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", preview))
        canvas = browser.find_element(By.ID, "anchors")
        scale = preview.size["width"] / browser.execute_script("return arguments[0].naturalWidth", preview)
        geo = live.profile.geometry
        for region in ("britannia", "aegyptus"):
            x, y = cv2.perspectiveTransform(np.float64([[geo.label_points[region]]]), live.profile.H)[0, 0]
            # from the drawn point to 12 preview pixels right of it (offsets from the canvas's centre)
            fx, fy = x * scale - preview.size["width"] / 2, y * scale - preview.size["height"] / 2
            ActionChains(browser).move_to_element_with_offset(canvas, int(fx), int(fy)).click_and_hold() \
                .move_by_offset(int(12 * scale), 0).release().perform()
        wait_for(lambda: browser.find_element(By.ID, "anchor-count").text == "2 drags")
        browser.find_element(By.ID, "fit-map").click()
        wait_for(lambda: "map fitted" in browser.find_element(By.ID, "fit-said").text)
        warp = CalibrationProfile.load(tmp_path / "cal.json").map_warp
        assert warp is not None, "nothing saved"
        # each dragged point now lies where the drag ended: 12 photo pixels right of where it was drawn
        # (to within the page's rounding of pixels, a few board units)
        for region in ("britannia", "aegyptus"):
            p = np.float64([[geo.label_points[region]]])
            end = cv2.perspectiveTransform(p, live.profile.H) + [12, 0]
            want = cv2.perspectiveTransform(end, np.linalg.inv(live.profile.H))[0, 0]
            got = cv2.perspectiveTransform(p, warp)[0, 0]
            assert np.hypot(*(got - want)) < 5 and np.hypot(*(got - p[0, 0])) > 10
        SHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SHOTS / "setup-map-fitted.png"))
    finally:
        server.shutdown()
        store.close()


def test_a_damaged_frame_is_said_so_not_drawn_grey(browser, dashboard):
    """A recorded frame cut short on disk: the review says so instead of showing a picture whose
    missing rows are grey (pieces that would seem gone), and the snapshot's state is still listed."""
    import cv2
    import numpy as np
    from selenium.webdriver.common.by import By
    live = dashboard
    rng = np.random.default_rng(3)
    ok, buf = cv2.imencode(".jpg", rng.integers(0, 256, (120, 160, 3), dtype=np.uint8))
    live.commit(game_states(1)[0], buf.tobytes()[:len(buf) // 2])
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#timeline button"))
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[0].click()
    wait_for(lambda: "damaged" in browser.find_element(By.CSS_SELECTOR, "#snap-a p.doubt").text)
    assert not browser.find_elements(By.CSS_SELECTOR, "#snap-a img")
    assert browser.find_elements(By.CSS_SELECTOR, "#snap-a li")


def test_a_setup_being_made_shows_its_progress_not_a_doubt_on_every_free_province(browser, dashboard):
    from selenium.webdriver.common.by import By
    from tests.test_webui import setup_order, setup_steps
    from tracker.state import ObservedState
    live = dashboard
    final = game_states(1)[0]
    steps = setup_steps(final)
    live.commit(steps[0])
    status = browser.find_element(By.ID, "round")
    wait_for(lambda: status.text.startswith("Set-up: 0 of 45 provinces taken · red to place a pair and a neutral group"))
    assert "red 0/9" in status.text and "black 0/9" in status.text
    assert outlined(browser) == set()          # every free province read at 0.15: no check asked
    # two placements read doubtfully: the one read as a placement leaves it needs no check (the
    # rules vouch for it), the one read three legionaries over does (one or two over, the rules
    # would take it at its placement's count)
    first, second = setup_order(final)[:2]
    d = steps[2].to_dict()
    d["regions"][second] = {final.owners[second]: {"legionary": final.legions[second] + 3}}
    d["confidence"].update({first: 0.5, second: 0.5})
    live.commit(ObservedState.from_dict(d))
    wait_for(lambda: status.text.startswith("Set-up: 2 of 45 provinces taken"))
    wait_for(lambda: outlined(browser) == {second})
    # in review, a step of the set-up says so (it has no turn)
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#timeline button"))
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[-1].click()
    wait_for(lambda: "set-up being made" in browser.find_element(By.CSS_SELECTOR, "#snap-a h2").text)


def test_a_disputed_region_is_shown_as_the_camera_saw_it(browser, dashboard, tmp_path):
    """The review shows a changed region enlarged in the frame before and in its own, and the
    correction dialog shows it in the camera's last frame: what a dispute over a count turns on."""
    import cv2
    from selenium.webdriver.common.by import By

    from calibration.profile import CalibrationProfile
    from tests.test_vision import calibrated_file_text, scene
    live = dashboard
    (tmp_path / "cal.json").write_text(calibrated_file_text())
    live.profile = CalibrationProfile.load(tmp_path / "cal.json")
    frame = cv2.imencode(".jpg", scene()[0])[1].tobytes()
    states = game_states(2)
    for s in states:
        live.commit(s, frame)
        time.sleep(0.15)

    def loaded(scope: str) -> list:
        return [e for e in browser.find_elements(By.CSS_SELECTOR, f"{scope} .closeups img")
                if browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", e)]
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#timeline button")) == 2)
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[-1].click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#snap-a li button.look"))
    # the frame keeps its place from the start: the buttons under it do not move as it loads (a
    # click on a button as the frame arrived landed on the frame: session 121's failure)
    height, width = scene()[0].shape[:2]
    shown = browser.find_element(By.CSS_SELECTOR, "#snap-a > img")
    assert (shown.get_dom_attribute("width"), shown.get_dom_attribute("height")) == (str(width), str(height))
    assert shown.size["height"] == pytest.approx(shown.size["width"] * height / width, abs=2)
    # each change reads in words, as a player says it, not as the recorded JSON
    pieces = r"(empty|\d+ [a-z]+ [a-z]+(, \d+ [a-z]+ [a-z]+)*)"
    changes = browser.find_elements(By.XPATH, "//div[@id='snap-a']//li[button[@class='look']]")
    assert changes
    for li in changes:
        assert re.match(rf"^[A-Z][A-Za-z ]+: {pieces} → {pieces}\b", li.text), li.text
    look = browser.find_elements(By.CSS_SELECTOR, "#snap-a li button.look")[0]
    region = look.get_attribute("data-region")
    # opened and measured in one script, before the close-ups can have arrived: each holds its
    # square from the start, so the changes listed under it do not slide as it loads
    measure = ("return [...document.querySelectorAll(arguments[0] + ' .closeups img')]"
               ".map(i => [i.getBoundingClientRect().width, i.getBoundingClientRect().height])")
    boxes = browser.execute_script("arguments[1].click();" + measure, "#snap-a", look)
    assert len(boxes) == 2 and all(w > 100 and h == pytest.approx(w, abs=1) for w, h in boxes), boxes
    wait_for(lambda: len(loaded("#snap-a")) == 2)
    captions = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#snap-a .closeups figcaption")]
    sids = [s.id for s in live.store.snapshots(live.game_id)]
    assert captions == [f"before · #{sids[0]}", f"this snapshot · #{sids[1]}"]
    assert loaded("#snap-a")[0].get_attribute("src").endswith(f"/api/snapshots/{sids[0]}/regions/{region}.jpg")
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / "review-close-up.png"))
    look.click()            # and closed again
    wait_for(lambda: not browser.find_elements(By.CSS_SELECTOR, "#snap-a .closeups"))
    # the correction dialog shows the region in the camera's last commit
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="live"]').click()
    boxes = browser.execute_script(f"document.getElementById('r-{region}').dispatchEvent(new MouseEvent('click'));"
                                   + measure, "#c-view")
    assert len(boxes) == 1 and boxes[0][0] > 100 and boxes[0][1] == pytest.approx(boxes[0][0], abs=1), boxes
    wait_for(lambda: browser.find_element(By.ID, "correct").is_displayed() and loaded("#c-view"))
    assert browser.find_element(By.CSS_SELECTOR, "#c-view figcaption").text == f"the camera's last commit · #{sids[1]}"
    browser.save_screenshot(str(SHOTS / "correct-close-up.png"))
    browser.find_element(By.CSS_SELECTOR, '#correct button[value="cancel"]').click()


def test_the_live_camera_frame_keeps_its_place_as_it_loads(browser, dashboard, tmp_path):
    """Shown from the live tab, the camera's frame takes its room at once, not when it arrives:
    the score track and, on a phone, the lists and forms under it would otherwise slide down
    under a player's finger as the frame loads."""
    import cv2
    from selenium.webdriver.common.by import By

    from calibration.profile import CalibrationProfile
    from tests.test_vision import calibrated_file_text, scene
    live = dashboard
    (tmp_path / "cal.json").write_text(calibrated_file_text())
    live.profile = CalibrationProfile.load(tmp_path / "cal.json")
    live.commit(game_states(1)[0], cv2.imencode(".jpg", scene()[0])[1].tobytes())
    wait_for(lambda: int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-updates") or 0) >= 1)
    # shown and measured in one script, before the browser can have fetched the frame
    width, height, src = browser.execute_script(
        "document.getElementById('toggle-camera').click(); const c = document.getElementById('camera');"
        "const box = c.getBoundingClientRect(); return [box.width, box.height, c.getAttribute('src')];")
    frame_h, frame_w = scene()[0].shape[:2]
    assert src.endswith("/overlay.jpg")
    assert width > 100 and height == pytest.approx(width * frame_h / frame_w, abs=2)
    camera = browser.find_element(By.ID, "camera")
    wait_for(lambda: browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", camera))
    assert camera.size["height"] == pytest.approx(height, abs=2)


def test_a_preview_with_no_camera_frame_yet_gives_its_room_back(browser, dashboard, tmp_path):
    """Calibrated, but no frame from the camera yet: the Set-up tab's preview has nothing to
    show, and the room kept for it goes rather than leaving a frame-sized hole."""
    from selenium.webdriver.common.by import By

    from calibration.profile import CalibrationProfile
    from tests.test_vision import calibrated_file_text
    live = dashboard
    (tmp_path / "cal.json").write_text(calibrated_file_text())
    live.profile = CalibrationProfile.load(tmp_path / "cal.json")
    live.commit(game_states(1)[0])          # a state, no frame
    wait_for(lambda: browser.find_element(By.ID, "round").text.startswith("Round"))
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="setup"]').click()
    preview = browser.find_element(By.ID, "preview")
    wait_for(lambda: browser.execute_script("return arguments[0].complete", preview))
    wait_for(lambda: preview.get_dom_attribute("width") is None)
    assert preview.size["height"] < 100


def test_on_a_touch_screen_an_event_s_confirm_and_reject_are_finger_sized_and_apart(browser, dashboard):
    """The tablet beside the board: a tap meant for "reject" must not land on "confirm". On a
    touch screen each is at least 44 pixels square (the usual least for a finger), the two stand
    apart, and they stay on one line together when the event's text wraps."""
    from selenium.webdriver.common.by import By
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    browser.refresh()
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#map path.region")) == 57)
    assert browser.execute_script("return matchMedia('(pointer: coarse)').matches")
    live = dashboard
    for s in game_states(4):
        live.commit(s, b"\xff\xd8\xff\xe0")
        time.sleep(0.15)
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#events li .decide")) >= 3)
    for pair in browser.find_elements(By.CSS_SELECTOR, "#events li .decide"):
        yes, no = pair.find_elements(By.TAG_NAME, "button")
        for b in (yes, no):
            assert b.size["width"] >= 44 and b.size["height"] >= 44, b.size
        assert yes.location["y"] == no.location["y"]
        assert no.location["x"] - (yes.location["x"] + yes.size["width"]) >= 8


def test_a_table_on_the_lan_asks_its_join_pin_once_in_a_dialog(browser, tmp_path):
    """Served with --lan, a change needs the table's join PIN: the first change asks for it in a
    dialog, a refused PIN is asked again saying so, a cancel sends nothing, and once accepted it
    is not asked again, not even after a reload."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    store = Store(tmp_path / "rec")
    live = LiveGame.open(store, PLAYERS, resume=False)
    _, server = serve(create_app(live, join_token="482913"), "127.0.0.1", 0)
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/")
        wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#map path.region")) == 57)
        dlg, said = browser.find_element(By.ID, "pin-dialog"), browser.find_element(By.ID, "entry-said")

        def answer(text: str | None) -> None:
            wait_for(dlg.is_displayed)
            if text is None:
                dlg.find_element(By.CSS_SELECTOR, 'button[value="cancel"]').click()
            else:
                browser.find_element(By.ID, "pin").send_keys(text)
                browser.find_element(By.ID, "pin-join").click()

        browser.find_element(By.ID, "draw").click()
        assert not browser.find_element(By.ID, "pin-wrong").is_displayed()
        answer(None)                                   # cancelled: nothing sent
        wait_for(lambda: not dlg.is_displayed())
        time.sleep(0.3)
        assert live.store.entries(live.game_id) == [] and not said.is_displayed()
        assert not [e for e in browser.get_log("browser") if "Uncaught" in e["message"]]   # a cancel is no error
        browser.find_element(By.ID, "draw").click()
        answer("111111")
        wait_for(lambda: dlg.is_displayed() and browser.find_element(By.ID, "pin-wrong").is_displayed())
        wait_for(dlg.is_displayed)
        browser.find_element(By.ID, "pin").send_keys("482913" + Keys.ENTER)     # Enter joins, as the button does
        wait_for(lambda: said.text == "card drawn recorded")
        assert not dlg.is_displayed()
        assert len(live.store.entries(live.game_id)) == 1
        browser.refresh()
        wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#map path.region")) == 57)
        browser.find_element(By.ID, "draw").click()
        wait_for(lambda: len(live.store.entries(live.game_id)) == 2)
        assert not browser.find_element(By.ID, "pin-dialog").is_displayed()
    finally:
        server.shutdown()
        store.close()


def test_a_tap_in_the_sea_beside_a_small_island_opens_the_island(browser, dashboard):
    """Corsica is 15 pixels wide on a tablet 1,280 wide: a finger that lands in the sea beside it
    opens Corsica's correction, and one on the province or sea farther off still opens that."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    dlg = browser.find_element(By.ID, "correct")
    svg = browser.find_element(By.ID, "map")

    def tap(x: float, y: float) -> str:
        """Tap the map at board point (x, y); the title of the correction it opens."""
        at = browser.execute_script(
            "const s = document.getElementById('map'), p = s.createSVGPoint(); p.x = arguments[0]; p.y = arguments[1];"
            "const q = p.matrixTransform(s.getScreenCTM()), r = s.getBoundingClientRect();"
            "return [q.x - (r.left + r.width / 2), q.y - (r.top + r.height / 2)];", x, y)
        ActionChains(browser).move_to_element_with_offset(svg, round(at[0]), round(at[1])).click().perform()
        wait_for(dlg.is_displayed)
        title = browser.find_element(By.ID, "correct-title").text
        dlg.find_element(By.CSS_SELECTOR, 'button[value="cancel"]').click()
        wait_for(lambda: not dlg.is_displayed())
        return title

    x, y, r = browser.execute_script("return geo.tap_targets.corsica")
    assert browser.execute_script("return document.getElementById('r-corsica').getBoundingClientRect().width") < 20
    assert browser.execute_script("return document.getElementById('tap-corsica').getBoundingClientRect().width") >= 40
    assert tap(x - 0.7 * r, y) == "Correct Corsica"        # in the sea, west of the island
    sea = browser.execute_script("return geo.names.sinus_gallicus")
    assert tap(x - r - 25, y) == f"Correct {sea}"           # farther off west: the sea itself
    ix, iy = browser.execute_script("return geo.label_points.italia")
    assert tap(ix, iy) == "Correct Italia"


def test_enter_in_a_dialog_s_field_does_what_the_dialog_is_for(browser, dashboard):
    """A count typed into the correction form and sent with Enter (a tablet keyboard's Go) is
    saved; it used to press the form's first button, Cancel, and the count was lost. Cancel
    itself still saves nothing."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    live = dashboard
    state = game_states(1)[0]
    live.commit(state)
    region = next(iter(state.owners))
    dlg = browser.find_element(By.ID, "correct")
    for key, saved in (("cancel", 0), (Keys.ENTER, 1)):
        wait_for(lambda: browser.execute_script("return !!(view && view.state)"))
        browser.execute_script(f"document.getElementById('r-{region}').dispatchEvent(new MouseEvent('click'))")
        wait_for(dlg.is_displayed)
        field = browser.find_element(By.ID, "c-legionary")
        field.clear()
        if key == "cancel":
            field.send_keys("7")
            dlg.find_element(By.CSS_SELECTOR, 'button[value="cancel"]').click()
        else:
            field.send_keys("7" + key)
        wait_for(lambda: not dlg.is_displayed())
        time.sleep(0.3)
        assert len(live.store.corrections(live.game_id)) == saved
    assert live.store.corrections(live.game_id)[0]["after"][state.owners[region]]["legionary"] == 7


def test_undo_names_the_correction_and_asks_first(browser, dashboard):
    """"Undo correction" takes a count back with one tap, next to the other entry buttons: it
    says which correction it would undo and asks; declined, nothing is undone."""
    from selenium.webdriver.common.by import By
    live = dashboard
    states = game_states(2)
    live.commit(states[0])
    region = next(iter(states[0].owners))
    colour = states[0].owners[region]
    live.correct(region, {colour: {"legionary": 9}})
    wait_for(lambda: browser.execute_script("return view && view.undo && view.undo.region") == region)
    name = live.game.board.name(region)
    for answer in ("false", "true"):
        browser.execute_script(f"window.confirm = (m) => {{ window.asked = m; return {answer}; }}")
        browser.find_element(By.ID, "undo").click()
        wait_for(lambda: browser.execute_script("return window.asked"))
        asked = browser.execute_script("const m = window.asked; window.asked = null; return m")
        assert asked.startswith(f"Undo the correction of {name} (") and f"→ 9 {colour} legionaries)?" in asked
        if answer == "false":
            time.sleep(0.5)
            assert len(live.store.corrections(live.game_id)) == 1          # declined: nothing undone
    wait_for(lambda: len(live.store.corrections(live.game_id)) == 2)
    wait_for(lambda: browser.find_element(By.ID, "entry-said").text.startswith(f"undone: the correction of {name}"))
    # nothing left: it says so, and asks nothing
    wait_for(lambda: browser.execute_script("return view.undo") is None)
    browser.find_element(By.ID, "undo").click()
    wait_for(lambda: browser.find_element(By.ID, "entry-said").text == "no correction to undo")
    assert browser.execute_script("return window.asked") is None


def test_a_recording_opened_for_review_shows_it_and_offers_no_change(browser, tmp_path):
    """``augur review`` serves a recording to settle a dispute: no camera, no table. The page says
    so, and hides what would change the game (it would only be refused): the Set-up tab, the
    entries, the event confirmations and the correction's Save. The review and the counts stay."""
    from selenium.webdriver.common.by import By
    store = Store(tmp_path / "rec")
    live = LiveGame.open(store, PLAYERS, resume=False)
    states = game_states(3)
    for s in states:
        live.commit(s, b"\xff\xd8\xff\xe0")
    _, server = serve(create_app(live, join_token="nobody-knows", review_only=True), "127.0.0.1", 0)
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/")
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#events li"))
        assert browser.find_element(By.ID, "review-only").is_displayed()
        assert "for review" in browser.find_element(By.ID, "review-only").text
        hidden = [browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="setup"]'), browser.find_element(By.ID, "cards-form")]
        hidden += browser.find_elements(By.CSS_SELECTOR, "#events li button")
        assert len(hidden) > 2 and not any(e.is_displayed() for e in hidden)
        owner = next(iter(states[-1].owners))
        browser.execute_script(f"document.getElementById('r-{owner}').dispatchEvent(new MouseEvent('click'))")
        wait_for(lambda: browser.find_element(By.ID, "correct").is_displayed())
        assert browser.find_element(By.ID, "correct-title").text == live.game.board.name(owner)
        assert not browser.find_element(By.ID, "c-save").is_displayed()
        assert not browser.find_element(By.ID, "c-legionary").is_enabled()
        close = browser.find_element(By.CSS_SELECTOR, '#correct button[value="cancel"]')
        assert close.text == "Close"
        close.click()
        browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
        wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#timeline button")) == 3)
        browser.find_elements(By.CSS_SELECTOR, "#timeline button")[-1].click()
        wait_for(lambda: "#" in browser.find_element(By.CSS_SELECTOR, "#snap-a h2").text)
        assert not store.corrections(live.game_id) and not any(store.decisions(s.id) for s in store.snapshots(live.game_id))
    finally:
        server.shutdown()
        store.close()


def test_a_live_table_offers_its_changes(browser, dashboard):
    """The same page at the table: no review notice, and the changes are there."""
    from selenium.webdriver.common.by import By
    assert not browser.find_element(By.ID, "review-only").is_displayed()
    assert browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="setup"]').is_displayed()
    assert browser.find_element(By.ID, "cards-form").is_displayed()


def test_an_earlier_game_of_the_evening_is_reviewed(browser, dashboard):
    """A table that played two games reviews the first one's snapshots from the Review tab."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    live = dashboard
    for s in game_states(3):
        live.commit(s)                  # as a replayed game file: no frames
    first = live.game_id
    live.restart(PLAYERS)
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-tab="review"]').click()
    wait_for(lambda: browser.find_element(By.ID, "review-game-label").is_displayed())
    pick = Select(browser.find_element(By.ID, "review-game"))
    assert [o.text.split(" · ")[0] for o in pick.options] == ["this game", f"game {first}"]
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#timeline button")) == 1)
    pick.select_by_value(str(first))
    earlier = [s.id for s in live.store.snapshots(first)]
    wait_for(lambda: [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#timeline button")] == [str(i) for i in earlier])
    browser.find_elements(By.CSS_SELECTOR, "#timeline button")[-1].click()
    wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#snap-a h2").text.startswith(f"#{earlier[-1]}"))
    assert browser.find_elements(By.CSS_SELECTOR, "#snap-a li")
    assert not browser.find_elements(By.CSS_SELECTOR, "#snap-a button.look")      # no frame to show a region in


def test_a_failed_browser_test_reports_what_its_page_showed(pytester, monkeypatch):
    """A browser test that fails prints the page's requests, with each answer's status, its images
    and its console with the failure (tests/browser_report.py): what a failure seen once on CI
    needs, since CI keeps nothing but the log."""
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[1]))
    monkeypatch.setenv("AUGUR_FAILURE_PAGES", str(pytester.path / "pages"))
    pytester.makepyfile(test_inner="""
        from tests.test_browser import browser, dashboard, wait_for

        def test_fails_on_purpose(browser, dashboard):
            browser.execute_script("console.error('a sign from the page');"
                                   "const i = new Image(); i.src = '/api/snapshots/999/regions/latium.jpg';"
                                   "document.body.appendChild(i);")
            wait_for(lambda: browser.execute_script("return document.images[document.images.length - 1].complete"))
            assert False, "on purpose"
    """)
    result = pytester.runpytest_subprocess("-p", "tests.browser_report", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "the browser when it failed" in out
    assert "/api/geometry" in out                                   # a request the page made
    assert any(" 404 " in line and "/api/snapshots/999/regions/latium.jpg" in line for line in out.splitlines())
    assert "broken  /api/snapshots/999/regions/latium.jpg" in out
    assert "a sign from the page" in out
    shot = pytester.path / "pages" / "test_fails_on_purpose.png"
    assert f"saved: {shot}" in out and shot.read_bytes().startswith(b"\x89PNG")
    assert "latium.jpg" in (pytester.path / "pages" / "test_fails_on_purpose.html").read_text()
