"""Timer samples of one binary by the project source file, line or
function they fall in, through inlining.

A profile-guided build inlines nearly every handler into the run loop
(`World::step_until`), so `perf report` by symbol puts most samples on
that one function. Here every sampled address is mapped with
`addr2line -i` to its chain of inlined frames and counted under the
innermost frame in the project's sources (`crates/...`); frames of the
standard library and of dependencies are folded into the project frame
that inlined them. On a machine whose virtual CPUs expose no hardware
counters, timer samples are what says where wall time goes (a sample
falls on the instruction that waits, so a slow load shows on the
instructions that use its value).

    CARGO_PROFILE_RELEASE_DEBUG=line-tables-only CARGO_TARGET_DIR=/tmp/a scripts/build-core --bench
    perf record -F 20000 -e cpu-clock -o perf.data /tmp/a/pgo-bench/release/engine --reps 40 --only r2
    bench/perf-lines perf.data /tmp/a/pgo-bench/release/engine [file|line|fn] [N]

Prints the N (30) largest groups with their samples and share of the
binary's samples, then the total. A sample's address is taken back to
the binary's own addresses through the mapping perf recorded (its start
and file offset) and the ELF program header of the segment holding that
offset.

A callgrind output written with `--dump-instr=yes` is read instead of
perf data (its first line says which): the binary's instructions, and
the cache misses if it simulated caches, by the same groups, the largest
first by the first event, or by `--sort EVENT`; `--per COUNT` divides
each by COUNT (a run's events, for costs per event):

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out /tmp/a/pgo-bench/release/engine --reps 1 --only r1
    bench/perf-lines cg.out /tmp/a/pgo-bench/release/engine file 20 --per 1083386

callgrind gives each instruction's address within its object, so only
the binary's own lines count (`ob=`), and a call's cost line after
`calls=` (the callee's inclusive cost) is left out.
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys

MMAP = re.compile(r"PERF_RECORD_MMAP2? .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)[ \]].*r-xp (\S+)$")
LOAD = re.compile(r"^\s+LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)")


def die(msg: str) -> None:
    print(f"bench/perf-lines: {msg}", file=sys.stderr)
    sys.exit(2)


def run(cmd: list[str], what: str) -> str:
    """`cmd`'s standard output; a missing tool or a failure is one line
    naming `what`, exit 2."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        die(f"{what}: {cmd[0]}: {e.strerror}")
    if out.returncode != 0:
        err = out.stderr.strip().splitlines()
        die(f"{what}: {cmd[0]}: {err[-1] if err else 'failed'}")
    return out.stdout


def segments(binary: str) -> list[tuple[int, int, int]]:
    """(file offset, virtual address, file size) of each LOAD segment."""
    text = run(["readelf", "-lW", binary], binary)
    segs = [(int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16))
            for m in map(LOAD.match, text.splitlines()) if m]
    if not segs:
        die(f"{binary}: no LOAD segment in its program headers")
    return segs


def binary_address(ip: int, maps: list[tuple[int, int, int]], segs: list[tuple[int, int, int]]) -> int | None:
    """The binary's virtual address of sampled address `ip`: through the
    mapping holding it (start, size, file offset) to a file offset, then
    through the LOAD segment holding that offset (file offset, virtual
    address, file size). None outside them."""
    for start, size, pgoff in maps:
        if start <= ip < start + size:
            off = ip - start + pgoff
            for fo, va, fs in segs:
                if fo <= off < fo + fs:
                    return off - fo + va
            return None
    return None


def parse_script(text: str, name: str) -> tuple[list[tuple[int, int, int]], list[int]]:
    """From `perf script --show-mmap-events -F ip`: the executable
    mappings of the file called `name` (start, size, file offset) and
    every sampled address."""
    maps: list[tuple[int, int, int]] = []
    ips: list[int] = []
    for line in text.splitlines():
        m = MMAP.search(line)
        if m:
            if m.group(4).rsplit("/", 1)[-1] == name:
                maps.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)))
            continue
        s = line.strip()
        if s and re.fullmatch(r"[0-9a-f]+", s):
            ips.append(int(s, 16))
    return maps, ips


def samples(data: str, binary: str) -> collections.Counter:
    """Samples by the binary's virtual address."""
    text = run(["perf", "script", "-i", data, "--show-mmap-events", "-F", "ip"], data)
    segs = segments(binary)
    name = binary.rsplit("/", 1)[-1]
    maps, ips = parse_script(text, name)
    if not maps:
        die(f"{data}: no executable mapping of {name} recorded")
    counts: collections.Counter = collections.Counter()
    for ip in ips:
        a = binary_address(ip, maps, segs)
        if a is not None:
            counts[a] += 1
    return counts


def is_callgrind(path: str) -> bool:
    """Whether `path` is a callgrind output (its first line says so)."""
    try:
        with open(path, "rb") as f:
            return f.readline().startswith(b"# callgrind format")
    except OSError as e:
        die(f"{path}: {e.strerror}")
    return False


def callgrind_costs(lines, binary: str) -> tuple[list[str], dict[int, list[int]]]:
    """From a callgrind output's lines (`--dump-instr=yes`): its events
    and, by address within `binary`, each event's cost. Positions are
    compressed (`+N`, `-N`, `*`: relative to the previous position line);
    a cost line right after `calls=` is the callee's and is skipped."""
    events: list[str] = []
    npos = 0  # position columns; 0 until a `positions:` line names `instr`
    costs: dict[int, list[int]] = {}
    names: dict[str, str] = {}
    mine, skip, last = False, False, 0
    name = binary.rsplit("/", 1)[-1]
    for line in lines:
        if line.startswith("events:"):
            events = line.split()[1:]
            continue
        if line.startswith("positions:"):
            kinds = line.split()[1:]
            npos = len(kinds) if kinds[:1] == ["instr"] else 0
            continue
        if line.startswith("cob="):
            # (a name is given once, where its number first appears,
            # which may be a call's object)
            m = re.match(r"cob=\((\d+)\)\s*(.+)", line.strip())
            if m:
                names[m.group(1)] = m.group(2)
            continue
        if line.startswith("ob="):
            m = re.match(r"ob=\((\d+)\)\s*(.*)", line.strip())
            if m:
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                obj = names.get(m.group(1), "")
            else:
                obj = line[3:].strip()
            mine = obj.rsplit("/", 1)[-1] == name
            continue
        if line.startswith("calls="):
            skip = True
            continue
        if not line or line[0] not in "0123456789+-*":
            continue
        if not npos:
            # (without `instr` first in a positions: line, or without
            # one, positions are line numbers)
            die("the callgrind output has no instruction addresses (run callgrind with --dump-instr=yes)")
        parts = line.split()
        a = parts[0]
        if a.startswith("0x"):
            addr = int(a, 16)
        elif a[0] == "+":
            addr = last + int(a[1:])
        elif a[0] == "-":
            addr = last - int(a[1:])
        elif a == "*":
            addr = last
        else:
            addr = int(a)
        last = addr
        if skip:
            skip = False
            continue
        if not mine:
            continue
        v = [int(x) for x in parts[npos:]]
        c = costs.setdefault(addr, [0] * len(events))
        for i, x in enumerate(v[:len(events)]):
            c[i] += x
    if not events:
        die("no events: line in the callgrind output")
    return events, costs


def frames(binary: str, addrs: list[int]) -> dict[int, list[tuple[str, str]]]:
    """Each address's inlined frames, innermost first: (function, file:line)."""
    res: dict[int, list[tuple[str, str]]] = {}
    for i in range(0, len(addrs), 4000):
        chunk = addrs[i:i + 4000]
        out = run(["addr2line", "-a", "-f", "-C", "-i", "-e", binary] + [hex(a) for a in chunk], binary).split("\n")
        cur, chain, j = None, [], 0
        while j < len(out):
            line = out[j]
            if re.fullmatch(r"0x[0-9a-f]+", line):
                if cur is not None:
                    res[cur] = chain
                cur, chain, j = int(line, 16), [], j + 1
                continue
            if line.strip():
                chain.append((line, out[j + 1] if j + 1 < len(out) else ""))
                j += 2
            else:
                j += 1
        if cur is not None:
            res[cur] = chain
    return res


def key_of(chain: list[tuple[str, str]], by: str) -> str:
    for fn, loc in chain:
        if "/crates/" in loc:
            where = re.sub(r".*/crates/", "", loc).split(" ")[0]
            if by == "line":
                return where
            if by == "file":
                return where.split(":")[0]
            return re.sub(r"<.*?>|\(.*", "", fn)[-80:]
    return "(outside the project's sources)"


USAGE = "usage: bench/perf-lines PERF_DATA|CALLGRIND_OUT BINARY [file|line|fn] [N] [--per COUNT] [--sort EVENT]"


def option(argv: list[str], flag: str) -> str | None:
    """The value after `flag` in `argv` (both removed), if given."""
    if flag not in argv:
        return None
    i = argv.index(flag)
    if i + 1 >= len(argv):
        die(f"{flag}: expected a value")
    value = argv[i + 1]
    del argv[i:i + 2]
    return value


def callgrind_main(data: str, binary: str, by: str, top: int, per: float, sort: str | None) -> None:
    with open(data, errors="replace") as f:
        events, costs = callgrind_costs(f, binary)
    if not costs:
        die(f"{data}: no instruction of {binary} (written with --dump-instr=yes?)")
    col = 0
    if sort is not None:
        if sort not in events:
            die(f"--sort: {sort} is not an event of {data} ({' '.join(events)})")
        col = events.index(sort)
    res = frames(binary, list(costs))
    groups: dict[str, list[int]] = collections.defaultdict(lambda: [0] * len(events))
    for a, c in costs.items():
        g = groups[key_of(res.get(a, []), by)]
        for i, x in enumerate(c):
            g[i] += x
    total = [sum(g[i] for g in groups.values()) for i in range(len(events))]
    width = max(9, *(len(e) + 1 for e in events))
    print("".join(f"{e:>{width}}" for e in events) + "  group")
    fmt = (lambda x: f"{x / per:>{width}.1f}") if per != 1 else (lambda x: f"{x:>{width}d}")
    for k, g in sorted(groups.items(), key=lambda kv: -kv[1][col])[:top]:
        print("".join(fmt(x) for x in g) + f"  {k}")
    print("".join(fmt(x) for x in total) + f"  total in {binary}" + (f", per {int(per) if per.is_integer() else per:,}" if per != 1 else ""))


def main(argv: list[str]) -> None:
    argv = list(argv)
    per_s, sort = option(argv, "--per"), option(argv, "--sort")
    if len(argv) < 2:
        die(USAGE)
    data, binary = argv[0], argv[1]
    by = argv[2] if len(argv) > 2 else "file"
    if by not in ("file", "line", "fn"):
        die(f"grouping: expected file, line or fn, got {by}")
    try:
        top = int(argv[3]) if len(argv) > 3 else 30
    except ValueError:
        die(f"N: expected a number, got {argv[3]}")
    per = 1.0
    if per_s is not None:
        try:
            per = float(per_s)
        except ValueError:
            die(f"--per: expected a number, got {per_s}")
        if not per > 0:
            die(f"--per: expected a positive number, got {per_s}")
    if is_callgrind(data):
        return callgrind_main(data, binary, by, top, per, sort)
    if per_s is not None or sort is not None:
        die("--per and --sort apply to a callgrind output")
    counts = samples(data, binary)
    res = frames(binary, list(counts))
    groups: collections.Counter = collections.Counter()
    for a, c in counts.items():
        groups[key_of(res.get(a, []), by)] += c
    total = sum(groups.values())
    for k, v in groups.most_common(top):
        print(f"{v:8d} {100 * v / max(total, 1):5.1f} %  {k}")
    print(f"{total:8d} samples in {binary}")


if __name__ == "__main__":
    main(sys.argv[1:])
