"""The playground page in a real (headless) Chromium, as a newcomer uses it: the demo table, a character, a D6
fight with autocomplete, an attack, End turn, a private tracker and an edited message seen only by their
owner, the Kaernest tracker, the refusals Discord's client gives, a phone-sized window and a dropped
connection. Each step leaves a screenshot in ``var/screenshots/``."""

from __future__ import annotations

import re
from pathlib import Path

from bot.playground.run import Playground
from bot.playground.table import demo_sheet_file

STEP = 20_000  # ms: the longest any step may take (the bot answers in well under a second)


async def shot(page, screenshots: Path, name: str) -> None:
    await page.screenshot(path=str(screenshots / f"{name}.png"))


async def be(page, name: str) -> None:
    """Switch the member the page plays as."""
    await page.click(f'.member[data-member="{name}"]')
    await page.wait_for_selector(f'#you-are:has-text("You are {name}")', timeout=STEP)
    await page.wait_for_selector(f'.member.me[data-member="{name}"]', timeout=STEP)


async def channel(page, name: str) -> None:
    await page.click(f'.channel[data-channel="{name}"]')
    await page.wait_for_selector(f'#channel-name:text-is("{name}")', timeout=STEP)


async def send(page, line: str) -> None:
    """Type a whole command line and send it; waits until the box was accepted (cleared)."""
    await page.fill("#command", line)
    await submit(page)


async def submit(page) -> None:
    """Send what the box holds; waits until it was accepted (cleared)."""
    await page.click("#send")
    await page.wait_for_function("document.getElementById('command').value === ''", timeout=STEP)


async def choose(page, typed: str, suggestion: str) -> None:
    """Type ``typed`` into the box and pick the suggestion whose name starts with ``suggestion``."""
    await page.fill("#command", "")
    await page.type("#command", typed, delay=15)
    option = page.locator(".suggestion .s-name", has_text=re.compile(rf"^{re.escape(suggestion)}"))
    await option.first.wait_for(timeout=STEP)
    await option.first.click()


async def phone_width(page, entry, screenshots: Path, name: str) -> None:
    """A screenshot of ``entry`` in a phone-sized window, checking nothing is wider than the phone; then back."""
    size = page.viewport_size
    await page.set_viewport_size({"width": 390, "height": 844})
    # the sidebar folds away into the menu (a short slide)
    await page.wait_for_function(
        "document.getElementById('sidebar').getBoundingClientRect().right <= 0", timeout=STEP
    )
    await entry.scroll_into_view_if_needed()
    await shot(page, screenshots, name)
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is wider than the phone: {width}px"
    # a roll's dice are not broken over two lines
    dice = entry.locator(".dice")
    assert await dice.count() > 0
    assert await dice.evaluate_all("ds => ds.every(d => d.getClientRects().length === 1)")
    await page.set_viewport_size(size)


async def last_message(page, text: str):
    entry = page.locator(".entry", has_text=text).last
    await entry.wait_for(timeout=STEP)
    return entry


async def announcement_for(page, name: str):
    """The newest turn announcement, and whether it is ``name``'s turn."""
    entry = page.locator(".entry", has=page.locator('[data-custom-id^="fray:end-turn:"]')).last
    await entry.wait_for(timeout=STEP)
    # whose turn it is, not a name in its "Just now" recap
    return entry, f"it is {name}'s turn" in (await entry.inner_text())


async def test_a_first_d6_fight_in_the_browser(table: Playground, browser, screenshots: Path) -> None:
    page = await browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    await page.goto(table.url)
    await page.wait_for_selector('#you-are:has-text("You are Greta")', timeout=STEP)
    await channel(page, "d6")
    await last_message(page, "now the D6 campaign")  # the GM set the system at start
    await shot(page, screenshots, "01-start")

    # The demo table, from the page's button: every player has a character in every system.
    await page.click("#demo-button")
    await page.wait_for_selector('#demo-button:has-text("Demo table seated")', timeout=60_000)
    assert len(table.fd.interactions) >= 9

    # Ash creates a character of their own.
    await be(page, "Ash")
    await send(page, "/character create name:Vex")
    created = await last_message(page, "created Vex")
    assert "Ash used /character create" in await created.inner_text()
    await shot(page, screenshots, "02-character-created")

    # The GM opens the fight and adds two bandits, the template picked from the bot's autocomplete.
    await be(page, "Greta")
    await send(page, "/encounter start name:Ambush at the ford")
    await last_message(page, "Ambush at the ford")
    await choose(page, "/encounter add name:Bandit template:ban", "bandit")
    await page.type("#command", "count:2")
    await submit(page)
    await last_message(page, "Bandit 2")

    # Ash joins with Rook, chosen from the autocomplete of Ash's own characters (Vex is offered too).
    await be(page, "Ash")
    await page.type("#command", "/encounter join character:", delay=15)
    await page.locator(".suggestion .s-name", has_text="Vex").wait_for(
        timeout=STEP
    )  # Ash's own, from the bot
    await shot(page, screenshots, "03-autocomplete-join")
    await choose(page, "/encounter join character:", "Rook")
    await submit(page)
    await last_message(page, "Rook joined")

    await be(page, "Greta")
    await send(page, "/encounter begin")
    # The live tracker: one public message with the fight's embed, posted at begin and edited from then on.
    live = page.locator(".entry", has=page.locator(".message:not(.ephemeral) .embed"))
    await live.last.wait_for(timeout=STEP)
    live_id = await live.last.get_attribute("data-message")
    # The GM ends the bandits' turns (End turn on each announcement) until it is Rook's turn.
    for _ in range(6):
        entry, rooks = await announcement_for(page, "Rook")
        if rooks:
            break
        await entry.locator('[data-custom-id^="fray:end-turn:"]').click()
        await page.wait_for_timeout(300)
    else:
        raise AssertionError("Rook's turn never came")
    await shot(page, screenshots, "04-rooks-turn")

    # Ash attacks a bandit: the target from autocomplete, the turn locked in at once.
    await be(page, "Ash")
    await page.fill("#command", "")
    await choose(page, "/attack target:Ban", "Bandit 1")
    await page.type("#command", "lock:", delay=15)
    await page.locator(".suggestion .s-name", has_text="True").first.wait_for(timeout=STEP)
    await shot(page, screenshots, "05-boolean-option")
    await page.keyboard.press("Tab")  # picks the highlighted suggestion, as in Discord
    assert (await page.input_value("#command")).endswith("lock:True ")
    await submit(page)
    # The to-hit roll, outcome first, in Ash's own reply (Bandit 1's announcement recaps it under "Just now").
    resolution = page.locator(".entry", has_text="Rook attacks").filter(has_text="against save").last
    await resolution.wait_for(timeout=STEP)
    await shot(page, screenshots, "06-d6-turn")
    assert "Bandit 1" in await resolution.inner_text()
    await phone_width(page, resolution, screenshots, "06-d6-turn-phone")

    # With `lock` the turn ends by itself (RULES.md §4: a one-action turn is one command): it passes.
    assert "Rook's turn ends" in await resolution.inner_text()
    entry, rooks = await announcement_for(page, "Rook")
    assert not rooks
    # The attack changed the fight: the live tracker was edited in place, not posted again.
    tracker_of_fight = page.locator(f'.entry[data-message="{live_id}"]')
    await tracker_of_fight.locator(".edited").wait_for(timeout=STEP)
    assert await live.count() == 1
    # A message of only an embed is marked edited under the embed, not alone above it like a stray line.
    assert await tracker_of_fight.evaluate(
        "e => !!(e.querySelector('.embed').compareDocumentPosition(e.querySelector('.edited'))"
        " & Node.DOCUMENT_POSITION_FOLLOWING)"
    )

    # The GM presses End turn on Bandit 1's announcement: Bandit 2's turn, and the tracker edited again.
    await be(page, "Greta")
    entry, bandit_1s = await announcement_for(page, "Bandit 1")
    assert bandit_1s
    await entry.locator('[data-custom-id^="fray:end-turn:"]').click()
    await page.locator(".entry", has_text="it is Bandit 2's turn").last.wait_for(timeout=STEP)
    await tracker_of_fight.filter(has_text="Turn: Bandit 2").wait_for(timeout=STEP)
    assert await live.count() == 1
    await shot(page, screenshots, "07-end-turn")
    await be(page, "Ash")
    # drawn again for Ash: each answer still says which button was pressed, though its announcement lost it
    await page.get_by_text("Greta pressed End turn").last.wait_for(timeout=STEP)
    assert await page.get_by_text("pressed a button").count() == 0

    # Status: the tracker, privately (only Ash sees it).
    await page.locator('.entry [data-custom-id^="fray:status:"]').last.click()
    tracker = page.locator(".entry", has=page.locator(".message.ephemeral .embed")).last
    await tracker.wait_for(timeout=STEP)
    tracker_id = await tracker.get_attribute("data-message")
    assert "Rook" in await tracker.inner_text() and "Only you can see this" in await tracker.inner_text()
    await shot(page, screenshots, "08-private-tracker")

    # A message edited in place: Ash asks to delete Vex (picked by autocomplete), then presses Keep.
    await choose(page, "/character delete character:Ve", "Vex")
    await submit(page)
    question = await last_message(page, "asked to delete")
    question_id = await question.get_attribute("data-message")
    await question.locator(".btn", has_text="Keep").click()
    edited = page.locator(f'.entry[data-message="{question_id}"]')
    await edited.locator(".edited").wait_for(timeout=STEP)
    assert await edited.locator(".btn").count() == 0
    await shot(page, screenshots, "09-edited-in-place")

    # Bryn sees the fight and the edited question, but not Ash's private tracker; back as Ash, it is there.
    await be(page, "Bryn")
    await page.locator(f'.entry[data-message="{question_id}"] .edited').wait_for(timeout=STEP)
    assert await page.locator(f'.entry[data-message="{tracker_id}"]').count() == 0
    private = await page.locator(".entry", has=page.locator(".message.ephemeral")).all_inner_texts()
    assert private and all("Bryn used" in text for text in private), private  # Bryn's own import replies
    await shot(page, screenshots, "10-bryn-sees-no-private")
    await be(page, "Ash")
    await page.locator(f'.entry[data-message="{tracker_id}"]').wait_for(timeout=STEP)

    # What Discord's client refuses never reaches the bot.
    sent = len(table.fd.interactions)
    await page.fill("#command", "/summon dragon")
    await page.click("#send")
    await page.wait_for_selector('#client-note:has-text("/summon is not a command")', timeout=STEP)
    await page.fill("#command", "/encounter join side:left flavour:grim")
    await page.click("#send")
    await page.wait_for_selector('#client-note:has-text("has no option flavour")', timeout=STEP)
    await page.fill("#command", "/encounter log count:many")
    await page.click("#send")
    await page.wait_for_selector('#client-note:has-text("count must be a whole number")', timeout=STEP)
    assert len(table.fd.interactions) == sent
    await shot(page, screenshots, "11-refusal")

    # The page's connection drops: it reconnects and shows the same channel (the state is the bot's).
    count = await page.locator(".entry").count()
    await page.evaluate("state.socket.close()")
    await page.wait_for_selector('.connection:has-text("reconnecting")', timeout=STEP)
    await page.wait_for_function(
        f"document.querySelectorAll('.entry').length === {count} && !document.querySelector('.connection.down')",
        timeout=STEP,
    )
    assert not errors, errors


async def test_the_kaernest_tracker_on_a_phone(table: Playground, browser, screenshots: Path) -> None:
    await table.seat_demo()
    page = await browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    await page.goto(table.url)
    await page.wait_for_selector('#you-are:has-text("You are Greta")', timeout=STEP)
    await page.click("#menu-toggle")
    await channel(page, "kaernest")
    await send(page, "/encounter start name:Courtyard")
    await choose(page, "/encounter add name:Guard template:", "Town Guard")
    await submit(page)
    await last_message(page, "Guard")
    for member, character in (("Ash", "Izuki"), ("Bryn", "Mico")):
        await page.click("#menu-toggle")
        await be(page, member)
        await send(page, f"/encounter join character:{character}")
        await last_message(page, character)
    await page.click("#menu-toggle")
    await be(page, "Greta")
    await send(page, "/encounter begin")
    await send(page, "/encounter status")
    tracker = page.locator(".entry", has=page.locator(".embed")).last
    await tracker.wait_for(timeout=STEP)
    text = await tracker.inner_text()
    assert all(name in text for name in ("Izuki", "Mico", "Guard")), text
    await tracker.scroll_into_view_if_needed()
    await shot(page, screenshots, "12-kaernest-tracker-phone")
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is wider than the phone: {width}px"

    # Cato brings a sheet of their own: /character import, the file picked with the paperclip.
    await page.click("#menu-toggle")
    await be(page, "Cato")
    await page.fill("#command", "/character import ")
    async with page.expect_file_chooser(timeout=STEP) as chosen:
        await page.click("#attach")
    filename, data, kind = demo_sheet_file("kaernest", "Oren", "Knight")
    await (await chosen.value).set_files({"name": filename, "mimeType": kind, "buffer": data})
    await page.wait_for_selector(f'#files .picked:has-text("{filename}")', timeout=STEP)
    await submit(page)
    imported = await last_message(page, "Imported")
    assert "Oren" in await imported.inner_text() and "Only you can see this" in await imported.inner_text()
    await shot(page, screenshots, "14-import-with-the-paperclip")

    await page.set_viewport_size({"width": 1280, "height": 860})
    await tracker.scroll_into_view_if_needed()
    await shot(page, screenshots, "13-kaernest-tracker-desktop")
    assert not errors, errors
