#!/usr/bin/python3
# A sub-interpreter busy in a thread for test_python: the thread creates
# an interpreter of its own (_xxsubinterpreters, CPython 3.11) and runs
# sub_spin in it, called from the thread's in_sub, while the main thread
# waits for it (in 3.11 a thread of another interpreter waiting for the
# GIL does not make the main interpreter's threads drop it: a spinning
# main thread would starve it). Prints "sub TID" for the thread. With
# AFTER, the thread then spins AFTER seconds more in after_sub, back in
# the main interpreter, the sub-interpreter destroyed. Usage:
# py_subinterp.py SECONDS [AFTER]
import _xxsubinterpreters as interpreters
import sys
import threading
import time

CODE = """
import time


def sub_spin(until):
    n = 0
    while time.monotonic() < until:
        n += sum(range(200))
    return n


sub_spin(%r)
"""


def after_sub(until):
    n = 0
    while time.monotonic() < until:
        n += sum(range(200))
    return n


def in_sub(until, after):
    sys.stdout.write("sub %d\n" % threading.get_native_id())
    sys.stdout.flush()
    interp = interpreters.create()
    interpreters.run_string(interp, CODE % until)
    interpreters.destroy(interp)
    if after:
        after_sub(time.monotonic() + after)


def main(seconds, after):
    until = time.monotonic() + seconds
    thread = threading.Thread(target=in_sub, args=(until, after))
    thread.start()
    thread.join()


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0,
         float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)
