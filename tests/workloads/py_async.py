#!/usr/bin/python3
# CPU in known shares under asyncio for test_python: two tasks gathered,
# one running crunch (~30%), the other outer (~10% of its own) awaiting
# the nested coroutine inner (~60%). Each burns a slice of CPU, then
# yields to the event loop (asyncio.sleep(0)), so the two tasks take
# turns. The CPU each coroutine burnt is measured here
# (time.process_time) and printed at the end, the truth the profile is
# checked against. Usage: py_async.py SECONDS
import asyncio
import sys
import time

SLICE = 0.010  # CPU seconds a round: 3 ms crunch, 1 ms outer, 6 ms inner
spent = {"crunch": 0.0, "outer": 0.0, "inner": 0.0}


def burn(until):
    n = 0
    while time.process_time() < until:
        n += sum(range(100))
    return n


async def inner(until):
    t = time.process_time()
    burn(t + SLICE * 0.6)
    spent["inner"] += time.process_time() - t
    await asyncio.sleep(0)


async def outer(until):
    while time.monotonic() < until:
        t = time.process_time()
        burn(t + SLICE * 0.1)
        spent["outer"] += time.process_time() - t
        await inner(until)


async def crunch(until):
    while time.monotonic() < until:
        t = time.process_time()
        burn(t + SLICE * 0.3)
        spent["crunch"] += time.process_time() - t
        await asyncio.sleep(0)


async def main(seconds):
    until = time.monotonic() + seconds
    start = time.process_time()
    await asyncio.gather(crunch(until), outer(until))
    total = time.process_time() - start
    print("py_async: crunch %.3f outer %.3f inner %.3f total %.3f"
          % (spent["crunch"], spent["outer"], spent["inner"], total), flush=True)


if __name__ == "__main__":
    asyncio.run(main(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0))
