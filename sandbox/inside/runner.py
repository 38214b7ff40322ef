"""The trusted runner: executed inside the bot's process, never imported by the referee.

The referee sends the runner (as marshalled code objects, or as source for a different interpreter)
on the first stdin line; the bootstrap in ``argv`` (sandbox/boot.py) executes its parts in one
namespace, in the order ``RUNNER_PARTS`` there lists them, this main part last:

- sandbox/inside/output.py: the exit codes, writing to a descriptor, ending with a word on stderr;
- sandbox/inside/confine.py: the C functions ``os`` lacks, the uid, the rlimits, the seccomp filter;
- sandbox/inside/loader.py: the in-memory importer of the bundle and the bot, the bot's entry point;
- sandbox/inside/forks.py: the fork server and the keeper of each of its bots;
- this file: the boot line, the JSON codec, the order of the start-up and the requests loop.

A part names what it takes from the others in its ``TYPE_CHECKING`` imports, for the type checker; in
the bot's process those names are already in the namespace. The runner uses only the standard
library, and only cheap low-level modules (``_json``, ``_ctypes``, ``resource``): every import here is
paid at each bot start, before the bot's own imports.

Start-up sequence: read the boot line (JSON) -> keep private copies of the real stdin/stdout
and point fd 0 at /dev/null and fd 1 at stderr -> drop to the slot uid (strong tier) ->
parent-death signal -> rlimits -> no_new_privs + seccomp filter (strong tier) -> install the
in-memory importer -> (if asked) compile the bot and say its code -> import the bot -> find its
entry point -> write ``{"type":"ready"}`` ->
serve one reply line per ``hello``/``decide``. A bot in another language is a program: its file goes
into a memory file before the limits, and after the seccomp filter the runner says ready and
executes it (``_exec_program``).
"""
from __future__ import annotations

import binascii
import os
import sys

TYPE_CHECKING = False  # the type checker reads the imports below; the runner never pays for typing
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Callable, NoReturn

    from .confine import PR_SET_DUMPABLE, PR_SET_PDEATHSIG, SIGKILL, Libc, drop_to, install_seccomp, set_limits
    from .forks import INHERITED, serve_forks, warm_fork_server
    from .loader import entry_point, install_importer
    from .output import EXIT_BAD_BOOT, EXIT_BAD_BOT, die, write_all

    Loads = Callable[[str], Any]
    Dumps = Callable[[Any], str]

REPLY_TYPES = ("hello", "decide")


class _JsonCtx:
    """Settings object read by ``_json.make_scanner`` (the C scanner, without importing ``re``)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict[str, str] = {}

    @staticmethod
    def parse_constant(name: str) -> float:
        raise ValueError("non-standard JSON constant " + name)


def _json_codec() -> tuple[Loads, Dumps]:
    try:
        import _json
    except ImportError:  # an interpreter without the C accelerator
        import json

        def dumps_py(obj: object) -> str:
            return json.dumps(obj, separators=(",", ":"), allow_nan=False)

        return json.loads, dumps_py

    context: Any = _JsonCtx  # the C scanner reads these settings off any object; typeshed asks for a scanner
    scan = _json.make_scanner(context)

    def loads(text: str) -> Any:
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

    # its own copy of protocol.dumps's encoder: the runner starts before the bot's modules and imports nothing of
    # ours (a bot could shadow any module it would import), so it cannot share the protocol module's
    encode = _json.make_encoder({}, default, _json.encode_basestring, None, ":", ",", False, False, False)

    def dumps(obj: object) -> str:
        return "".join(encode(obj, 0))

    return loads, dumps


def main(stdin: BinaryIO) -> NoReturn:
    loads, dumps = _json_codec()
    try:
        boot = loads(stdin.readline().decode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - any bad boot line is the referee's fault
        die(EXIT_BAD_BOOT, "bad boot line: " + repr(exc))
    if boot.get("fork_server"):
        control = warm_fork_server(boot["control"], boot["modules"], boot.get("preload", ()), boot.get("seal_mounts"),
                                   boot.get("undumpable"), boot.get("parent"))
        write_all(1, b'{"type":"ready"}\n')
        serve_forks(control)  # returns only in a forked child, whose stdin now carries its bot's boot line
        child_in = open(0, "rb", buffering=0, closefd=False)
        line = bytearray()
        while not line.endswith(b"\n"):
            chunk = child_in.read(65536 if len(line) else 1)
            if not chunk:
                os._exit(EXIT_BAD_BOOT)
            line += chunk
        boot = loads(line.decode("utf-8"))
    _bot(boot, loads, dumps)


def _bot(boot: dict[str, Any], loads: Loads, dumps: Dumps) -> NoReturn:
    """Confine the process as ``boot`` says, then load the bot and serve it (or become its program)."""
    # The real protocol fds become private; the bot's print() and os.write(1) go to stderr.
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    sys.stdin = None

    libc = INHERITED.libc or Libc()
    uid = boot.get("uid")
    proc, INHERITED.proc = INHERITED.proc, None  # a fork server sealed the mounts already
    if boot.get("seal_mounts") and proc is None:
        try:
            proc = libc.seal_mounts()
        except OSError as exc:
            die(EXIT_BAD_BOOT, "sealing /proc and /dev: " + repr(exc))
    if uid is not None:
        drop_to(uid, boot["gid"])
    if boot.get("drop_caps"):
        try:
            libc.drop_capabilities(proc)
        except OSError as exc:
            die(EXIT_BAD_BOOT, "dropping capabilities: " + repr(exc))
    if proc is not None:
        os.close(proc)  # the bot has no /proc at all

    parent = boot.get("parent")
    if parent is not None:
        libc.prctl(PR_SET_PDEATHSIG, SIGKILL)
        if os.getppid() != parent:  # the referee died before the signal was armed
            os._exit(EXIT_BAD_BOOT)

    run = boot.get("program")
    if run is not None:  # its file, in memory: written now, before the file size limit is zero
        run["fd"] = os.memfd_create("bot", os.MFD_CLOEXEC)
        write_all(run["fd"], binascii.a2b_base64(run.pop("file")))
        os.lseek(run["fd"], 0, 0)  # an interpreter reads its script from the descriptor's offset

    lim = boot["limits"]
    # a core of a program is refused even where the host pipes cores to a helper (which ignores a limit
    # of 0, not the kernel's special value 1); a Python bot is made non-dumpable below
    set_limits(1 if run is not None else 0, lim["nofile"], lim["as"], lim.get("data"), lim.get("stack"), lim["cpu"],
               lim.get("cpu_hard", lim["cpu"] + 1), lim.get("nproc"))

    bpf = boot.get("seccomp")
    if bpf is not None:
        try:
            install_seccomp(libc, binascii.a2b_base64(bpf))
        except OSError as exc:
            die(EXIT_BAD_BOOT, "seccomp: " + repr(exc))

    if run is not None:
        _exec_program(run, proto_in, proto_out)
    libc.prctl(PR_SET_DUMPABLE, 0)  # no core of it, even piped to a host helper

    bot_name = boot["bot_module"]
    importer = INHERITED.importer or install_importer(boot["modules"])
    INHERITED.importer = None
    if boot.get("bot_code") is not None:
        importer.modules[bot_name] = [False, "code", boot["bot_code"]]
    elif boot.get("say_code") is not None:
        importer.modules[bot_name] = _say_code(boot["bot"], bot_name, boot["say_code"], proto_out)
    else:
        importer.modules[bot_name] = [False, "source", boot["bot"]]
    del boot

    try:
        module = __import__(bot_name)
        new_game = entry_point(module)
        act = new_game()
    except SystemExit:
        die(EXIT_BAD_BOT, "the bot exited during import")
    except BaseException:  # noqa: BLE001 - report any import failure and exit
        _report_and_exit("importing the bot failed")
    _serve(new_game, act, proto_in, proto_out, loads, dumps)


def _say_code(source: str, name: str, most: int, out: int) -> list[Any]:
    """Compile the bot, before any of its code runs, and say the code on the first line for the referee to
    send instead of the source next time: ``{"type":"code","code":BASE64}``, empty if it did not compile
    or its line would pass ``most`` bytes. The bundle entry of the compiled code (or of the source)."""
    import marshal

    try:
        code = compile(source, "<bundle:" + name + ">", "exec", dont_inherit=True)
        text = binascii.b2a_base64(marshal.dumps(code), newline=False)
    except BaseException:  # noqa: BLE001 - importing the source reports why
        code, text = None, b""
    if len(text) + 28 > most:
        text = b""
    write_all(out, b'{"type":"code","code":"' + text + b'"}\n')
    return [False, "source", source] if code is None else [False, "compiled", code]


def _serve(new_game: Callable[[], Callable[[Any], Any]], act: Callable[[Any], Any], proto_in: int, proto_out: int,
           loads: Loads, dumps: Dumps) -> NoReturn:
    """Say ready, then one reply line per ``hello`` and ``decide`` until the referee closes the pipe."""
    reader = open(proto_in, "rb", buffering=65536, closefd=True)
    write_all(proto_out, b'{"type":"ready"}\n')
    games = 0
    while True:
        line = reader.readline()
        if not line:
            os._exit(0)
        try:
            message = loads(line.decode("utf-8"))
            kind = message.get("type")
        except Exception as exc:  # noqa: BLE001
            die(EXIT_BAD_BOOT, "bad request from the referee: " + repr(exc))
        try:
            if kind == "hello":
                games += 1
                if games > 1:  # every game after the first gets a fresh bot object
                    act = new_game()
            result = act(message)
        except SystemExit:
            die(EXIT_BAD_BOT, "the bot called exit() in act()")
        except BaseException:  # noqa: BLE001
            _report_and_exit("act() raised on a %r message" % (kind,))
        if kind in REPLY_TYPES:
            try:
                data = dumps({} if result is None else result)
            except Exception as exc:  # noqa: BLE001
                die(EXIT_BAD_BOT, "reply is not JSON: " + repr(exc))
            write_all(proto_out, data.encode("utf-8") + b"\n")
        elif kind == "end":  # another game may follow in this process
            sys.stderr.flush()


def _exec_program(program: dict[str, Any], proto_in: int, proto_out: int) -> NoReturn:
    """Become the bot's program: ready is said now (its own start-up counts toward its first reply),
    the protocol pipes become its stdin and stdout, its file is descriptor 3, nothing else stays open."""
    write_all(proto_out, b'{"type":"ready"}\n')
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
        die(EXIT_BAD_BOOT, "cannot execute the bot's program " + repr(argv[0]) + ": " + repr(exc))


def _report_and_exit(what: str) -> NoReturn:
    try:
        import traceback

        text = traceback.format_exc()
    except BaseException:  # noqa: BLE001 - e.g. MemoryError while formatting
        text = repr(sys.exc_info()[1])
    die(EXIT_BAD_BOT, what + "\n" + text)


if __name__ == "__bohnanza_runner__":
    main(sys.stdin.buffer)  # the buffer the bootstrap read the runner's line from: it may hold what follows
