"""``fray play`` as a newcomer runs it: no token, a fresh folder, the page served on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import aiohttp

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
    assert proc.returncode == 0, (await proc.stderr.read()).decode()[-2000:]
    assert (tmp_path / "var" / "playground.db").is_file()
    assert not (tmp_path / "var" / "fray.db").exists() and not (tmp_path / "var" / "heartbeat").exists()
