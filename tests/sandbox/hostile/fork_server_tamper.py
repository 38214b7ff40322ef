"""Tries to leave something behind for the next game or another sandbox (found by an attacker's review
of the user-namespace confinement): a file, a directory or a mode in /dev (a tmpfs the bot owns in a
user namespace, shared with the fork server's next child), the fork server's resource limits and
priority (inherited by its next child), the times and modes of the host's device nodes (one inode for
every sandbox), machine-wide counters (sysinfo) and big pipes (the uid's pipe pages). At the start it
looks for what an earlier game could have left. Each decision reports what worked and plays an
illegal action if anything did, so that a real table shows it as status "illegal"."""
import ctypes
import fcntl
import os
import resource

MARK = 0x5EC12E7DEADBEEF
F_SETPIPE_SZ = 1031


def attempt(fn):
    try:
        fn()
        return "ok"
    except OSError as exc:
        return f"error:{exc.errno}"


def _sysinfo():
    buf = ctypes.create_string_buffer(128)
    if ctypes.CDLL(None, use_errno=True).sysinfo(buf) != 0:
        raise OSError(ctypes.get_errno(), "sysinfo")


def _pipe_size():
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)
    finally:
        os.close(r)
        os.close(w)


def attacks():
    return {
        "dev-file": attempt(lambda: os.symlink("remember-me", "/dev/.memo")),
        "dev-dir": attempt(lambda: os.mkdir("/dev/.bit")),
        "dev-chmod": attempt(lambda: os.chmod("/dev", 0o755)),
        "device-mode": attempt(lambda: os.chmod("/dev/null", 0o666)),
        "device-time": attempt(lambda: os.utime("/dev/full", (1234567890, 1234567890))),
        "device-touch": attempt(lambda: os.utime("/dev/zero")),
        "parent-limit": attempt(lambda: resource.prlimit(1, resource.RLIMIT_RSS, (MARK, resource.RLIM_INFINITY))),
        "parent-nice": attempt(lambda: os.setpriority(os.PRIO_PROCESS, 1, 19)),
        "parent-cpus": attempt(lambda: os.sched_setaffinity(1, {0})),
        "sysinfo": attempt(_sysinfo),
        "big-pipe": attempt(_pipe_size),
    }


def controls():
    def write_null():
        with open("/dev/null", "wb") as f:
            f.write(b"x")

    def read_random():
        with open("/dev/urandom", "rb") as f:
            assert len(f.read(8)) == 8

    return {"write-null": attempt(write_null), "read-urandom": attempt(read_random)}


def remembered():
    return {"dev-entries": sorted(n for n in os.listdir("/dev") if n.startswith(".")),
            "rss-limit-marked": resource.getrlimit(resource.RLIMIT_RSS)[0] == MARK}


START = remembered()


def act(message):
    kind = message.get("type")
    if kind == "hello":
        return {"type": "ready"}
    if kind != "decide":
        return None
    done, ok = attacks(), controls()
    worked = [k for k, v in done.items() if v == "ok"] + (
        ["memory"] if START["dev-entries"] or START["rss-limit-marked"] else [])
    action = {"type": "tampered"} if worked else (message.get("options") or [{"type": "pass"}])[0]
    return {"id": message.get("id"), "action": action, "attacks": done, "controls": ok, "start": START}
