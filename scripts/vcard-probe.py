#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Breaks jackd's wake-up on the virtual card down into the card's hops, from the event file of a
probe build of the card (cmake -DXRUNLAB_VCARD_PROBE=ON, XRUNLAB_VCARD_PROBE=FILE in jackd's
environment; clients/card/vcard_pcm.cpp, "probe").

Usage: scripts/vcard-probe.py FILE [RATE=48000] [PERIOD=256]

For every period boundary B (m * PERIOD / RATE s of CLOCK_MONOTONIC) it takes the card's first
playback and capture poll_revents at or after B and the calls within [B, B + one period), and
prints the distribution (usecs) of
  B -> playback poll_revents   the first card callback after jackd's poll() returned
  playback -> capture revents  alsa-lib and the card between the two streams' callbacks
  B -> capture poll_revents    where the card's record took jackd's wake-up with one timer per
                               stream (with shared_timer 1 the record takes the round's first
                               callback, i.e. the playback one)
  timerfd_settime              the time of one call
and, per period, the number of timerfd_settime calls, of poll_revents calls per stream and of
poll rounds (playback poll_descriptors calls), and how often jackd entered poll() after B.
"""
import sys

KIND_PD, KIND_REV, KIND_ARM, KIND_ARMED = 0, 1, 2, 3


def boundary_ns(m, rate, period):
    return -(-(m * period * 1000000000) // rate)


def boundary_index(t, rate, period):
    return t * rate // (period * 1000000000)


def pct(values, p):
    if not values:
        return None
    v = sorted(values)
    k = max(0, min(len(v) - 1, -(-len(v) * p // 100) - 1))
    return v[int(k)]


def line(name, values, unit=1000.0):
    if not values:
        print(f"| {name} | - | - | - | - | 0 |")
        return
    vs = [x / unit for x in values]
    print(f"| {name} | {pct(vs, 50):.1f} | {pct(vs, 99):.1f} | {pct(vs, 99.9):.1f} | "
          f"{max(vs):.1f} | {len(vs)} |")


def main():
    path = sys.argv[1]
    rate = int(sys.argv[2]) if len(sys.argv) > 2 else 48000
    period = int(sys.argv[3]) if len(sys.argv) > 3 else 256
    events = []
    with open(path) as f:
        for row in f:
            k, s, t, a = row.split()
            events.append((int(t), int(k), int(s), int(a)))
    events.sort(key=lambda e: (e[0]))
    per = {}  # m -> dict
    arm_cost = []
    last_arm = {}
    for t, k, s, a in events:
        m = boundary_index(t, rate, period)
        d = per.setdefault(m, {"rev": [None, None], "nrev": [0, 0], "arms": 0, "pd": [0, 0],
                               "pd_first": [None, None]})
        if k == KIND_REV:
            if d["rev"][s] is None:
                d["rev"][s] = t
            d["nrev"][s] += 1
        elif k == KIND_PD:
            d["pd"][s] += 1
            if d["pd_first"][s] is None:
                d["pd_first"][s] = t
        elif k == KIND_ARM:
            d["arms"] += 1
            last_arm[s] = t
        elif k == KIND_ARMED and s in last_arm:
            arm_cost.append(t - last_arm.pop(s))
    ms = sorted(per)[20:-20]  # start-up and tear-down left out
    to_play, play_to_cap, to_cap = [], [], []
    arms, nrev_p, nrev_c, rounds = [], [], [], []
    for m in ms:
        d = per[m]
        b = boundary_ns(m, rate, period)
        p, c = d["rev"]
        if p is not None:
            to_play.append(p - b)
        if c is not None:
            to_cap.append(c - b)
        if p is not None and c is not None:
            play_to_cap.append(c - p)
        arms.append(d["arms"])
        nrev_p.append(d["nrev"][0])
        nrev_c.append(d["nrev"][1])
        rounds.append(d["pd"][0] if d["pd"][0] else d["pd"][1])
    print(f"{path}: {len(ms)} periods, {len(events)} events")
    print()
    print("| hop (usecs) | p50 | p99 | p99.9 | max | n |")
    print("|---|---|---|---|---|---|")
    line("boundary -> playback poll_revents", to_play)
    line("playback -> capture poll_revents", play_to_cap)
    line("boundary -> capture poll_revents", to_cap)
    line("one timerfd_settime call", arm_cost)
    print()

    def hist(name, xs):
        counts = {}
        for x in xs:
            counts[x] = counts.get(x, 0) + 1
        print(f"{name}: " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    hist("timerfd_settime calls per period", arms)
    hist("playback poll_revents calls per period", nrev_p)
    hist("capture poll_revents calls per period", nrev_c)
    hist("poll rounds (poll_descriptors calls) per period", rounds)


if __name__ == "__main__":
    main()
