"""Tries to run code outside its seccomp filter: looks for every other process its /proc shows
(bubblewrap's reaper, the fork server) and opens its memory for writing, which would let it plant
code in a process that has no filter, and reads its status. In a user namespace every process of the
sandbox shares the bot's uid, so only the missing reaper (bwrap --as-pid-1), the fork server's
capability and ``hidepid=ptraceable`` stand in the way. Each decision reports what it reached and
plays an illegal action if it reached anything, so that a real table shows it as status "illegal"."""
import os


def reach():
    me = str(os.getpid())
    reached: dict[str, list[str]] = {}
    for pid in ["1", "2", "3"] + [p for p in os.listdir("/proc") if p.isdigit()]:
        if pid == me or pid in reached:
            continue
        for what, mode in (("mem", "r+b"), ("status", "rb")):
            try:
                with open("/proc/%s/%s" % (pid, what), mode):
                    reached.setdefault(pid, []).append(what)
            except OSError:
                pass
    return reached


def decide(message):
    reached = reach()
    action = {"type": "reached-another-process"} if reached else (message.get("options") or [{"type": "pass"}])[0]
    return {"id": message.get("id"), "action": action, "reached": reached,
            "listed": sorted(p for p in os.listdir("/proc") if p.isdigit())}


def act(message):
    kind = message.get("type")
    if kind == "decide":
        return decide(message)
    return {"type": "ready"} if kind == "hello" else None
