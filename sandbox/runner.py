"""The trusted runner: executed inside the bot's process, never imported by the referee.

The referee sends this file (as a marshalled code object, or as source for a different
interpreter) on the first stdin line; the bootstrap in ``argv`` executes it with the global
``STDIN`` (the buffered stdin). It must use only the standard library, and only cheap
low-level modules (``_json``, ``_ctypes``, ``resource``): every import here is paid at each
bot start, before the bot's own imports.

Start-up sequence: read the boot line (JSON) -> keep private copies of the real stdin/stdout
and point fd 0 at /dev/null and fd 1 at stderr -> drop to the slot uid (strong tier) ->
parent-death signal -> rlimits -> no_new_privs + seccomp filter (strong tier) -> install the
in-memory importer -> import the bot -> find its entry point -> write ``{"type":"ready"}`` ->
serve one reply line per ``hello``/``decide``. A bot in another language is a program: its file goes
into a memory file before the limits, and after the seccomp filter the runner says ready and
executes it (``_exec_program``).
"""
from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # the type checker reads the import below; the runner never pays for typing
if TYPE_CHECKING:
    from typing import Any

EXIT_BAD_BOT = 3  # import failed, no entry point, act raised, reply not serialisable
EXIT_BAD_BOOT = 4  # the referee sent something the runner cannot use (machine fault)

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MNT_DETACH = 2
CLONE_NEWPID = 0x20000000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2
SIGKILL = 9
REPLY_TYPES = ("hello", "decide")


def _die(code: int, text: str) -> None:
    try:
        os.write(2, ("runner: " + text + "\n").encode("utf-8", "replace"))
    finally:
        os._exit(code)


class _JsonCtx:
    """Settings object read by ``_json.make_scanner`` (the C scanner, without importing ``re``)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict = {}

    @staticmethod
    def parse_constant(name: str) -> float:
        raise ValueError("non-standard JSON constant " + name)


def _json_codec():  # -> (loads, dumps)
    try:
        import _json
    except ImportError:  # an interpreter without the C accelerator
        import json

        def dumps_py(obj: object) -> str:
            return json.dumps(obj, separators=(",", ":"), allow_nan=False)

        return json.loads, dumps_py

    scan = _json.make_scanner(_JsonCtx)

    def loads(text: str) -> object:
        text = text.strip(" \t\n\r")
        try:
            obj, end = scan(text, 0)
        except StopIteration:
            raise ValueError("not JSON") from None
        if end != len(text):
            raise ValueError("extra data after JSON value")
        return obj

    def default(obj: object) -> object:
        raise TypeError("not JSON serialisable: " + type(obj).__name__)

    encode = _json.make_encoder({}, default, _json.encode_basestring, None, ":", ",", False, False, False)

    def dumps(obj: object) -> str:
        return "".join(encode(obj, 0))

    return loads, dumps


def _prctl():  # -> (prctl(option, arg2, arg3), buffer(bytes) -> (keepalive, address))
    import _ctypes

    class c_int(_ctypes._SimpleCData):
        _type_ = "i"

    class c_ulong(_ctypes._SimpleCData):
        _type_ = "L"

    class c_char(_ctypes._SimpleCData):
        _type_ = "c"

    class Fn(_ctypes.CFuncPtr):
        _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
        _restype_ = c_int

    class Libc:
        _handle = _ctypes.dlopen(None, 2)  # the process's global symbols include libc

    fn = Fn(("prctl", Libc))
    fn.argtypes = (c_int, c_ulong, c_ulong, c_ulong, c_ulong)

    def prctl(option: int, arg2: int, arg3: int = 0) -> None:
        if fn(option, arg2, arg3, 0, 0) != 0:
            raise OSError(_ctypes.get_errno(), "prctl(%d) failed" % option)

    def buffer(data: bytes):  # -> (keepalive, address)
        class Buf(_ctypes.Array):
            _type_ = c_char
            _length_ = max(len(data), 1)

        buf = Buf.from_buffer_copy(data.ljust(1, b"\0"))
        return buf, _ctypes.addressof(buf)

    mount_fn = Fn(("mount", Libc))
    mount_fn.argtypes = (c_ulong, c_ulong, c_ulong, c_ulong, c_ulong)

    def remount(path: str, flags: int, options: bytes = b"") -> None:
        keep = [buffer(path.encode() + b"\0"), buffer(options + b"\0")]
        if mount_fn(0, keep[0][1], 0, flags, keep[1][1]) != 0:
            raise OSError(_ctypes.get_errno(), "remounting %s failed" % path)

    umount_fn = Fn(("umount2", Libc))
    umount_fn.argtypes = (c_ulong, c_int)

    def seal_mounts() -> int:
        """Take /proc away from the bot: a descriptor of it stays for the runner's own last check (its
        capabilities, read through ``self``), and the mount is detached. Nothing there is a bot's to
        read: not other processes (the fork server, whose counters of reaped children would carry data
        from one game to the next), not the machine-wide files (counters two bots could move and
        read), not its own ``pagemap`` (which pages of the shared libraries are in the page cache: a
        channel between sandboxes) nor its own ``mem`` (a program could rewrite its own code). Then
        make /dev read-only: its tmpfs (in a user namespace the bot owns it, and a file, a directory
        or a mode left there would reach the fork server's next child) and the device nodes bound
        from the host (their times and modes are the host's; the devices themselves still read and
        write). Needs root inside the sandbox: run before dropping to the slot uid or dropping
        capabilities."""
        remount("/proc", MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC, b"hidepid=ptraceable,subset=pid")
        proc = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        keep = buffer(b"/proc\0")
        if umount_fn(keep[1], MNT_DETACH) != 0:
            raise OSError(_ctypes.get_errno(), "detaching /proc failed")
        for name in os.listdir("/dev"):
            remount("/dev/" + name, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC)
        remount("/dev", MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        return proc

    capset_fn = Fn(("capset", Libc))
    capset_fn.argtypes = (c_ulong, c_ulong)

    def drop_capabilities(proc: int) -> None:
        """Empty the effective, permitted and inheritable sets (the ambient set follows): the root of
        a user namespace keeps no power over it, nor over the fork server beside it. Checked in its
        status, through ``proc`` (a descriptor of the sandbox's detached /proc)."""
        header = buffer(_LINUX_CAPABILITY_VERSION_3.to_bytes(4, sys.byteorder) + bytes(4))
        data = buffer(bytes(24))  # two 32-bit words of each set, all zero
        if capset_fn(header[1], data[1]) != 0:
            raise OSError(_ctypes.get_errno(), "capset failed")
        with open(os.open("self/status", os.O_RDONLY | os.O_CLOEXEC, dir_fd=proc)) as f:
            held = [line.split()[1] for line in f if line.startswith(("CapEff:", "CapPrm:", "CapAmb:"))]
        if len(held) != 3 or any(int(value, 16) for value in held):
            raise OSError(0, "capabilities left: %r" % held)

    unshare_fn = Fn(("unshare", Libc))
    unshare_fn.argtypes = (c_int,)

    def unshare_pid() -> None:
        """The calling process's next child is pid 1 of a new PID namespace."""
        if unshare_fn(CLONE_NEWPID) != 0:
            raise OSError(_ctypes.get_errno(), "unshare(CLONE_NEWPID) failed")

    prctl.unshare_pid = unshare_pid
    prctl.seal_mounts = seal_mounts
    prctl.drop_capabilities = drop_capabilities
    return prctl, buffer


class _Importer:
    """Meta-path finder and loader serving the bundle modules and the bot from memory."""

    def __init__(self, modules: dict, spec_type: type) -> None:
        self.modules = modules  # name -> [is_package, kind, payload]
        self.spec_type = spec_type

    def find_spec(self, name: str, path: object = None, target: object = None):
        entry = self.modules.get(name)
        if entry is None:
            return None
        return self.spec_type(name, self, is_package=bool(entry[0]))

    def create_module(self, spec: object) -> None:
        return None

    def exec_module(self, module) -> None:
        is_package, kind, payload = self.modules[module.__name__]
        filename = "<bundle:" + module.__name__ + ">"
        if kind == "code":
            import binascii
            import marshal

            code = marshal.loads(binascii.a2b_base64(payload))
        else:
            code = compile(payload, filename, "exec", dont_inherit=True)
        module.__file__ = filename
        exec(code, module.__dict__)


def _entry_point(module):  # -> callable making the act(message) of one game
    act = getattr(module, "act", None)
    if callable(act) and not isinstance(act, type):
        return lambda: act
    classes = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and getattr(value, "__module__", None) == module.__name__
        and getattr(value, "__bohnanza_bot__", False)
    ]
    if len(classes) != 1:
        names = ", ".join(sorted(c.__name__ for c in classes)) or "none"
        _die(
            EXIT_BAD_BOT,
            "no entry point: define a module-level act(message) or exactly one class with "
            "__bohnanza_bot__ (found: " + names + ")",
        )
    bot_class = classes[0]
    return lambda: bot_class().act


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def main(stdin) -> None:
    loads, dumps = _json_codec()
    try:
        boot = loads(stdin.readline().decode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - any bad boot line is the referee's fault
        _die(EXIT_BAD_BOOT, "bad boot line: " + repr(exc))
    if boot.get("zygote"):
        _zygote(boot, loads)  # returns only in a forked child, whose stdin now carries its bot's boot line
        child_in = open(0, "rb", buffering=0, closefd=False)
        line = bytearray()
        while not line.endswith(b"\n"):
            chunk = child_in.read(65536 if len(line) else 1)
            if not chunk:
                os._exit(EXIT_BAD_BOOT)
            line += chunk
        boot = loads(line.decode("utf-8"))
    _bot(boot, loads, dumps)


def _zygote(boot, loads) -> None:
    """Fork server: import the trusted bundle modules once, then fork a fresh child per bot per game.

    The template itself never runs bot code and never sees a bot's source: each child receives
    its own pipes (SCM_RIGHTS over the control socket, fd ``boot["control"]``), closes the control
    socket, and reads its bot's boot line from its own stdin. The child is a keeper that forks the bot
    into a PID namespace of its own (``_keeper``). For every fork the template reports the keeper's
    ``{"pid": ...}`` once the bot exists and, once it is gone, ``{"exit": status}``; one child at a time.
    """
    import _socket

    control = _socket.socket(fileno=boot["control"])
    importer = _install_importer(boot["modules"])
    for name in boot.get("preload", ()):
        __import__(name)
    import resource  # noqa: F401 - what every child needs, loaded once here

    _CHILD["ctypes"] = _prctl()
    if boot.get("seal_mounts"):
        try:
            _CHILD["proc"] = _CHILD["ctypes"][0].seal_mounts()
        except OSError as exc:
            _die(EXIT_BAD_BOOT, "sealing /proc and /dev: " + repr(exc))
    if boot.get("undumpable"):  # its children share its uid: none may open its memory through /proc
        _CHILD["ctypes"][0](PR_SET_DUMPABLE, 0)
    _write_all(1, b'{"type":"ready"}\n')
    while True:
        try:
            data, ancdata, _flags, _addr = control.recvmsg(1, _socket.CMSG_SPACE(3 * 4))
        except OSError:
            os._exit(0)
        if not data:
            os._exit(0)  # the referee closed the control socket
        fds = []
        for level, kind, payload in ancdata:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                fds += [int.from_bytes(payload[i:i + 4], sys.byteorder) for i in range(0, len(payload) - 3, 4)]
        if len(fds) != 3:
            _die(EXIT_BAD_BOOT, "fork request without three descriptors")
        forked_r, forked_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the keeper: in a PID namespace of its own, the bot is pid 1 and its pids are fresh
            control.close()
            os.close(forked_r)
            if _keeper(fds, forked_w):
                import random

                random.seed()  # the template's state is shared by every child: give each its own
                _CHILD["importer"] = importer
                return
        os.close(forked_w)
        for fd in fds:
            os.close(fd)
        os.read(forked_r, 1)  # end of file: the keeper forked the bot (or died)
        os.close(forked_r)
        control.sendall(b'{"pid":%d}\n' % pid)
        _, status = os.waitpid(pid, 0)
        control.sendall(b'{"exit":%d}\n' % os.waitstatus_to_exitcode(status))


def _keeper(fds: list, forked: int) -> bool:
    """Fork the bot into a new PID namespace (True in the bot, whose stdio become ``fds``), then wait
    for it and end as it ended (in the keeper, which never returns). Without it, every bot of a fork
    server would share one PID namespace, and the pids a bot's threads used would tell the next game
    of that fork server (another author's bot, maybe) whatever the bot wanted."""
    try:
        _CHILD["ctypes"][0].unshare_pid()
    except OSError as exc:
        _die(EXIT_BAD_BOOT, "a PID namespace for the bot: " + repr(exc))
    bot = os.fork()
    if bot == 0:
        os.close(forked)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        return True
    for fd in fds:
        os.close(fd)
    os.close(forked)
    _, status = os.waitpid(bot, 0)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # killed by a signal: so is its keeper, for the referee to read (with no core of its own)
        import signal

        _CHILD["ctypes"][0](PR_SET_DUMPABLE, 0)
        if -code != signal.SIGKILL:  # the one signal whose action is always the default
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


_CHILD: dict[str, Any] = {}


def _install_importer(modules: dict):
    import _frozen_importlib

    importer = _Importer(modules, _frozen_importlib.ModuleSpec)
    sys.meta_path.insert(0, importer)
    return importer


def _bot(boot, loads, dumps) -> None:
    # The real protocol fds become private; the bot's print() and os.write(1) go to stderr.
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    sys.stdin = None

    need_ctypes = (boot.get("seccomp") is not None or boot.get("parent") is not None or boot.get("seal_mounts")
                   or boot.get("drop_caps"))
    prctl: Any = None
    buffer: Any = None
    if need_ctypes:
        prctl, buffer = _CHILD.get("ctypes") or _prctl()

    uid, gid = boot.get("uid"), boot.get("gid")
    proc = _CHILD.pop("proc", None)  # a fork server sealed the mounts already
    if boot.get("seal_mounts") and proc is None:
        try:
            proc = prctl.seal_mounts()
        except OSError as exc:
            _die(EXIT_BAD_BOOT, "sealing /proc and /dev: " + repr(exc))
    if uid is not None:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid:
            _die(EXIT_BAD_BOOT, "could not drop to uid %d" % uid)
    if boot.get("drop_caps"):
        try:
            prctl.drop_capabilities(proc)
        except OSError as exc:
            _die(EXIT_BAD_BOOT, "dropping capabilities: " + repr(exc))
    if proc is not None:
        os.close(proc)  # the bot has no /proc at all

    parent = boot.get("parent")
    if parent is not None:
        prctl(PR_SET_PDEATHSIG, SIGKILL)
        if os.getppid() != parent:  # the referee died before the signal was armed
            os._exit(EXIT_BAD_BOOT)

    run = boot.get("program")
    if run is not None:  # its file, in memory: written now, before the file size limit is zero
        import binascii

        run["fd"] = os.memfd_create("bot", os.MFD_CLOEXEC)
        _write_all(run["fd"], binascii.a2b_base64(run.pop("file")))
        os.lseek(run["fd"], 0, 0)  # an interpreter reads its script from the descriptor's offset

    import resource

    lim = boot["limits"]
    for res, value in (
        # a core of a program is refused even where the host pipes cores to a helper (which ignores a
        # limit of 0, not the kernel's special value 1); a Python bot is made non-dumpable below
        (resource.RLIMIT_CORE, 1 if run is not None else 0),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_NOFILE, lim["nofile"]),
        (resource.RLIMIT_AS, lim["as"]),
        (resource.RLIMIT_MEMLOCK, 0),  # locked memory shows in machine-wide counters
    ):
        resource.setrlimit(res, (value, value))
    for res, key in ((resource.RLIMIT_DATA, "data"), (resource.RLIMIT_STACK, "stack")):
        if lim.get(key) is not None:
            resource.setrlimit(res, (lim[key], lim[key]))
    resource.setrlimit(resource.RLIMIT_CPU, (lim["cpu"], lim.get("cpu_hard", lim["cpu"] + 1)))
    if lim.get("nproc") is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (lim["nproc"], lim["nproc"]))

    bpf = boot.get("seccomp")
    if bpf is not None:
        import binascii

        program = binascii.a2b_base64(bpf)
        prog, prog_addr = buffer(program)
        # struct sock_fprog { unsigned short len; (6 bytes padding) struct sock_filter *filter; }
        fprog, fprog_addr = buffer(
            (len(program) // 8).to_bytes(2, sys.byteorder) + b"\0" * 6 + prog_addr.to_bytes(8, sys.byteorder)
        )
        try:
            prctl(PR_SET_NO_NEW_PRIVS, 1)
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog_addr)
        except OSError as exc:
            _die(EXIT_BAD_BOOT, "seccomp: " + repr(exc))
        del prog, fprog

    if run is not None:
        _exec_program(run, proto_in, proto_out)
    if prctl is not None:  # no core of it, even piped to a host helper
        prctl(PR_SET_DUMPABLE, 0)

    bot_name = boot["bot_module"]
    importer = _CHILD.pop("importer", None)
    if importer is None:
        importer = _install_importer(boot["modules"])
    importer.modules[bot_name] = [False, "source", boot["bot"]]
    del boot

    try:
        module = __import__(bot_name)
        new_game = _entry_point(module)
        act = new_game()
    except SystemExit:
        _die(EXIT_BAD_BOT, "the bot exited during import")
    except BaseException:  # noqa: BLE001 - report any import failure and exit
        _report_and_exit("importing the bot failed")

    reader = open(proto_in, "rb", buffering=65536, closefd=True)
    _write_all(proto_out, b'{"type":"ready"}\n')
    games = 0
    while True:
        line = reader.readline()
        if not line:
            os._exit(0)
        try:
            message = loads(line.decode("utf-8"))
            kind = message.get("type")
        except Exception as exc:  # noqa: BLE001
            _die(EXIT_BAD_BOOT, "bad request from the referee: " + repr(exc))
        try:
            if kind == "hello":
                games += 1
                if games > 1:  # every game after the first gets a fresh bot object
                    act = new_game()
            result = act(message)
        except SystemExit:
            _die(EXIT_BAD_BOT, "the bot called exit() in act()")
        except BaseException:  # noqa: BLE001
            _report_and_exit("act() raised on a %r message" % (kind,))
        if kind in REPLY_TYPES:
            try:
                data = dumps({} if result is None else result)
            except Exception as exc:  # noqa: BLE001
                _die(EXIT_BAD_BOT, "reply is not JSON: " + repr(exc))
            _write_all(proto_out, data.encode("utf-8") + b"\n")
        elif kind == "end":  # another game may follow in this process
            sys.stderr.flush()


def _exec_program(program, proto_in: int, proto_out: int) -> None:
    """Become the bot's program: ready is said now (its own start-up counts toward its first reply),
    the protocol pipes become its stdin and stdout, its file is descriptor 3, nothing else stays open."""
    _write_all(proto_out, b'{"type":"ready"}\n')
    os.dup2(proto_in, 0)
    os.dup2(proto_out, 1)
    if program["fd"] != 3:
        os.dup2(program["fd"], 3)
    os.set_inheritable(3, True)  # an interpreter reads its script there (dup2 onto itself keeps close-on-exec)
    os.closerange(4, 1 << 16)
    argv = program["argv"]
    try:
        if program["native"]:
            os.execve(3, argv, os.environ)
        os.execve(argv[0], argv, os.environ)
    except OSError as exc:
        _die(EXIT_BAD_BOOT, "cannot execute the bot's program " + repr(argv[0]) + ": " + repr(exc))


def _report_and_exit(what: str) -> None:
    try:
        import traceback

        text = traceback.format_exc()
    except BaseException:  # noqa: BLE001 - e.g. MemoryError while formatting
        text = repr(sys.exc_info()[1])
    _die(EXIT_BAD_BOT, what + "\n" + text)


if __name__ == "__bohnanza_runner__":
    main(STDIN)  # type: ignore[name-defined]  # noqa: F821 - provided by the bootstrap
