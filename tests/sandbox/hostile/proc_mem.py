"""Tries to run code outside its seccomp filter: looks for every other process its /proc shows
(bubblewrap's reaper, the fork server) and opens its memory for writing, which would let it plant
code in a process that has no filter, and read its status. In a user namespace every process of the
sandbox shares the bot's uid, so only the missing reaper (bwrap --as-pid-1), the fork server's
capabilities and ``hidepid=ptraceable`` stand in the way. Reports what it reached."""
import os


def act(message):
    if message.get("type") == "hello":
        me = str(os.getpid())
        reached = {}
        for pid in ["1", "2", "3"] + [p for p in os.listdir("/proc") if p.isdigit()]:
            if pid == me or pid in reached:
                continue
            for what, mode in (("mem", "r+b"), ("status", "rb")):
                try:
                    with open("/proc/%s/%s" % (pid, what), mode):
                        reached.setdefault(pid, []).append(what)
                except OSError:
                    pass
        return {"reached": reached, "listed": sorted(p for p in os.listdir("/proc") if p.isdigit())}
    return {"action": (message.get("options") or [{"type": "pass"}])[0]}
