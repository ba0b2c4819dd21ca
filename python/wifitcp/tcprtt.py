"""Per-segment TCP round-trip times from a run's per-packet trace
(``packets.parquet``, docs/results.md "Per-packet trace"), as tcptrace
measures them from a capture at the sender.

For each TCP flow: the data sender is the node where the flow's larger
byte count originates; its data segments are its packets of more than 80
bytes (longer than an IPv4 header and the longest TCP header, so they
carry payload). A segment's RTT runs from its first appearance at the
sender (the trace's first row of the packet) to the first arrival at the
sender of an ACK whose acknowledgement number is above the segment's
sequence number (cumulative ACKs cover whole segments). Karn's rule:
segments whose sequence number was sent more than once (retransmitted)
give no sample; SYN and FIN segments neither. Sequence numbers are taken
as they are in the trace (no wrap-around within a run).
"""

from __future__ import annotations

import fnmatch
from bisect import bisect_right
from pathlib import Path
from typing import Sequence

from .errors import InputError

#: IPv4 header (20) plus the longest TCP header (60): longer packets carry payload.
MAX_HEADERS = 80
_SYN, _FIN = 2, 1


def rtt_samples(path: str, flows: Sequence[str] = ("*",)) -> dict:
    """``{flow name: [rtt ms, ...]}`` (in send order) for the TCP flows of the
    trace at ``path`` whose names match one of ``flows`` (shell wildcards)."""
    import duckdb

    if not Path(path).is_file():
        raise InputError(path, "", "no such trace file")
    con = duckdb.connect()
    try:
        try:
            pk = con.execute(
                "SELECT flow_name, packet, arg_min(node, time_s) AS origin, min(time_s) AS t0, "
                "any_value(tcp_seq) AS seq, any_value(tcp_ack) AS ack, any_value(size) AS size, "
                "any_value(tcp_flags) AS flags FROM read_parquet(?) "
                "WHERE tcp_seq IS NOT NULL AND flow_name IS NOT NULL "
                "GROUP BY flow_name, packet ORDER BY t0", [str(path)]).fetchall()
            rx = con.execute(
                "SELECT packet, node, time_s FROM read_parquet(?) "
                "WHERE event = 'receive' AND tcp_seq IS NOT NULL ORDER BY time_s",
                [str(path)]).fetchall()
        except duckdb.Error as e:
            raise InputError(path, "", f"not a per-packet trace: {str(e).splitlines()[0]}") from None
    finally:
        con.close()
    received: dict = {}
    for packet, node, t in rx:
        received.setdefault(packet, []).append((node, t))
    by_flow: dict = {}
    for row in pk:
        if any(fnmatch.fnmatchcase(row[0], p) for p in flows):
            by_flow.setdefault(row[0], []).append(row[1:])
    out = {}
    for name, rows in by_flow.items():
        volume: dict = {}
        for _, origin, _, _, _, size, _ in rows:
            volume[origin] = volume.get(origin, 0) + size
        sender = max(volume, key=lambda n: volume[n])
        sent: dict = {}
        data = []
        acks = []   # (arrival at the sender, ack number)
        for packet, origin, t0, seq, ack, size, flags in rows:
            if origin == sender:
                if size > MAX_HEADERS and not flags & (_SYN | _FIN):
                    sent[seq] = sent.get(seq, 0) + 1
                    data.append((seq, t0))
            else:
                arr = [t for node, t in received.get(packet, []) if node == sender]
                if arr and flags is not None and flags & 16:
                    acks.append((min(arr), ack))
        acks.sort()
        times, highest = [], []
        top = None
        for t, a in acks:
            top = a if top is None else max(top, a)
            times.append(t)
            highest.append(top)
        samples = []
        for seq, t0 in data:
            if sent[seq] > 1:
                continue
            i = bisect_right(highest, seq)
            if i < len(times) and times[i] >= t0:
                samples.append(1e3 * (times[i] - t0))
        out[name] = samples
    return out
