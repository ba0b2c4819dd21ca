"""bench/store-forwarding: the heuristic flags a wide load of narrower
stores and only that (a load a single store covers forwards fine)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import store_forwarding  # noqa: E402


def _tool():
    return store_forwarding


LISTING = """\
 Percent |	Source code & Disassembly of engine for cpu-clock:ppp (1000 samples, percent: local period)
         : 5     0000000000001000 <hot>:
    1.00 :   1000:  mov    %rcx,0x400(%rsp)
    0.00 :   1008:  mov    %ebx,0x408(%rsp)
    0.00 :   100f:  mov    %eax,0x40c(%rsp)
    2.00 :   1016:  movapd 0x400(%rsp),%xmm1
    3.00 :   101f:  movupd %xmm1,0x10(%r15)
    0.00 :   1024:  mov    %rax,0x20(%rsp)
    5.00 :   1029:  mov    0x20(%rsp),%rdx
    0.00 :   102e:  movw   $0x0,0x30(%rsp)
    7.00 :   1035:  movzwl 0x30(%rsp),%eax
"""


def test_flags_only_the_partial_overlap(tmp_path):
    t = _tool()
    p = tmp_path / "a.txt"
    p.write_text(LISTING)
    found = list(t.suspects(t.parse(str(p))))
    assert [f[1] for f in found] == ["1016"]
    # the load and the two instructions after it: (2 + 3 + 0) % of 1000
    assert abs(found[0][0] - 50.0) < 1e-9
    assert found[0][3] == "hot"


def test_widths():
    t = _tool()
    assert t.width("movapd", "%xmm1") == 16
    assert t.width("mov", "%ebx") == 4
    assert t.width("mov", "%cx") == 2
    assert t.width("mov", "%r13b") == 1
    assert t.width("mov", "%rax") == 8
