"""Find loads that likely miss store forwarding, weighted by timer samples.

A load from the stack that overlaps earlier, narrower stores to the same
bytes, without one store covering all of it, cannot take its value from
the store buffer and waits until those stores reach the cache (a
"store-forwarding stall", about a dozen cycles on the machines here). Rust
builds such patterns when a value written field by field is copied
through the stack as whole words. On a machine whose virtual CPUs expose
no hardware counters, timer samples on the load and the two instructions
after it (where the wait shows) are the evidence.

    perf record -F 10000 -o perf.data DIR/engine --reps 30 --only r2
    perf annotate -i perf.data --stdio -l > annotate.txt
    bench/store-forwarding annotate.txt [N]

Prints the samples on suspected loads (all functions, weighted by each
function's sample count) and the N (15) costliest, with their function.
Only stores within the 40 instructions before a load, in the same
function and in program order of the listing, are considered: a heuristic
that finds the copies of freshly built values, not every stall.
"""

from __future__ import annotations

import re
import sys

WIDE = ("movups", "movaps", "movdqu", "movdqa", "movupd", "movapd")
HEADER = re.compile(r"^ Percent.*\((\d+) samples")
FUNC = re.compile(r"^\s+:\s+\d+\s+[0-9a-f]+ <(.*)>:")
INSN = re.compile(r"^ +([0-9.]+) :\s+([0-9a-f]+):\s+(\S+)\s*([^/]*)(//.*)?")
LOAD = re.compile(r"(-?0x[0-9a-f]+|\d+)?\(%rsp\),(%\w+)$")
STORE = re.compile(r"(\$?[-\w%]+),(-?0x[0-9a-f]+|\d+)?\(%rsp\)$")
LOOKBACK = 40


def width(op: str, reg: str) -> int:
    """Bytes moved by a `mov` with register (or immediate) operand `reg`."""
    if op.startswith(WIDE):
        return 16
    if op == "movb" or re.fullmatch(r"%[a-d]l|%[sd]il|%r\d+b|%[sb]pl", reg):
        return 1
    if op == "movw" or re.fullmatch(r"%[a-d]x|%r\d+w|%[sd]i|%bp", reg):
        return 2
    if op == "movl" or re.fullmatch(r"%e[a-z]+|%r\d+d", reg):
        return 4
    return 8


def parse(path: str) -> list[tuple[float, str, str, str, str]]:
    """(samples, address, mnemonic, operands, function) per instruction."""
    out, samples, func = [], 0, ""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if m := HEADER.match(line):
                samples = int(m.group(1))
            elif m := FUNC.match(line):
                func = m.group(1)
            elif m := INSN.match(line):
                pct, addr, op, args = float(m.group(1)), m.group(2), m.group(3), m.group(4).strip()
                out.append((pct * samples / 100.0, addr, op, args, func))
    return out


def suspects(ins):
    for i, (_, addr, op, args, func) in enumerate(ins):
        if not op.startswith("mov") or (op.startswith(("movz", "movs")) and op not in ("movsd", "movss")):
            continue
        m = LOAD.match(args)
        if not m:
            continue
        off, w = int(m.group(1) or "0", 0), width(op, m.group(2))
        partial = 0
        for _, _, op2, args2, func2 in ins[max(0, i - LOOKBACK):i]:
            s = STORE.match(args2) if func2 == func and op2.startswith("mov") else None
            if not s:
                continue
            off2, w2 = int(s.group(2) or "0", 0), width(op2, s.group(1))
            overlaps = off2 < off + w and off < off2 + w2
            covers = off2 <= off and off2 + w2 >= off + w
            partial += overlaps and not covers
        if partial:
            cost = sum(x[0] for x in ins[i:i + 3] if x[4] == func)
            yield cost, addr, f"{op} {args}", func


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[0] + "\nusage: bench/store-forwarding ANNOTATE.txt [N]", file=sys.stderr)
        return 2
    try:
        ins = parse(sys.argv[1])
        n = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    except (OSError, ValueError) as e:
        print(f"bench/store-forwarding: {e}", file=sys.stderr)
        return 2
    total = sum(x[0] for x in ins)
    found = sorted(suspects(ins), reverse=True)
    hit = sum(x[0] for x in found)
    print(f"{total:.0f} samples; on suspected store-forwarding misses: {hit:.0f} "
          f"({100 * hit / max(total, 1):.2f} %) over {len(found)} loads")
    for cost, addr, insn, func in found[:n]:
        print(f"{cost:7.0f}  {addr}  {insn:34s}  {func[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
