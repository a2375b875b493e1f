#!/usr/bin/python3
"""Runs a command in a pseudo-terminal and reads its screen through a real terminal emulator
(pyte), for the call screen's end-to-end tests and benchmarks.

    pty_screen.py COLUMNS ROWS COMMAND [ARG...]

Reads one request a line on stdin, answers one JSON line on stdout:
    {"keys": "m"}             type these characters (UTF-8) into the terminal
    {"resize": [cols, rows]}  resize the terminal (the child gets SIGWINCH)
    {"screen": true}          the screen: lines, cursor, and the terminal's state
    {"pid": true}             the child's process id
    {"output": true}          what the child wrote since the last such request, as text
    {"wait": SECONDS}         wait for the child to exit (at most SECONDS): its exit status or null
The screen answer also says whether the alternate screen is on (pyte keeps one buffer, so this is
read from the byte stream), whether the cursor is shown, whether the terminal echoes and edits
lines as a shell leaves it (ECHO, ICANON), and how many bytes the child wrote.
"""
import fcntl, json, os, pty, select, signal, struct, sys, termios, time

import pyte

columns, rows = int(sys.argv[1]), int(sys.argv[2])
command = sys.argv[3:]

pid, master = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm-256color"
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    os.execvp(command[0], command)

screen = pyte.Screen(columns, rows)
stream = pyte.ByteStream(screen)
state = {"alternate": False, "bytes": 0, "status": None, "tail": b"", "recent": b""}


def take(data):
    state["bytes"] += len(data)
    state["recent"] = (state["recent"] + data)[-1_000_000:]
    seen = state["tail"] + data
    on, off = seen.rfind(b"\x1b[?1049h"), seen.rfind(b"\x1b[?1049l")
    if on >= 0 or off >= 0:
        state["alternate"] = on > off
    state["tail"] = seen[-16:]
    stream.feed(data)


def pump(timeout):
    """Reads what the child wrote within `timeout` seconds; notes its exit."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        readable, _, _ = select.select([master], [], [], max(0, left))
        if readable:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if data:
                take(data)
                continue
        if state["status"] is None:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                state["status"] = os.waitstatus_to_exitcode(status)
        if left <= 0 or (not readable and state["status"] is not None):
            return


def answer(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    # A screen is read after what the child wrote in the last 50 ms; keys go at once.
    pump(0.05 if "screen" in request or "output" in request else 0)
    if "keys" in request:
        os.write(master, request["keys"].encode())
        answer({"ok": True})
    elif "resize" in request:
        cols, lines = request["resize"]
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", lines, cols, 0, 0))
        screen.resize(lines, cols)
        answer({"ok": True})
    elif "screen" in request:
        modes = termios.tcgetattr(master)
        answer({"lines": screen.display, "cursor": [screen.cursor.x, screen.cursor.y], "cursor_shown": not screen.cursor.hidden,
                "alternate": state["alternate"], "echo": bool(modes[3] & termios.ECHO), "icanon": bool(modes[3] & termios.ICANON),
                "bytes": state["bytes"], "status": state["status"], "title": screen.title})
    elif "pid" in request:
        answer({"pid": pid})
    elif "output" in request:
        answer({"output": state["recent"].decode("utf-8", "replace")})
        state["recent"] = b""
    elif "wait" in request:
        deadline = time.monotonic() + request["wait"]
        while state["status"] is None and time.monotonic() < deadline:
            pump(0.1)
        answer({"status": state["status"]})
pump(0.2)
if state["status"] is None:
    os.kill(pid, signal.SIGKILL)
