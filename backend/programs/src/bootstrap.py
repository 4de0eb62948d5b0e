# The trusted bootstrap of a VLab robot program (run with `python -I -S -B -c`, the
# program's folder as its argument). Before any of the student's code runs it closes
# inherited descriptors, asks for SIGKILL when the lab goes away, installs the second
# seccomp stage the lab compiled (no fork, no exec, signals only to itself), says so,
# reads the lab's hello, puts the `time` module on the lab's clock, then runs the
# program's main file with `vlab` importable.
import os
import sys

os.closerange(3, 65536)
_stdin = sys.stdin.buffer
_stdout = sys.stdout.buffer


def _say(line):
    _stdout.write(line.encode("utf-8") + b"\n")
    _stdout.flush()


def _refuse(message):
    _say('{"type":"sandbox_failed","message":' + __import__("json").dumps(message) + "}")
    os._exit(70)


import json
import ctypes

_preamble = json.loads(_stdin.readline() or "null") or _refuse("no sandbox preamble")
_libc = ctypes.CDLL(None, use_errno=True)
if _libc.prctl(1, 9, 0, 0, 0) != 0:  # PR_SET_PDEATHSIG, SIGKILL
    _refuse("prctl(PR_SET_PDEATHSIG) failed")
if os.getppid() != _preamble["parent"]:
    os._exit(71)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_raw = bytes.fromhex(_preamble["seccomp"])
_buffer = ctypes.create_string_buffer(_raw, len(_raw))
_program = _SockFprog(len(_raw) // 8, ctypes.cast(_buffer, ctypes.c_void_p))
if _libc.prctl(22, 2, ctypes.byref(_program), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
    _refuse("seccomp stage 2 could not be installed (errno %d)" % ctypes.get_errno())
del _raw, _buffer, _program, _preamble
_say('{"type":"sandboxed"}')

_folder = sys.argv[1]
_main = sys.argv[2]
_hello = json.loads(_stdin.readline() or "null")
if not _hello or _hello.get("type") != "hello":
    os._exit(72)

import random
import traceback

random.seed(_hello.get("seed", 0))
sys.path.insert(0, _folder)
sys.dont_write_bytecode = True
import vlab

_link = vlab._connect(_stdin, _stdout, _hello)
# The program's time is the lab's: time.sleep() waits in simulation time (answering
# the lab's steps meanwhile, so a sleeping program never holds the lab up) and
# time.time(), monotonic() and perf_counter() read the simulation clock.
vlab._install_clock(__import__("time"))
_out, _err = vlab._Console("print"), vlab._Console("stderr")
vlab._consoles.extend([_out, _err])
sys.stdout, sys.stderr = _out, _err
sys.stdin = None
_parachute = bytearray(4 * 1024 * 1024)


def _own_frames(tb):
    keep = []
    for frame in traceback.extract_tb(tb):
        path = frame.filename
        if path.startswith(_folder + "/") and os.path.basename(path) != "vlab.py":
            frame.filename = os.path.relpath(path, _folder)
            keep.append(frame)
    return keep


def _report(kind, error):
    text = "Traceback (most recent call last):\n"
    text += "".join(traceback.format_list(_own_frames(error.__traceback__)))
    if isinstance(error, SyntaxError) and error.filename and error.filename.startswith(_folder + "/"):
        error.filename = os.path.relpath(error.filename, _folder)
    text += "".join(traceback.format_exception_only(type(error), error))
    vlab._flush_consoles()
    _link.send({"type": "error", "kind": kind, "traceback": text.rstrip("\n"), "output": _link.take_output()})


_globals = {"__name__": "__main__", "__file__": os.path.join(_folder, _main), "__builtins__": __builtins__}
try:
    with open(os.path.join(_folder, _main), encoding="utf-8") as _source:
        _code = compile(_source.read(), os.path.join(_folder, _main), "exec")
    exec(_code, _globals)
except MemoryError as _error:
    _parachute = None
    _globals.clear()
    traceback.clear_frames(_error.__traceback__)
    _report("memory", _error)
    os._exit(1)
except SystemExit as _exit:
    vlab._flush_consoles()
    code = _exit.code if isinstance(_exit.code, int) else (0 if _exit.code is None else 1)
    if code == 0:
        _link.send({"type": "done", "output": _link.take_output()})
    else:
        _link.flush_output()
    os._exit(code)
except BaseException as _error:
    _report("exception", _error)
    os._exit(1)
vlab._flush_consoles()
_link.send({"type": "done", "output": _link.take_output()})
os._exit(0)
