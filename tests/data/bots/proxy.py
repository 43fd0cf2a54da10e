"""A bot for the tests of `bot:CMD`: it forwards each request line to a real bot (the command
after its two arguments, such as `ddz bot --agent rule`) and that bot's answer back, except on
every N-th request, where it misbehaves as MODE says:

  crash     exits with status 3 after a word on stderr
  nonsense  answers a line that is not JSON
  illegal   answers a play that is never legal here ("2222BR")
  sleep     answers nothing for a minute
  mismatch  answers {"mismatch": ...}: the game left its rules
  none      never misbehaves

Usage: python3 proxy.py MODE N CMD...
"""
import json
import subprocess
import sys
import time


def main() -> None:
    mode, every, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    inner = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for count, line in enumerate(sys.stdin, start=1):
        if mode != "none" and count % every == 0:
            if mode == "crash":
                print(f"crashing on purpose at request {count}", file=sys.stderr, flush=True)
                sys.exit(3)
            if mode == "sleep":
                time.sleep(60)
            answer = {"nonsense": "hello, world", "illegal": json.dumps({"play": "2222BR"}),
                      "mismatch": json.dumps({"mismatch": "a test mismatch"})}[mode]
            print(answer, flush=True)
            continue
        inner.stdin.write(line)
        inner.stdin.flush()
        print(inner.stdout.readline().strip(), flush=True)


if __name__ == "__main__":
    main()
