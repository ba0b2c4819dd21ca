"""bench/perf-lines: a sampled address goes back to the binary's own
address through perf's mapping and the ELF segment, and a sample counts
under the innermost frame in the project's sources."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import perf_lines  # noqa: E402

SCRIPT = """\
PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1269a88) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
PERF_RECORD_MMAP2 8910/8910: [0x564ebe31e000(0x2bb000) @ 0x9f000 fe:00 6668669 4098687150]: r-xp /t/release/engine
 ffffffff8164b135
PERF_RECORD_MMAP2 8910/8910: [0x7f9d09533000(0x26000) @ 0x1000 fe:00 325835 0]: r-xp /usr/lib/ld-linux-x86-64.so.2
 564ebe31f041
 7f9d09533010
"""

# the text segment of that binary: file offset 0x9f060 at 0xa0060
SEGS = [(0x0, 0x0, 0x9F060), (0x9F060, 0xA0060, 0x2BA920)]


def test_an_address_goes_back_through_the_mapping_and_the_segment():
    maps, ips = perf_lines.parse_script(SCRIPT, "engine")
    assert maps == [(0x564EBE31E000, 0x2BB000, 0x9F000)]
    assert ips == [0xFFFFFFFF8164B135, 0x564EBE31F041, 0x7F9D09533010]
    # 0x1041 into the mapping: file offset 0xa0041, 0x1000 past the
    # segment's start in the file (not the file offset itself)
    assert perf_lines.binary_address(ips[1], maps, SEGS) == 0xA1041
    assert perf_lines.binary_address(ips[0], maps, SEGS) is None  # the kernel
    assert perf_lines.binary_address(ips[2], maps, SEGS) is None  # another file


def test_a_sample_counts_under_the_innermost_project_frame():
    chain = [
        ("core::slice::index::get", "/rustc/x/library/core/src/slice/index.rs:272"),
        ("wifitcp_wifi::medium::Bss<M>::call", "/r/crates/wifi/src/medium/mod.rs:1020 (discriminator 2)"),
        ("wifitcp_sim::world::World::step_until", "/r/crates/sim/src/world/mod.rs:158"),
    ]
    assert perf_lines.key_of(chain, "line") == "wifi/src/medium/mod.rs:1020"
    assert perf_lines.key_of(chain, "file") == "wifi/src/medium/mod.rs"
    assert perf_lines.key_of(chain, "fn") == "wifitcp_wifi::medium::Bss::call"
    assert perf_lines.key_of(chain[:1], "file") == "(outside the project's sources)"


CALLGRIND = """\
# callgrind format
version: 1
positions: instr line
events: Ir D1mr
ob=(1) /usr/lib/libc.so.6
fn=(1) memcpy
0x10 0 5 1
cob=(2) /t/release/engine
calls=1 0x20 0
+4 0 100 9
ob=(2)
fn=(2) main
0x20 3 7 0
+2 * 3 1
calls=2 0x99 0
* 0 50 5
-1 5 2 0
ob=(1)
fn=(1)
0x20 0 11 11
"""


def test_callgrind_costs_count_the_binarys_own_instructions():
    events, costs = perf_lines.callgrind_costs(CALLGRIND.splitlines(), "/t/release/engine")
    assert events == ["Ir", "D1mr"]
    # the object named where a call first gave its number; relative
    # positions; a call's cost line (the callee's inclusive cost) left out;
    # another object's lines, at the same addresses, left out
    assert costs == {0x20: [7, 0], 0x22: [3, 1], 0x21: [2, 0]}


def test_a_callgrind_output_without_addresses_is_refused(capsys):
    for header in ["positions: line\n", ""]:
        lines = CALLGRIND.replace("positions: instr line\n", header).splitlines()
        try:
            perf_lines.callgrind_costs(lines, "/t/release/engine")
        except SystemExit as e:
            assert e.code == 2
        else:
            raise AssertionError(f"{header!r}: no exit")
        assert "--dump-instr=yes" in capsys.readouterr().err


def test_a_callgrind_output_is_told_from_perf_data(tmp_path):
    cg, other = tmp_path / "cg.out", tmp_path / "perf.data"
    cg.write_text(CALLGRIND)
    other.write_bytes(b"PERFILE2\x00\x01")
    assert perf_lines.is_callgrind(str(cg))
    assert not perf_lines.is_callgrind(str(other))


def test_options_and_their_errors(tmp_path, capsys):
    argv = ["cg.out", "bin", "line", "--per", "1000", "--sort", "D1mr"]
    assert perf_lines.option(argv, "--per") == "1000"
    assert perf_lines.option(argv, "--sort") == "D1mr"
    assert argv == ["cg.out", "bin", "line"]
    assert perf_lines.option(argv, "--per") is None
    cg = tmp_path / "cg.out"
    cg.write_text(CALLGRIND)
    (tmp_path / "perf.data").write_bytes(b"PERFILE2")
    for args, msg in [
        ([str(cg), "/t/release/engine", "--per", "0"], "--per: expected a positive number, got 0"),
        ([str(cg), "/t/release/engine", "--per", "x"], "--per: expected a number, got x"),
        ([str(cg), "/t/release/engine", "--sort"], "--sort: expected a value"),
        ([str(cg), "/nowhere/other"], "no instruction of /nowhere/other"),
        ([str(cg), "/t/release/engine", "--sort", "Dr"], "--sort: Dr is not an event of"),
        ([str(tmp_path / "perf.data"), "bin", "--per", "5"], "--per and --sort apply to a callgrind output"),
    ]:
        try:
            perf_lines.main(args)
        except SystemExit as e:
            assert e.code == 2
        else:
            raise AssertionError(f"{args}: no exit")
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and msg in err, err
