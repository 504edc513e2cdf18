#!/usr/bin/python3
# CPU in one C call of one Python function, in bursts with sleeps between,
# for test_continuous: the samples of a burst all have the same Python
# frames (digest's, in hashlib's C code for 30 ms at a time), the last one
# before the sleep too, and between bursts none is taken, so --continuous
# lets the record of those frames go, and the next burst must send it
# again. Usage: py_bursts.py BURSTS BURST_SECONDS SLEEP_SECONDS
import hashlib
import sys
import time


def digest():
    return hashlib.pbkdf2_hmac("sha256", b"flamebpf", b"salt", 100000)


def burst(seconds):
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        digest()


def main(bursts, burst_seconds, sleep_seconds):
    for i in range(bursts):
        burst(burst_seconds)
        if i + 1 < bursts:
            time.sleep(sleep_seconds)


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]))
