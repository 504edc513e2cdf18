#!/usr/bin/python3
# Three threads, each busy in a function of its own (spin_0, spin_1,
# spin_2) for test_python: each thread's samples must carry its own
# function. Prints "thread TID spin_K" for each. With "pool", the three
# run as tasks of a concurrent.futures.ThreadPoolExecutor of three workers.
# Usage: py_threads.py SECONDS [pool]
import concurrent.futures
import sys
import threading
import time


def spin(until):
    n = 0
    while time.monotonic() < until:
        n += sum(range(200))
    return n


def spin_0(until):
    return spin(until)


def spin_1(until):
    return spin(until)


def spin_2(until):
    return spin(until)


def run(f, until):
    # one write: print() writes the newline apart, which another thread's
    # line can come between
    sys.stdout.write("thread %d %s\n" % (threading.get_native_id(), f.__name__))
    sys.stdout.flush()
    f(until)


def main_pool(seconds):
    until = time.monotonic() + seconds
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        for f in (spin_0, spin_1, spin_2):
            pool.submit(run, f, until)


def main(seconds):
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=run, args=(f, until)) for f in (spin_0, spin_1, spin_2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    (main_pool if sys.argv[2:] == ["pool"] else main)(seconds)
