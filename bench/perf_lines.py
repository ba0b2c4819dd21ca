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


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        die("usage: bench/perf-lines PERF_DATA BINARY [file|line|fn] [N]")
    data, binary = argv[0], argv[1]
    by = argv[2] if len(argv) > 2 else "file"
    if by not in ("file", "line", "fn"):
        die(f"grouping: expected file, line or fn, got {by}")
    try:
        top = int(argv[3]) if len(argv) > 3 else 30
    except ValueError:
        die(f"N: expected a number, got {argv[3]}")
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
