"""``fray play`` as a newcomer runs it: no token, a fresh folder, the page served on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import sys
import webbrowser
from pathlib import Path

import aiohttp
import pytest

from bot.playground.run import play, playground

WITHIN = 60.0


async def test_fray_play_demo_serves_the_page(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "play", "--port", "0", "--demo",
        cwd=tmp_path, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        first = (await asyncio.wait_for(proc.stdout.readline(), WITHIN)).decode()
        assert first.startswith("Fray playground: http://127.0.0.1:"), first
        url = first.split(": ", 1)[1].strip()
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WITHIN)) as http:
            async with http.get(url) as r:
                assert r.status == 200 and "<title>Fray playground</title>" in await r.text()
            async with http.get(url + "static/app.js") as r:
                assert r.status == 200 and r.content_type == "text/javascript"
            async with http.get(url, headers={"Host": "fray.example.com"}) as r:
                assert r.status == 403  # another site's page cannot reach it by DNS rebinding
            async with http.ws_connect(url + "ws") as ws:
                await ws.send_str("{}")
                gm_view = json.loads((await ws.receive(timeout=WITHIN)).data)
                assert [m["name"] for m in gm_view["members"]] == ["Greta", "Ash", "Bryn", "Cato"]
                assert {c["name"] for c in gm_view["channels"]} >= {"nyra", "kaernest", "d6", "side-fight"}
                assert {"encounter", "character", "attack"} <= {c["name"] for c in gm_view["commands"]}
                ash = next(m for m in gm_view["members"] if m["name"] == "Ash")
                await ws.send_str(json.dumps({"member": ash["id"]}))
                ash_view = json.loads((await ws.receive(timeout=WITHIN)).data)
            imported = [m for m in ash_view["messages"] if m["ephemeral"] and "Imported" in m["content"]]
            assert len(imported) == 3  # the demo: one character per system, each import answered privately
            assert not any(m["ephemeral"] for m in gm_view["messages"])  # Ash's replies are not the GM's
            async with http.post(
                url + "api/invoke",
                json={"member": ash["id"], "channel": gm_view["channels"][0]["id"], "command": "summon"},
            ) as r:
                assert "is not a command" in (await r.json())["refusal"]
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(proc.wait(), 20)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    errors = (await proc.stderr.read()).decode()
    assert proc.returncode == 0, errors[-2000:]
    assert "voice will NOT be supported" not in errors  # a newcomer's terminal shows no false alarm
    assert (tmp_path / "var" / "playground.db").is_file()
    assert not (tmp_path / "var" / "fray.db").exists() and not (tmp_path / "var" / "heartbeat").exists()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_play_serves_on_the_port_asked_and_opens_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    asked = asyncio.Event()

    def open_page(url: str) -> None:
        opened.append(url)
        asked.set()

    monkeypatch.setattr(webbrowser, "open", open_page)
    lines: list[str] = []
    port = free_port()
    database = tmp_path / "var" / "playground.db"
    task = asyncio.create_task(
        play(port=port, demo=False, open_page=True, database_path=database, say=lines.append)
    )
    waiting = asyncio.create_task(asked.wait())
    try:
        await asyncio.wait({task, waiting}, timeout=WITHIN, return_when=asyncio.FIRST_COMPLETED)
        assert opened == [f"http://127.0.0.1:{port}/"], task.done() and task.exception()
        assert lines[0] == f"Fray playground: http://127.0.0.1:{port}/"
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WITHIN)) as http:
            async with http.get(opened[0]) as r:
                assert r.status == 200
    finally:
        waiting.cancel()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert database.is_file()


async def test_sheets_survive_a_restart(tmp_path: Path) -> None:
    database = tmp_path / "var" / "playground.db"
    async with playground(database) as pg:
        ash, d6 = pg.table.players[0], pg.table.channels["d6"]
        created = await pg.fd.invoke(d6, ash, "character create", name="Quill")
        assert "created **Quill**" in created.text
    async with playground(database) as pg:  # the same server, channels and members: Quill is Ash's still
        ash, d6 = pg.table.players[0], pg.table.channels["d6"]
        listed = await pg.fd.invoke(d6, ash, "character list")
        assert "Quill" in listed.text
        bryn = pg.table.players[1]
        assert "Quill" not in (await pg.fd.invoke(d6, bryn, "character list")).text
