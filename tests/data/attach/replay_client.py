#!/usr/bin/env python3
"""Plays the part of the injected library for `bankbench attach` tests without a GPU.

usage: replay_client.py MESSAGES.jsonl [EXIT_CODE]

MESSAGES.jsonl holds what libbankbench-inject.so sent in a real attach (a `device` message, then
one `launch` per profiled launch, values as measured). This program connects to the socket
bankbench names in BANKBENCH_ATTACH_SOCKET and speaks the protocol as the library does: `hello`,
then for each launch an `ask`, and the `device` message before the first granted launch and the
`launch` message only where bankbench said to profile; at the end a `summary` of every launch.
It prints what it was told and exits with EXIT_CODE (default 0).

As the library does, it sends RANK as its rank, and under --target-processes application-only a
process other than the program's first says hello unfollowed and stops there. REPLAY_ERROR=KIND:TEXT
sends the error the library sends when it cannot profile (kind environment, usage or internal)
instead of any launch. REPLAY_PAUSE=SECONDS waits that long after hello.
"""
import json
import os
import socket
import sys
import time


def main():
    messages = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    device = next(m for m in messages if m["type"] == "device")
    launches = [m for m in messages if m["type"] == "launch"]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.environ["BANKBENCH_ATTACH_SOCKET"])
    reader = s.makefile("r")

    def send(m):
        s.sendall((json.dumps(m) + "\n").encode())

    settings = json.loads(os.environ["BANKBENCH_ATTACH_SETTINGS"])
    followed = not settings["application_only"] or os.environ.get("BANKBENCH_ATTACH_ROOT_PID") == str(os.getpid())
    send({"type": "hello", "pid": os.getpid(), "parent": os.getppid(), "rank": os.environ.get("RANK", ""),
          "followed": followed})
    if not followed:
        print("replay_client: not followed")
        return 0
    time.sleep(float(os.environ.get("REPLAY_PAUSE", "0")))
    if os.environ.get("REPLAY_ERROR"):
        kind, text = os.environ["REPLAY_ERROR"].split(":", 1)
        send({"type": "error", "kind": kind, "message": text})
        return 0
    sent_device, granted, counts = False, [], {}
    for m in launches:
        counts[m["kernel"]] = counts.get(m["kernel"], 0) + 1
        send({"type": "ask", "kernel": m["kernel"], "ordinal": m["ordinal"]})
        answer = json.loads(reader.readline())
        if answer["profile"]:
            if not sent_device:
                send(device)
                sent_device = True
            send(m)
            granted.append(f'{m["kernel"]}#{m["ordinal"]}')
    send({"type": "summary", "launches": counts, "graph_launches": 0, "captured": 0})
    print("replay_client: profiled " + " ".join(granted))
    return int(sys.argv[2]) if len(sys.argv) > 2 else 0


if __name__ == "__main__":
    sys.exit(main())
