"""`wifitcp emulate`: real ping and iperf3 through a 2-station emulated BSS,
the commands (and what they start) dying with a SIGKILLed emulator, cleanup
after SIGKILL, the frames captured inside a namespace against the
emulator's own log, and the one-line errors.

The tests that create namespaces need root (or CAP_NET_ADMIN), /dev/net/tun
and the ip command; each is skipped with that reason where the machine
cannot create them. Every test removes what it created, also on failure
(the `no_leftovers` fixture checks and cleans).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BSS2 = ROOT / "bench" / "emu" / "bss2.toml"
PY = sys.executable


def _can_namespace() -> str:
    """Why namespaces cannot be created here ("" if they can)."""
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is missing"
    if not os.path.exists("/dev/net/tun"):
        return "/dev/net/tun is missing"
    from wifitcp import emulate

    if not emulate.has_net_admin():
        return "needs root or CAP_NET_ADMIN to create network namespaces"
    r = subprocess.run(["ip", "netns", "add", "wtemu-probe"], capture_output=True, text=True)
    subprocess.run(["ip", "netns", "del", "wtemu-probe"], capture_output=True)
    if r.returncode != 0:
        return f"cannot create a network namespace: {r.stderr.strip()}"
    return ""


WHY = _can_namespace()
needs_ns = pytest.mark.skipif(bool(WHY), reason=WHY)
needs_ping = pytest.mark.skipif(shutil.which("ping") is None,
                                reason="ping is not installed (apt-get install iputils-ping)")


def wifitcp(*args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "wifitcp", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=kw.pop("cwd", None), **kw)


def leftovers() -> list[str]:
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    ns = [ln.split()[0] for ln in r.stdout.splitlines() if ln.startswith("wtemu-")]
    etc = [p.name for p in Path("/etc/netns").glob("wtemu-*")] if Path("/etc/netns").is_dir() else []
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    tuns = [ln.split(":")[1].strip() for ln in links.splitlines() if ": wte" in ln]
    return ns + etc + tuns


@pytest.fixture
def no_leftovers():
    yield
    left = leftovers()
    if left:
        from wifitcp import emulate

        emulate.cleanup(only_dead=True)
    assert left == [], f"left behind: {left}"


def read_raw(path: Path) -> list[bytes]:
    """The records of a pcap file of raw IP datagrams (link type 101 or
    12; micro- or nanosecond magic, little-endian)."""
    import struct

    b = path.read_bytes()
    magic, _, _, _, _, _, link = struct.unpack("<IHHiIII", b[:24])
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), hex(magic)
    assert link in (101, 12, 228), link
    out, i = [], 24
    while i + 16 <= len(b):
        _, _, incl, _ = struct.unpack("<IIII", b[i:i + 16])
        out.append(b[i + 16:i + 16 + incl])
        i += 16 + incl
    return out


# -- no namespaces needed ----------------------------------------------------

def test_tcp_settings_map_to_sysctls_and_report_the_rest():
    from wifitcp import emulate

    sysctl, route, ignored = emulate.tcp_plan({
        "cc": "cubic", "sack": False, "timestamps": True, "window_scaling": False, "mss": 1460,
        "rwnd_packets": 42, "initial_window": 2, "min_rto_ms": 200.0, "delayed_ack": False,
        "recovery": "newreno", "limited_transmit": True, "initial_rto_ms": 1000.0,
        "max_rto_ms": 60000.0, "syn_retries": 6, "max_retransmissions": 15})
    assert sysctl["net.ipv4.tcp_congestion_control"] == "cubic"
    assert (sysctl["net.ipv4.tcp_sack"], sysctl["net.ipv4.tcp_timestamps"]) == (0, 1)
    assert sysctl["net.ipv4.tcp_rmem"].endswith(str(2 * 42 * 1460))
    assert route == {"initcwnd": "2", "rto_min": "200ms", "quickack": "1"}
    assert ignored == []
    # No window named: the host's autotuning stands for the simulator's
    # default receive buffer (6 MiB, tcp_rmem's maximum).
    sysctl, _, _ = emulate.tcp_plan({"cc": "cubic"})
    assert "net.ipv4.tcp_rmem" not in sysctl
    sysctl, _, _ = emulate.tcp_plan({"rwnd_bytes": 65535})
    assert sysctl["net.ipv4.tcp_rmem"].endswith(str(2 * 65535))
    _, _, ignored = emulate.tcp_plan({"cc": "compound", "recovery": "tahoe", "max_rto_ms": 5.0})
    assert [x.split()[0] for x in ignored] == ["tcp.cc", "tcp.recovery", "tcp.max_rto_ms"]


def test_node_names_follow_the_simulators_addresses():
    from wifitcp import core, emulate

    doc = emulate_cfg()
    doc["scenario"].pop("seeds")
    cfg = core.check_config(doc)
    names = emulate.node_names(cfg)
    assert names == ["ap", "sta0", "sta1", "server"]
    assert emulate.addr_of(names.index("server")) == "10.0.0.4"


def emulate_cfg() -> dict:
    from wifitcp import scenario

    return scenario.read_toml(BSS2)


def test_unknown_node_is_one_line_exit_2_and_leaves_nothing():
    before = set(leftovers()) if shutil.which("ip") else set()
    r = wifitcp("emulate", str(BSS2), "--on", "nosuch", "true", "--no-store")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "no node 'nosuch'" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    if shutil.which("ip"):
        assert set(leftovers()) <= before


def test_unsupported_traffic_is_named():
    r = wifitcp("emulate", str(BSS2), "--no-store", "--set",
                'traffic=[{name="u", kind="udp", pattern="saturated"}]')
    assert r.returncode == 2, r.stderr
    assert "traffic[0].kind" in r.stderr and "TCP flows only" in r.stderr
    assert r.stderr.count("\n") == 1


def test_several_bsss_and_sweeps_are_refused_in_one_line():
    r = wifitcp("emulate", str(BSS2), "--no-store", "--set", "wlan.aps=2")
    assert r.returncode == 2 and "wlan.aps" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    r = wifitcp("emulate", str(BSS2), "--no-store", "--set", 'sweep={"wlan.stations"=[1, 2]}')
    assert r.returncode == 2 and "the emulator runs one" in r.stderr, r.stderr


def test_features_the_emulator_cannot_run_are_named_in_one_line():
    before = set(leftovers()) if shutil.which("ip") else set()
    cases = [
        ('ap.proxy={kind="itcp"}', "ap.proxy.kind", "cannot run a proxy ('itcp')"),
        ('ap.proxy={kind="snoop"}', "ap.proxy.kind", "cannot run a proxy ('snoop')"),
        ('traffic=[{name="x", kind="tcp", peer="server", tcp={cc="reno"}}]', "traffic[0].tcp",
         "per-flow TCP settings"),
        ('traffic=[{name="x", kind="tcp", peer="server", pattern="on-off"}]', "traffic[0].pattern",
         "applies to UDP flows only"),
    ]
    for value, key, why in cases:
        r = wifitcp("emulate", str(BSS2), "--no-store", "--set", value)
        assert r.returncode == 2, (value, r.stderr)
        assert f": {key}: " in r.stderr and why in r.stderr and r.stderr.count("\n") == 1, (value, r.stderr)
    # refused before anything was created
    if shutil.which("ip"):
        assert set(leftovers()) <= before


def test_missing_privileges_are_one_line(tmp_path):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to drop the capabilities")
    before = set(leftovers())
    r = subprocess.run(["setpriv", "--inh-caps=-all", "--bounding-set=-all", PY, "-m", "wifitcp",
                        "emulate", str(BSS2), "--no-store"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "needs root or CAP_NET_ADMIN" in r.stderr and r.stderr.count("\n") == 1
    assert set(leftovers()) <= before


def test_iperf3_absent_is_one_line(tmp_path):
    # a PATH without iperf3 (but with ip and the interpreter)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("ip", "sh"):
        p = shutil.which(tool)
        if p:
            (bindir / tool).symlink_to(p)
    env = dict(os.environ, PATH=str(bindir))
    before = set(leftovers()) if shutil.which("ip") else set()
    r = subprocess.run([PY, "-m", "wifitcp", "emulate", str(BSS2), "--no-store", "--set",
                        'traffic=[{name="up", kind="tcp", stations=[0], peer="server"}]'],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 2, r.stderr
    assert "iperf3 not found" in r.stderr and r.stderr.count("\n") == 1
    if shutil.which("ip"):
        assert set(leftovers()) <= before


def test_the_double_dash_splits_only_emulates_arguments():
    from wifitcp.cli import _split_command

    assert _split_command(["emulate", "x.toml", "--duration", "3", "--", "ping", "-c", "1", "--", "x"]) == (
        ["emulate", "x.toml", "--duration", "3"], ["ping", "-c", "1", "--", "x"])
    assert _split_command(["emulate", "x.toml", "--on", "sta0", "a -- b"]) == (
        ["emulate", "x.toml", "--on", "sta0", "a -- b"], [])
    assert _split_command(["run", "x.toml", "--", "y"]) == (["run", "x.toml", "--", "y"], [])


def test_double_dash_command_errors_are_one_line_exit_2():
    cases = [
        (["--node", "nosuch", "--", "true"], "no node 'nosuch'"),
        (["--", "wifitcp-no-such-program", "-x"], "wifitcp-no-such-program not found"),
        (["--node", "sta0"], "none given"),
    ]
    for extra, want in cases:
        r = wifitcp("emulate", str(BSS2), "--no-store", *extra)
        assert r.returncode == 2, (extra, r.stderr)
        assert want in r.stderr and r.stderr.count("\n") == 1, (extra, r.stderr)
        assert "Traceback" not in r.stderr


# -- through namespaces ------------------------------------------------------

@needs_ns
@needs_ping
def test_ping_crosses_the_emulated_bss(tmp_path, no_leftovers):
    out = tmp_path / "r.duckdb"
    r = wifitcp("emulate", str(BSS2), "--duration", "4", "--json", "--out", str(out),
                "--max-lag-ms", "1000",
                "--on", "sta0", "ping -c 5 -i 0.2 -W 1 sta1")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    ping = res["commands"][0]
    assert ping["exit_status"] == 0, ping
    assert "5 received" in ping["stdout"], ping["stdout"]
    # Two WLAN hops (sta0 -> AP -> sta1) each way: an RTT of at least four
    # 802.11g frame exchanges of an 84-byte datagram (over 100 us each).
    rtts = [float(x.split("time=")[1].split()[0]) for x in ping["stdout"].splitlines() if "time=" in x]
    assert len(rtts) == 5 and min(rtts) > 0.4, rtts
    e = res["emulation"]
    assert e["datagrams_injected"] >= 10 and e["other_protocol"] >= 10
    assert e["event_lag"]["samples"] > 0
    from wifitcp.store import Store

    with Store(out) as st:
        rows = st.query("SELECT params FROM runs")
    assert len(rows) == 1 and json.loads(rows[0]["params"]) == {"emulate": True}


@needs_ns
def test_iperf3_tcp_transfer_and_the_macs_measure_agree(tmp_path, no_leftovers):
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 is not installed (apt-get install iperf3)")
    r = wifitcp("emulate", str(BSS2), "--duration", "6", "--json", "--no-store",
                "--max-lag-ms", "1000", "--set",
                'traffic=[{name="up", kind="tcp", stations=[0], peer="server", start_s=0.5}]')
    assert r.returncode in (0, 1), r.stderr  # 1: valid only below the lag threshold
    res = json.loads(r.stdout)
    client = [c for c in res["commands"] if not c["server"]][0]
    assert client["exit_status"] == 0, client
    got = client["iperf3"]["received_mbps"]
    # 802.11g at 54 Mbit/s carries at most about 30 Mbit/s of TCP goodput
    # (DCF overhead and the ACKs sharing the channel).
    assert 5 < got < 32, got
    mac = max((f for f in res["flows"] if f["kind"] == "tcp" and f["dst"] == "server"),
              key=lambda f: f["bytes_delivered"])
    # The emulator's MAC measure over the flow's active span against
    # iperf3's receiver: the same bytes, counted at two places (iperf3 from
    # the connection's start, the MAC from its first segment): within 10 %.
    rate = mac["bytes_delivered"] * 8 / (mac["last_s"] - mac["first_s"]) / 1e6
    assert abs(rate - got) < 0.1 * got, (rate, got)


@needs_ns
@needs_ping
def test_flent_runs_through_the_emulated_wlan(tmp_path, no_leftovers):
    # The recipe of docs/emulation.md: Flent from PyPI (2.3, which accepts
    # Debian's iperf 2.1.8 through its --enhanced option) and iperf 2; its
    # udp_flood test sends an iperf UDP flood and pings through the WLAN.
    flent = Path(sys.executable).parent / "flent"
    if not flent.exists() or shutil.which("iperf") is None:
        pytest.skip("needs flent in the venv (make venv) and iperf 2 (apt-get install iperf)")
    scen = ROOT / "scenarios" / "emu-rrul.toml"
    r = wifitcp("emulate", str(scen), "--duration", "60", "--json", "--no-store", "--max-lag-ms", "1000",
                "--on", "server", "iperf -s -u", "--",
                "sh", "-c", f"sleep 0.5; exec {flent} udp_flood -H server -l 3 -D {tmp_path}")
    assert r.returncode in (0, 1), r.stderr  # 1: valid only below the lag threshold
    res = json.loads(r.stdout)
    main = [c for c in res["commands"] if c["label"].startswith("main")]
    assert main and main[0]["exit_status"] == 0, main
    data = list(tmp_path.glob("udp_flood-*.flent.gz"))
    assert len(data) == 1, list(tmp_path.iterdir())
    import gzip

    d = json.loads(gzip.open(data[0]).read())
    ping = [x for x in d["results"]["Ping (ms) ICMP"] if x is not None]
    flood = [x for x in d["results"]["UDP upload"] if x is not None]
    # A few seconds of pings over the 10 ms wired path and the WLAN, and a
    # flood the iperf client measured.
    assert len(ping) >= 10 and min(ping) > 9.0, ping
    assert flood and max(flood) > 0, flood


@needs_ns
@needs_ping
def test_frames_captured_in_the_namespace_equal_the_emulators_log(tmp_path, no_leftovers):
    if shutil.which("tcpdump") is None:
        pytest.skip("tcpdump is not installed")
    pcap = tmp_path / "pcap"
    # tcpdump inside sta0's namespace, started by the emulator itself
    cap = tmp_path / "inside.pcap"
    r = wifitcp("emulate", str(BSS2), "--duration", "4", "--json", "--no-store", "--pcap", str(pcap),
                "--max-lag-ms", "1000",
                "--on", "sta0", f"timeout 3.5 tcpdump -i wifi0 -U -w {cap} 2>/dev/null",
                "--on", "sta0", "sleep 1; ping -c 4 -i 0.2 server")
    assert r.returncode == 0, r.stderr
    mine = read_raw(pcap / "tun" / "sta0.pcap")
    inside = read_raw(cap)
    assert len(inside) >= 8
    assert sorted(inside) == sorted(mine)


@needs_ns
def test_sigkill_then_cleanup_leaves_nothing(tmp_path):
    p = subprocess.Popen([PY, "-m", "wifitcp", "emulate", str(BSS2), "--duration", "30",
                          "--no-store", "--on", "server", "sleep 60"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and not any(n.startswith(f"wtemu-{p.pid}-")
                                                 for n in leftovers()):
            time.sleep(0.1)
        time.sleep(1.0)
        assert any(n.startswith(f"wtemu-{p.pid}-") for n in leftovers())
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    r = wifitcp("emulate", "--cleanup")
    assert r.returncode == 0, r.stderr
    assert [n for n in leftovers() if str(p.pid) in n] == []
    assert leftovers() == []


def _tagged(tag: str, argv0: str = "") -> list[str]:
    """The processes whose command line contains ``tag`` (and starts with
    ``argv0``)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag in cmd and cmd.startswith(argv0) and state != "Z" and int(d.name) != os.getpid():
            found.append(f"{d.name}: {cmd.strip()}")
    return found


def _work_dir(pid: int) -> Path:
    return Path(os.environ.get("TMPDIR", "/tmp")) / f"wifitcp-emulate-{pid}"


@needs_ns
def test_sigkill_ends_the_commands_and_their_descendants(tmp_path):
    # An --on command, one whose child and grandchild run in the background
    # and one that leaves its session: all die with the emulator, without
    # --cleanup; --cleanup then removes the namespaces and the run's
    # directory.
    tag = f"{6000 + os.getpid() % 1000}.25"
    p = subprocess.Popen([PY, "-m", "wifitcp", "emulate", str(BSS2), "--duration", "60",
                          "--no-store", "--on", "server", f"sleep {tag}",
                          "--on", "sta0", f"sh -c 'sleep {tag} & wait' & wait",
                          "--on", "sta1", f"setsid sleep {tag} & sleep {tag}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and len(_tagged(tag, "sleep ")) < 4:
            time.sleep(0.1)
        assert len(_tagged(tag, "sleep ")) == 4, _tagged(tag)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    deadline = time.time() + 5
    while time.time() < deadline and _tagged(tag):
        time.sleep(0.1)
    left = _tagged(tag)
    if left:  # do not leave them running for the next tests
        for line in left:
            try:
                os.kill(int(line.split(":")[0]), signal.SIGKILL)
            except ProcessLookupError:
                pass
    r = wifitcp("emulate", "--cleanup")
    assert r.returncode == 0, r.stderr
    assert left == [], f"still running 5 s after the emulator's SIGKILL: {left}"
    assert [n for n in leftovers() if str(p.pid) in n] == []
    assert not _work_dir(p.pid).exists()


@needs_ns
def test_cleanup_ends_what_a_dead_run_recorded(tmp_path):
    # A run's state file names what it started; when its emulator is gone,
    # --cleanup kills those processes (here one that would have escaped
    # the death signal) and removes the run's directory and the file.
    from wifitcp import emulate

    dead = subprocess.Popen(["true"])
    dead.wait()
    left = subprocess.Popen(["sleep", "300"], start_new_session=True)
    work = tmp_path / f"{emulate.WORK_PREFIX}{dead.pid}"
    work.mkdir()
    (work / "x.out").write_text("partial")
    emulate.STATE_DIR.mkdir(parents=True, exist_ok=True)
    state = emulate.STATE_DIR / f"{dead.pid}.json"
    state.write_text(json.dumps({"pid": dead.pid, "start": 1, "work": str(work), "namespaces": [],
                                 "holder": None,
                                 "commands": [[left.pid, emulate._proc_start(left.pid)]]}))
    try:
        r = wifitcp("emulate", "--cleanup")
        assert r.returncode == 0, r.stderr
        assert left.wait(timeout=5) == -signal.SIGKILL
        assert not state.exists() and not work.exists()
    finally:
        if left.poll() is None:
            left.kill()
            left.wait()
        state.unlink(missing_ok=True)


@needs_ns
def test_sigterm_removes_everything(no_leftovers):
    p = subprocess.Popen([PY, "-m", "wifitcp", "emulate", str(BSS2), "--duration", "30",
                          "--no-store"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline and not any(n.startswith(f"wtemu-{p.pid}-") for n in leftovers()):
        time.sleep(0.1)
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 130, err
    # the run's directory (empty: no commands) is gone too
    assert not _work_dir(p.pid).exists()


@needs_ns
@needs_ping
def test_double_dash_command_runs_in_the_first_station_and_ends_the_run(no_leftovers):
    # bss2.toml lasts 5 s; the run ends when the command exits (about
    # 0.4 s of pings), measured to there, and stays valid.
    r = wifitcp("emulate", str(BSS2), "--json", "--no-store", "--max-lag-ms", "1000",
                "--", "ping", "-c", "3", "-i", "0.2", "-W", "1", "sta1")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    main = [c for c in res["commands"] if c.get("main")]
    assert len(main) == 1 and main[0]["node"] == "sta0", res["commands"]
    assert main[0]["exit_status"] == 0 and "3 received" in main[0]["stdout"], main[0]
    # the pings come from sta0's address (10.0.0.2: sta0 is node 1)
    assert "from sta1 (10.0.0.3)" in main[0]["stdout"]
    e = res["emulation"]
    assert e["ended_on_request"] is True and e["valid"] is True, e
    assert 0.3 < e["ran_s"] < 3.0, e["ran_s"]
    assert e["measured_s"][1] <= e["ran_s"] + 1e-9


@needs_ns
def test_double_dash_command_elsewhere_its_failure_and_its_stop_at_duration(no_leftovers):
    # --node: the command runs in the server's namespace; its exit status 3
    # fails the run (exit 1) ...
    r = wifitcp("emulate", str(BSS2), "--json", "--no-store", "--max-lag-ms", "1000",
                "--node", "server", "--", "sh", "-c", "ip -o addr show wifi0; exit 3")
    assert r.returncode == 1, r.stderr
    res = json.loads(r.stdout)
    main = [c for c in res["commands"] if c.get("main")][0]
    assert main["node"] == "server" and main["exit_status"] == 3, main
    assert "10.0.0.4/32" in main["stdout"], main["stdout"]
    # ... while a command still running at --duration is stopped there, and
    # the run is a normal one (exit 0)
    t = time.monotonic()
    r = wifitcp("emulate", str(BSS2), "--json", "--no-store", "--max-lag-ms", "1000",
                "--duration", "1", "--", "sleep", "30")
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t < 20
    res = json.loads(r.stdout)
    main = [c for c in res["commands"] if c.get("main")][0]
    assert main["stopped_at_end"] is True and res["emulation"]["ended_on_request"] is False
    assert 0.9 < res["emulation"]["ran_s"] < 1.5


@needs_ns
def test_bad_input_found_after_setup_began_leaves_nothing(no_leftovers):
    # a sysctl Linux refuses is only found inside the first namespace,
    # after it was created: one line, exit 2, and everything removed
    r = wifitcp("emulate", str(BSS2), "--no-store", "--duration", "2",
                "--sysctl", "net.ipv4.tcp_no_such_setting=1")
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error: --sysctl") and r.stderr.count("\n") == 1, r.stderr


def test_worker_outlives_an_interrupted_wait():
    """A signal handler's exception during the wait for the emulator's
    thread leaves the thread known to run until its target returns (a
    `Thread.join` interrupted so says it stopped, in Python 3.11 and 3.12,
    and the interpreter then finalises under it: exit status -6)."""
    from wifitcp import emulate

    release = threading.Event()
    returned = []

    def target():
        release.wait(10)
        returned.append(True)

    class Interrupted(Exception):
        pass

    def handler(signum, frame):
        raise Interrupted

    w = emulate._Worker(target, "test-worker")
    assert not w.running()
    old = signal.signal(signal.SIGUSR1, handler)
    try:
        w.start()
        threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGUSR1)).start()
        with pytest.raises(Interrupted):
            while w.running():
                w.wait(0.05)
    finally:
        signal.signal(signal.SIGUSR1, old)
    assert w.running() and not returned
    assert not w.wait(0.1)
    release.set()
    assert w.wait(10) and returned == [True] and not w.running()
