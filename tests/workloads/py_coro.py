"""Coroutines for `-f py:` (test_py_trace): main gathers 10 mids, each
awaiting leaf twice, and leaf yields to the event loop once.

py_coro.py           runs it
py_coro.py cprofile  runs it under cProfile and prints, as JSON, how many
                     calls Python's own profiler counted of each (a
                     coroutine's start and each resume after an await are
                     calls to it, as they are to -f py:)
"""
import asyncio
import json
import sys


async def leaf(i):
    await asyncio.sleep(0)
    return i


async def mid(i):
    return await leaf(i) + await leaf(i)


async def main():
    await asyncio.gather(*(mid(i) for i in range(10)))


if len(sys.argv) > 1 and sys.argv[1] == "cprofile":
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    asyncio.run(main())
    prof.disable()
    counts = {name: v[0] for (f, _, name), v in pstats.Stats(prof).stats.items()
              if f == __file__ and name in ("leaf", "mid", "main")}
    print(json.dumps(counts), flush=True)
else:
    asyncio.run(main())
