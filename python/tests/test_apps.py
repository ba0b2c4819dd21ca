"""Applications from Python: relative trace files resolve against the
scenario's folder, a malformed trace is one line with exit status 2, and a
ping flow's round-trip histogram plots as a CDF."""

from pathlib import Path

from conftest import REPO, requires_core
from wifitcp import scenario as S
from wifitcp.cli import main
from wifitcp.plot import select

TRACE = """
[scenario]
name = "tr"
duration_s = 4.0
warmup_s = 1.0

[phy]
standard = "802.11a"
data_rate_mbps = 24.0

[wlan]
stations = 1

[[nodes]]
name = "server"

[[links]]
a = "ap"
b = "server"
rate_mbps = 100.0
delay_ms = 5.0

[[traffic]]
name = "v"
kind = "udp"
pattern = "trace"
trace_file = "traces/t.txt"
peer = "server"

[[traffic]]
name = "ping"
kind = "udp"
pattern = "ping"
interval_ms = 50.0
peer = "server"
"""


def _write(tmp_path: Path, trace: str) -> Path:
    (tmp_path / "traces").mkdir(exist_ok=True)
    (tmp_path / "traces" / "t.txt").write_text(trace)
    f = tmp_path / "tr.toml"
    f.write_text(TRACE)
    return f


def test_relative_trace_file_is_relative_to_the_scenario(tmp_path):
    f = _write(tmp_path, "0 100\n0.1 200\n")
    spec = S.load(f).runs()[0]
    assert spec.config["traffic"][0]["trace_file"] == str(tmp_path / "traces" / "t.txt")
    # absolute paths and other flows are left alone
    assert "trace_file" not in spec.config["traffic"][1]
    doc = S.read_toml(f)
    doc["traffic"][0]["trace_file"] = "/abs/t.txt"
    assert S.from_dict(doc, file=str(f)).runs()[0].config["traffic"][0]["trace_file"] == "/abs/t.txt"


@requires_core
def test_malformed_trace_is_one_line_exit_2(tmp_path, capsys):
    f = _write(tmp_path, "0 100\n\n0.2 -5\n")
    assert main(["validate", str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"error: {f}: traffic[0].trace_file: ")
    assert err[0].endswith("t.txt: line 3: size \"-5\" is not a whole number of bytes"), err[0]


@requires_core
def test_ping_rtt_cdf(tmp_path, capsys):
    f = _write(tmp_path, "0 100\n0.1 3000\n")
    db = str(tmp_path / "p.duckdb")
    assert main(["run", str(f), "--out", db, "--jobs", "1", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["plot", db, "--cdf", "--y", "rtt_histogram", "--flow", "ping/*",
                 "--out", str(tmp_path / "rtt")]) == 0
    assert (tmp_path / "rtt.png").stat().st_size > 10_000
    sel = select(db, None, "rtt_histogram", flows=["ping/*"], mode="cdf")
    n = sum(c for _, _, c in sel.lines[0].buckets)
    assert n == 60  # 3 s window, one echo every 50 ms, every one answered
    lo = sel.lines[0].buckets[0][0]
    assert lo >= 10.0 * (1 - 2 ** -7)  # twice the 5 ms link at least
    # a flow without round trips has no RTT histogram
    assert main(["plot", db, "--cdf", "--y", "rtt_histogram", "--flow", "v/*",
                 "--out", str(tmp_path / "x")]) == 2
    assert "round-trip histogram" in capsys.readouterr().err


def test_shipped_traces_match_their_headers():
    for name in ("movie-mpeg4-starwars-hq.txt", "chat-h263-lecture-vbr.txt"):
        lines = (REPO / "scenarios" / "traces" / name).read_text().splitlines()
        frames = [tuple(float(x) for x in ln.split()) for ln in lines if ln and not ln.startswith("#")]
        n, t_last = len(frames), frames[-1][0]
        period = t_last * n / (n - 1)
        rate = sum(b for _, b in frames) * 8 / period
        header = next(ln for ln in lines if "mean payload rate" in ln)
        assert abs(rate - float(header.split("rate ")[1].split()[0])) < 1.0
    # the published mean rates: 2.8e5 and 6.2e4 bit/s (to their 2 digits)
    movie = (REPO / "scenarios/traces/movie-mpeg4-starwars-hq.txt").read_text()
    chat = (REPO / "scenarios/traces/chat-h263-lecture-vbr.txt").read_text()
    assert "mean payload rate 280000 bit/s" in movie
    assert "mean payload rate 62296 bit/s" in chat
