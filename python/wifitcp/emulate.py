"""``wifitcp emulate``: real Linux traffic through the simulated network.

Every node of the scenario (APs, stations, wired nodes) gets a network
namespace ``wtemu-<pid>-<node>`` with one TUN interface ``wifi0`` carrying
the node's simulator address (``10.0.0.<index+1>``, `topology::addr_of`),
a default route through it and ``/etc/netns/<ns>/hosts`` naming every node,
so ``iperf3 -c server`` works inside a namespace. The interface is created
in the root namespace by the core (``_core.emu_open_tun``, which keeps its
descriptor), then moved into the node's namespace. The core's loop
(crates/emu) reads what each namespace sends, injects it at its node of the
simulated network at the wall-clock instant it was read, and writes what
the simulation delivers to a node into that node's interface.

The scenario's TCP settings become, per namespace, sysctls and route
attributes where Linux has them (``TCP_SETTINGS`` below); the others are
listed in the result as ignored. The scenario's TCP flows become iperf3
transfers (a server per peer, started first; a client per flow at its start
instant); other traffic is refused. ``--on NODE CMD`` runs more commands.

Every command of a run (iperf3, ``--on``, the ``-- COMMAND``) runs in one
PID namespace per run, whose init is held by a process that dies with the
emulator (``PR_SET_PDEATHSIG``, set by ``setpriv``; ``unshare --kill-child``
gives the init the same signal): when the emulator dies, even by SIGKILL,
the kernel kills every process of the run, the commands' children and
grandchildren included, also those that left their process group or
session. A command enters it with ``nsenter --pid`` (which dies with the
emulator too), so it is not the namespace's init and gets signals as
usual; what it leaves running in the background lives until the run ends.

Safety: only namespaces this module created (prefix ``wtemu-``) are ever
touched; host interfaces and routes are not. Everything is removed on exit,
on SIGINT/SIGTERM, and by ``wifitcp emulate --cleanup`` after a crash (TUN
interfaces vanish with the process that holds them; namespaces and their
``/etc/netns`` entries need the cleanup). Each run records what it creates
(namespaces, the PID namespace's holder, the commands, its directory) in
``STATE_DIR/<pid>.json`` before creating it; ``--cleanup`` ends and removes
what a run that is no longer running left, and the run's directory
``wifitcp-emulate-<pid>`` when it is empty or the run never finished (a run
that finishes removes its directory itself when no command wrote to it).
"""

from __future__ import annotations

import json
import math
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from . import core
from .errors import InputError, RunError

PREFIX = "wtemu-"
IFACE = "wifi0"
NETNS_ETC = Path("/etc/netns")
#: TCP port of the first iperf3 server of the scenario's flows
IPERF_PORT = 5201
#: the emulation runs this long after the scenario's end (flows measured up
#: to the end) when the scenario has TCP flows: time for iperf3 to report
END_MARGIN_S = 2.0
#: the longest a ``-- COMMAND`` run lasts without --duration: it ends when
#: the command exits
MAIN_LIMIT_S = 86400.0
#: CAP_NET_ADMIN's bit in /proc/self/status CapEff
CAP_NET_ADMIN = 12
#: one file per run: what it created, for --cleanup (tmpfs: gone at boot,
#: like the namespaces)
STATE_DIR = Path("/run/wifitcp-emulate")
#: a run's directory for its commands' output: ``$TMPDIR/WORK_PREFIX<pid>``
WORK_PREFIX = "wifitcp-emulate-"
#: the PID namespace's init: reaps the orphans adopted, never exits
PIDNS_INIT = "while :; do sleep 3600 & wait; done"
#: programs (util-linux) the run's PID namespace needs
PIDNS_TOOLS = ("setpriv", "unshare", "nsenter")


def _get(d: dict, key: str, default: Any) -> Any:
    """``d[key]``, or ``default`` when absent or None (the normalised
    configuration writes None for "the default")."""
    v = d.get(key)
    return default if v is None else v


def addr_of(index: int) -> str:
    """The simulator's address of node ``index`` (crates/sim topology::addr_of)."""
    v = 0x0A00_0000 + index + 1
    return ".".join(str((v >> s) & 0xFF) for s in (24, 16, 8, 0))


def node_names(config: dict) -> list[str]:
    """Node names in the simulator's order: BSS members (AP, stations of
    each BSS as the core numbers them), then wired nodes."""
    n = int(config["wlan"]["stations"])
    aps = int(_get(config["wlan"], "aps", 1))
    if aps != 1:
        return []  # refused by check_supported
    names = ["ap"] + [f"sta{i}" for i in range(n)]
    return names + [x["name"] for x in config.get("nodes", [])]


def has_net_admin() -> bool:
    """CAP_NET_ADMIN in the effective set (root without it is not enough)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> CAP_NET_ADMIN & 1)
    except OSError:
        return os.geteuid() == 0
    return False


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RunError(f"ip {' '.join(args)}: {r.stderr.strip() or r.returncode}")
    return r


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _proc_start(pid: int) -> Optional[int]:
    """The start time of process ``pid`` (clock ticks since boot, field 22
    of /proc/PID/stat), None when there is no such process: with the pid,
    it names a process (a pid can be reused)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _same_process(pid: int, start: Optional[int]) -> bool:
    return pid > 0 and start is not None and _proc_start(pid) == start


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _kill_pid(pid: int, start: Optional[int], group: bool = False) -> None:
    """SIGKILL process ``pid`` (with ``group``: its process group, which it
    leads) if it is still the process that started at ``start``."""
    if not _same_process(pid, start):
        return
    try:
        if group:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def work_root() -> Path:
    return Path(os.environ.get("TMPDIR", "/tmp"))


def our_namespaces() -> list[str]:
    r = _ip("netns", "list", check=False)
    names = [ln.split()[0] for ln in r.stdout.splitlines() if ln.strip()]
    return [n for n in names if n.startswith(PREFIX)]


def remove_namespace(ns: str) -> None:
    """Kill what runs in ``ns``, delete it and its /etc/netns entry."""
    if not ns.startswith(PREFIX):
        raise ValueError(f"not an emulator namespace: {ns}")
    r = _ip("netns", "pids", ns, check=False)
    for p in r.stdout.split():
        try:
            os.kill(int(p), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    _ip("netns", "del", ns, check=False)
    shutil.rmtree(NETNS_ETC / ns, ignore_errors=True)


def _read_states() -> list[tuple[Path, dict]]:
    out = []
    if STATE_DIR.is_dir():
        for f in sorted(STATE_DIR.glob("*.json")):
            try:
                out.append((f, json.loads(f.read_text())))
            except (OSError, ValueError):
                out.append((f, {}))
    return out


def cleanup(only_dead: bool = False) -> list[str]:
    """End and remove what the emulator's runs left (with ``only_dead``:
    the runs whose emulator process is gone): the processes a run recorded
    (the PID namespace's holder, whose end kills every process of the
    run's PID namespace, and the commands), every process in its network
    namespaces, the namespaces, their /etc/netns entries, the run's
    directory if it is empty or was recorded (a run that did not finish
    never reported it), and its state file. Returns the namespaces' names."""
    done = []
    alive_runs = set()
    for f, st in _read_states():
        pid = int(st.get("pid", -1))
        if only_dead and _same_process(pid, st.get("start")):
            alive_runs.add(pid)
            continue
        holder = st.get("holder")
        if holder:
            _kill_pid(int(holder[0]), holder[1], group=True)
        for cpid, cstart in st.get("commands", []):
            _kill_pid(int(cpid), cstart, group=True)
        for ns in st.get("namespaces", []):
            if ns.startswith(PREFIX) and (ns in our_namespaces() or (NETNS_ETC / ns).exists()):
                remove_namespace(ns)
                done.append(ns)
        work = Path(st.get("work") or "")
        if work.name.startswith(WORK_PREFIX):
            shutil.rmtree(work, ignore_errors=True)
        f.unlink(missing_ok=True)
    # namespaces without a state file (a crash before it was written)
    found = set(our_namespaces())
    if NETNS_ETC.is_dir():
        found |= {p.name for p in NETNS_ETC.iterdir() if p.name.startswith(PREFIX)}
    for ns in sorted(found - set(done)):
        if only_dead:
            try:
                pid = int(ns[len(PREFIX):].split("-", 1)[0])
            except ValueError:
                pid = -1
            if pid in alive_runs or (pid > 0 and _pid_alive(pid)):
                continue
        remove_namespace(ns)
        done.append(ns)
    # empty run directories of runs no longer running
    root = work_root()
    if root.is_dir():
        for d in root.glob(WORK_PREFIX + "*"):
            try:
                pid = int(d.name[len(WORK_PREFIX):])
            except ValueError:
                continue
            if only_dead and (pid in alive_runs or _pid_alive(pid)):
                continue
            try:
                d.rmdir()  # only when empty: the output of finished runs stays
            except OSError:
                pass
    return sorted(done)


# --------------------------------------------------------------------------
# what of a scenario the emulator can run

#: scenario TCP setting -> how Linux gets it (a namespace sysctl or a route
#: attribute); settings not listed here are reported as ignored when they
#: differ from Linux's own behaviour.
TCP_SETTINGS = {
    "cc": "sysctl net.ipv4.tcp_congestion_control",
    "sack": "sysctl net.ipv4.tcp_sack",
    "timestamps": "sysctl net.ipv4.tcp_timestamps",
    "window_scaling": "sysctl net.ipv4.tcp_window_scaling",
    "syn_retries": "sysctl net.ipv4.tcp_syn_retries",
    "max_retransmissions": "sysctl net.ipv4.tcp_retries2",
    "rwnd_bytes": "sysctl net.ipv4.tcp_rmem (maximum 2 x the window: Linux "
                  "advertises about half its receive buffer)",
    "rwnd_packets": "as rwnd_bytes, rwnd_packets x mss",
    "mss": "interface MTU = mss + 40",
    "initial_window": "route initcwnd",
    "min_rto_ms": "route rto_min",
    "delayed_ack": "route quickack (false: every segment ACKed at once)",
}
CC_LINUX = {"reno": "reno", "newreno": "reno", "cubic": "cubic", "bbr": "bbr"}
CC_KEY = "net.ipv4.tcp_congestion_control"


def tcp_plan(tcp: dict) -> tuple[dict, dict, list[str]]:
    """(sysctls, route attributes, ignored settings) for the [tcp] table
    (normalised: every key present)."""
    tcp = {k: v for k, v in tcp.items() if v is not None}  # normalised: None = default
    sysctl: dict = {}
    route: dict = {}
    ignored: list[str] = []
    cc = tcp.get("cc", "reno")
    if cc in CC_LINUX:
        sysctl["net.ipv4.tcp_congestion_control"] = CC_LINUX[cc]
    else:
        ignored.append(f"tcp.cc = {cc!r} (Linux here has {', '.join(sorted(CC_LINUX))}; host default used)")
    sysctl["net.ipv4.tcp_sack"] = int(bool(tcp.get("sack", True)))
    sysctl["net.ipv4.tcp_timestamps"] = int(bool(tcp.get("timestamps", False)))
    sysctl["net.ipv4.tcp_window_scaling"] = int(bool(tcp.get("window_scaling", True)))
    sysctl["net.ipv4.tcp_syn_retries"] = min(int(tcp.get("syn_retries", 6)), 127)
    sysctl["net.ipv4.tcp_retries2"] = min(int(tcp.get("max_retransmissions", 15)), 255)
    # fresh state per run: no cached ssthresh/RTT from an earlier connection
    sysctl["net.ipv4.tcp_no_metrics_save"] = 1
    mss = int(tcp.get("mss", 1460))
    rwnd = tcp.get("rwnd_packets")
    if rwnd or "rwnd_bytes" in tcp or not tcp.get("window_scaling", True):
        # A window the scenario names (or the 65535 bytes of an unscaled
        # one): the buffer that advertises it (Linux advertises about half
        # of tcp_rmem as window).
        rwnd_bytes = int(rwnd) * mss if rwnd else int(tcp.get("rwnd_bytes", 65535))
        buf = max(4096, 2 * rwnd_bytes)
        sysctl["net.ipv4.tcp_rmem"] = f"4096 {min(buf, 131072)} {buf}"
    # Otherwise the host's autotuning, which the simulator's default
    # receive buffer (6 MiB, tcp_rmem's maximum) stands for.
    if tcp.get("initial_window") is not None:
        route["initcwnd"] = str(int(tcp["initial_window"]))
    route["rto_min"] = f"{int(float(tcp.get('min_rto_ms', 1000.0)))}ms"
    if not tcp.get("delayed_ack", True):
        route["quickack"] = "1"
    rec = tcp.get("recovery", "newreno")
    if rec in ("tahoe", "reno"):
        ignored.append(f"tcp.recovery = {rec!r} (Linux recovers with SACK/NewReno, PRR and RACK)")
    if not tcp.get("limited_transmit", True):
        ignored.append("tcp.limited_transmit = false (always on in Linux)")
    if float(tcp.get("initial_rto_ms", 1000.0)) != 1000.0:
        ignored.append("tcp.initial_rto_ms (Linux: 1 s)")
    if float(tcp.get("max_rto_ms", 60000.0)) != 60000.0:
        ignored.append("tcp.max_rto_ms (Linux: 120 s)")
    if tcp.get("delayed_ack", True) and (int(tcp.get("delayed_ack_count", 2)) != 2
                                         or float(tcp.get("delayed_ack_ms", 200.0)) != 200.0):
        ignored.append("tcp.delayed_ack_count / delayed_ack_ms (Linux's own delayed-ACK rules)")
    if tcp.get("trace_cwnd"):
        ignored.append("tcp.trace_cwnd (use ss -i inside a namespace)")
    if tcp.get("pacing") and cc != "bbr":
        # Linux paces a flow itself only when its controller asks (BBR);
        # others are paced by the fq qdisc, which the emulator does not set
        ignored.append("tcp.pacing (Linux paces a non-BBR flow only under the fq qdisc)")
    return sysctl, route, ignored


@dataclass
class Command:
    node: str
    argv: list
    start_s: float = 0.0
    server: bool = False
    label: str = ""
    proc: Any = None
    out: Any = None
    err: Any = None
    rc: Optional[int] = None
    iperf_json: bool = False
    started_s: Optional[float] = None
    stdout: str = ""
    stderr: str = ""
    #: the ``-- COMMAND``: the run ends when it exits
    main: bool = False
    #: still running at the end, stopped by the emulator
    stopped: bool = False


def traffic_commands(config: dict, names: list[str], duration: float, file: str) -> list[Command]:
    """iperf3 servers and clients for the scenario's TCP flows."""
    cmds: list[Command] = []
    servers: dict = {}
    stations = [n for n in names if n.startswith("sta")]
    for i, t in enumerate(config.get("traffic", [])):
        where = f"traffic[{i}]"
        if t.get("kind") != "tcp":
            raise InputError(file, f"{where}.kind", f"the emulator runs TCP flows only (as iperf3 "
                             f"transfers), not {t.get('kind')!r}; remove it or use --on")
        sel = _get(t, "stations", "all")
        idx = list(range(len(stations))) if sel == "all" else [int(x) for x in sel]
        peers = _get(t, "peer", "ap")
        for k, si in enumerate(idx):
            sta = stations[si]
            peer = peers[k] if isinstance(peers, list) else peers
            if peer not in names:
                raise InputError(file, f"{where}.peer", f"no node {peer!r}")
            start = float(_get(t, "start_s", 0.0)) + k * float(_get(t, "start_stagger_s", 0.0))
            stop = t.get("stop_s")
            end = min(float(stop), duration) if stop is not None else duration
            # the transfer ends at the scenario's end; the emulation runs
            # END_MARGIN_S longer for iperf3 to exchange its results (its
            # control connection queues behind the data)
            secs = end - start
            if secs < 1:
                continue
            up = _get(t, "direction", "uplink") == "uplink"
            # The server sits at the data's receiver for an upload, at the
            # station for a download (iperf3 -R reverses the data).
            srv_node, cli_node = (peer, sta)
            port = IPERF_PORT + len(servers)
            servers[(srv_node, port)] = True
            cmds.append(Command(srv_node, ["iperf3", "-s", "-1", "-p", str(port)], 0.0, True,
                                f"{t['name']}/{sta} server"))
            argv = ["iperf3", "-c", srv_node, "-p", str(port), "-J", "-t", f"{secs:.1f}"]
            if not up:
                argv.append("-R")
            if t.get("bytes") is not None:
                argv[argv.index("-t"):argv.index("-t") + 2] = ["-n", str(int(t["bytes"]))]
            cmds.append(Command(cli_node, argv, start, False, f"{t['name']}/{sta}", iperf_json=True))
    return cmds


def check_supported(config: dict, file: str) -> None:
    """Refuse, in one line, a scenario feature the emulator cannot run."""
    w = config.get("wlan", {})
    if int(_get(w, "aps", 1)) != 1:
        raise InputError(file, "wlan.aps", "the emulator runs one BSS only")
    proxy = (config.get("ap") or {}).get("proxy") or {}
    kind = _get(proxy, "kind", "none")
    if kind != "none":
        # A proxy makes, resends and terminates TCP segments inside the
        # simulation: a segment it makes has no real bytes to write out
        # (frames.rs writes such a packet from its headers, with no
        # payload; a resent one finds its bytes gone once the first copy
        # was written), so the real endpoints would see a corrupted stream.
        raise InputError(file, "ap.proxy.kind", f"the emulator cannot run a proxy ({kind!r}): the "
                         "segments it makes or resends have no real bytes; remove [ap.proxy]")
    for i, t in enumerate(config.get("traffic") or []):
        if t.get("kind") != "tcp":
            continue  # refused by traffic_commands, naming the kind
        if any(v is not None for v in (t.get("tcp") or {}).values()):
            raise InputError(file, f"traffic[{i}].tcp", "per-flow TCP settings: a namespace has one "
                             "TCP configuration; put them in [tcp]")


# --------------------------------------------------------------------------
# the run

@dataclass
class Emulation:
    config: dict
    seed: int
    names: list
    file: str
    max_lag_ms: Optional[float] = None
    log_dir: Optional[str] = None
    pcap: Optional[str] = None
    ns: dict = field(default_factory=dict)      # node -> namespace
    fds: list = field(default_factory=list)     # (node, name, fd)
    ignored: list = field(default_factory=list)
    stop_r: int = -1
    stop_w: int = -1
    end_r: int = -1
    end_w: int = -1
    #: the controller iperf3 flows ask for per socket (set by setup)
    cc_per_socket: Optional[str] = None
    #: more sysctls for every namespace (--sysctl KEY=VALUE)
    extra_sysctl: dict = field(default_factory=dict)
    #: the run's directory (the commands' output)
    work: Optional[Path] = None
    #: what the run created, as recorded in its state file
    state: dict = field(default_factory=dict)
    #: the PID namespace's holder (``unshare``, whose child is the init)
    holder: Any = None
    #: the init of the run's PID namespace (as the root namespace numbers it)
    pidns_init: int = -1

    def ns_name(self, node: str) -> str:
        return f"{PREFIX}{os.getpid()}-{node}"

    def state_path(self) -> Path:
        return STATE_DIR / f"{os.getpid()}.json"

    def save_state(self) -> None:
        """Write what the run created so far (before creating more), for
        ``--cleanup`` after a crash."""
        if not self.state:
            self.state = {"pid": os.getpid(), "start": _proc_start(os.getpid()),
                          "work": str(self.work) if self.work else None,
                          "namespaces": [], "holder": None, "commands": []}
        STATE_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = self.state_path().with_suffix(".tmp")
        tmp.write_text(json.dumps(self.state))
        os.replace(tmp, self.state_path())

    def start_pidns(self) -> None:
        """Start the run's PID namespace: its holder (``unshare``) gets
        SIGKILL when the emulator dies (``setpriv --pdeathsig``: the death
        signal stays across exec) and its init gets SIGKILL when the holder
        dies (``--kill-child``); an init's death kills every process of the
        namespace."""
        self.holder = subprocess.Popen(
            ["setpriv", "--pdeathsig", "KILL", "--", "unshare", "--pid", "--kill-child", "--",
             "sh", "-c", PIDNS_INIT], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True)
        self.state["holder"] = [self.holder.pid, _proc_start(self.holder.pid)]
        self.save_state()
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            if self.holder.poll() is not None:
                err = self.holder.stderr.read().decode(errors="replace").strip()
                raise RunError(f"cannot create the run's PID namespace: {err or self.holder.returncode}")
            # after the exec into unshare, its child is the namespace's init
            kids = _children(self.holder.pid) if _proc_start(self.holder.pid) else []
            for k in kids:
                try:
                    if os.readlink(f"/proc/{k}/ns/pid") != os.readlink("/proc/self/ns/pid"):
                        self.pidns_init = k
                        return
                except OSError:
                    pass
            time.sleep(0.005)
        raise RunError("cannot create the run's PID namespace: its init did not start within 5 s")

    def stop_pidns(self) -> None:
        """Kill the run's PID namespace (every process still in it)."""
        if self.holder is not None:
            if self.holder.poll() is None:
                try:
                    os.killpg(self.holder.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            self.holder.wait()
            if self.holder.stderr is not None:
                self.holder.stderr.close()
            self.holder = None
            self.pidns_init = -1

    def setup(self) -> None:
        sysctl, route, self.ignored = tcp_plan(self.config.get("tcp") or {})
        hosts = "127.0.0.1 localhost\n" + "".join(
            f"{addr_of(i)} {n}\n" for i, n in enumerate(self.names))
        mtu = int(_get(self.config.get("tcp") or {}, "mss", 1460)) + 40
        for i, node in enumerate(self.names):
            ns = self.ns_name(node)
            self.state["namespaces"].append(ns)
            self.save_state()
            _ip("netns", "add", ns)
            self.ns[node] = ns
            etc = NETNS_ETC / ns
            etc.mkdir(parents=True, exist_ok=True)
            (etc / "hosts").write_text(hosts)
            # sysctls first: IPv6 off before the interface comes up (no
            # router solicitations on it)
            cc = sysctl.get(CC_KEY)
            if cc is not None:
                # Linux lets a namespace's default be only a controller of the
                # host's net.ipv4.tcp_allowed_congestion_control (the host is
                # left alone): otherwise the scenario's flows ask for it per
                # socket (iperf3 -C) and the namespace keeps the host default.
                r = subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"{CC_KEY}={cc}"],
                                   capture_output=True, text=True)
                if r.returncode != 0 and i == 0:
                    self.cc_per_socket = cc
                    host = Path("/proc/sys/net/ipv4/tcp_congestion_control").read_text().strip()
                    self.ignored.append(f"tcp.cc = {cc!r} as the namespaces' default (not in the host's "
                                        f"tcp_allowed_congestion_control; iperf3 flows use -C {cc}, "
                                        f"other commands get {host!r})")
            args = ["ip", "netns", "exec", ns, "sysctl", "-q", "-w"]
            args += [f"{k}={v}" for k, v in sysctl.items() if k != CC_KEY]
            args += ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
            r = subprocess.run(args, capture_output=True, text=True)
            if r.returncode != 0:
                raise RunError(f"sysctl in {ns}: {r.stderr.strip()}")
            if self.extra_sysctl:
                r = subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w",
                                    *(f"{k}={v}" for k, v in self.extra_sysctl.items())],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    raise InputError("--sysctl", "", r.stderr.strip().splitlines()[0])
            tmp = f"wte{os.getpid() % 100000}x{i}"[:15]
            fd = core.impl().emu_open_tun(tmp)
            self.fds.append((node, node, fd))
            _ip("link", "set", tmp, "netns", ns)
            _ip("-n", ns, "link", "set", tmp, "name", IFACE)
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "link", "set", IFACE, "mtu", str(mtu), "up")
            _ip("-n", ns, "addr", "add", f"{addr_of(i)}/32", "dev", IFACE)
            attrs = [x for k, v in route.items() for x in (k, v)]
            _ip("-n", ns, "route", "add", "default", "dev", IFACE, *attrs)
        self.stop_r, self.stop_w = os.pipe()
        self.end_r, self.end_w = os.pipe()

    def teardown(self) -> None:
        for _, _, fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = []
        self.stop_pidns()
        for ns in self.ns.values():
            remove_namespace(ns)
        self.ns = {}
        for fd in (self.stop_r, self.stop_w, self.end_r, self.end_w):
            if fd >= 0:
                os.close(fd)
        self.stop_r = self.stop_w = self.end_r = self.end_w = -1

    def end_now(self) -> None:
        """End the run now, normally (the -- COMMAND exited)."""
        if self.end_w >= 0:
            try:
                os.write(self.end_w, b"e")
            except OSError:
                pass

    def stop(self) -> None:
        if self.stop_w >= 0:
            try:
                os.write(self.stop_w, b"x")
            except OSError:
                pass

    def start(self, c: Command, t0: float, outdir: Path) -> None:
        safe = c.label.replace("/", "_").replace(" ", "_") or c.node
        c.out = open(outdir / f"{safe}.out", "w+")
        c.err = open(outdir / f"{safe}.err", "w+")
        c.started_s = time.monotonic() - t0
        if c.iperf_json and self.cc_per_socket and "-C" not in c.argv:
            c.argv = [*c.argv, "-C", self.cc_per_socket]
        # nsenter (dying with the emulator) forks the command into the run's
        # PID namespace, waits for it and exits as it did
        c.proc = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", "--",
                                   "nsenter", "--target", str(self.pidns_init), "--pid", "--",
                                   "ip", "netns", "exec", self.ns[c.node], *c.argv], stdout=c.out,
                                  stderr=c.err, stdin=subprocess.DEVNULL, start_new_session=True)
        self.state["commands"].append([c.proc.pid, _proc_start(c.proc.pid)])
        self.save_state()


def _finish_command(c: Command) -> dict:
    for f, attr in ((c.out, "stdout"), (c.err, "stderr")):
        if f is not None:
            f.seek(0)
            setattr(c, attr, f.read())
            f.close()
    d = {"node": c.node, "label": c.label, "argv": c.argv, "start_s": c.start_s,
         "started_s": c.started_s, "exit_status": c.rc, "server": c.server}
    if c.main:
        d["main"] = True
    if c.stopped:
        d["stopped_at_end"] = True
    if c.stdout.lstrip().startswith("{") and '"end"' in c.stdout:  # iperf3 -J
        try:
            j = json.loads(c.stdout)
            end = j.get("end", {})
            rx = end.get("sum_received", {})
            tx = end.get("sum_sent", {})
            d["iperf3"] = {"received_mbps": rx.get("bits_per_second", 0) / 1e6,
                           "sent_mbps": tx.get("bits_per_second", 0) / 1e6,
                           "retransmits": tx.get("retransmits"),
                           "seconds": rx.get("seconds"),
                           "error": j.get("error")}
            return d
        except (json.JSONDecodeError, AttributeError):
            pass
    d["stdout"] = c.stdout[-4000:]
    d["stderr"] = c.stderr[-2000:]
    return d


class _Worker:
    """A daemon thread running ``target``, and whether it has returned.

    Whether it has is what ``target``'s own `threading.Event` says, not
    `threading.Thread.join`: in Python 3.11 and 3.12 a join that a signal
    handler's exception interrupts (SIGTERM and SIGINT raise
    KeyboardInterrupt here) marks the thread as stopped while it runs
    (`Thread._wait_for_tstate_lock`), and every later join returns at once.
    The interpreter would then finalise while the thread is still in the
    core, and the thread's return into Python during finalisation ends it
    by a forced unwind through the core's frames, which glibc aborts
    ("FATAL: exception not rethrown", exit status -6 instead of 130).
    """

    def __init__(self, target: Any, name: str):
        self.done = threading.Event()

        def body() -> None:
            try:
                target()
            finally:
                self.done.set()

        self.thread = threading.Thread(target=body, name=name, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def running(self) -> bool:
        """Started and not returned (false before `start`)."""
        return self.thread.ident is not None and not self.done.is_set()

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for ``target`` to return; whether it has."""
        return self.done.wait(timeout)


def check_max_lag(max_lag_ms: Optional[float]) -> None:
    """``--max-lag-ms``: a positive number of milliseconds (or None)."""
    if max_lag_ms is None:
        return
    if isinstance(max_lag_ms, bool) or not isinstance(max_lag_ms, (int, float)) \
            or not (math.isfinite(max_lag_ms) and 0 < max_lag_ms <= 1e9):
        raise InputError("--max-lag-ms", "", f"{max_lag_ms!r} ms: must be a positive number of "
                                             "milliseconds")


def run(config: dict, seed: int, *, file: str, duration: Optional[float], on: list,
        pcap: Optional[str] = None, max_lag_ms: Optional[float] = None,
        workdir: Optional[str] = None, sysctls: tuple = (), main: Optional[list] = None,
        main_node: Optional[str] = None) -> dict:
    """Emulate one configuration (normalised config dict) and return the
    result (the core's result plus ``emulation`` and ``commands``).

    ``main``: the ``-- COMMAND`` (an argv, no shell), run in ``main_node``'s
    namespace (default: the first station's: the WLAN end of the path, where
    a researcher's client program, browser or Flent sits); the run ends
    when it exits, or at ``duration`` when given (the command is then
    stopped). Without ``duration`` such a run lasts at most MAIN_LIMIT_S;
    the scenario's own TCP flows still run for ``scenario.duration_s``."""
    check_max_lag(max_lag_ms)
    config = json.loads(json.dumps(config))
    explicit = duration is not None
    if explicit:
        config["scenario"]["duration_s"] = float(duration)
    duration = float(_get(config["scenario"], "duration_s", 10.0))
    check_supported(config, file)
    names = node_names(config)
    for node, _ in on:
        if node not in names:
            raise InputError("--on", "", f"no node {node!r} in the scenario (nodes: {', '.join(names)})")
    cmds = traffic_commands(config, names, duration, file)
    cmds += [Command(node, ["sh", "-c", cmd], 0.0, False, f"on {node} {k}") for k, (node, cmd) in enumerate(on)]
    if main:
        stations = [n for n in names if n.startswith("sta")]
        node = main_node or (stations[0] if stations else names[0])
        if node not in names:
            raise InputError("--node", "", f"no node {node!r} in the scenario (nodes: {', '.join(names)})")
        cmds.append(Command(node, list(main), 0.0, False, f"main {node}", main=True))
    for c in cmds:
        if shutil.which(c.argv[0]) is None:
            where = "--" if c.main else file if c.argv[0] == "iperf3" else "--on"
            raise InputError(where, "", f"{c.argv[0]} not found" + (
                "" if c.main else f" (install it: apt-get install {c.argv[0]})"))
    if not has_net_admin():
        raise InputError("emulate", "", "needs root or CAP_NET_ADMIN (it creates network namespaces "
                                        "and TUN interfaces)")
    if shutil.which("ip") is None:
        raise InputError("emulate", "", "the ip command (iproute2) is not installed")
    missing = [t for t in PIDNS_TOOLS if shutil.which(t) is None]
    if missing:
        raise InputError("emulate", "", f"{', '.join(missing)} not found (util-linux: the run's "
                                        "commands run in a PID namespace that dies with the emulator)")
    cleanup(only_dead=True)
    core_config = dict(config)
    core_config["traffic"] = []  # the real flows replace the simulated ones
    measure_until = None
    if cmds and any(c.iperf_json for c in cmds):
        core_config["scenario"] = dict(config["scenario"], duration_s=duration + END_MARGIN_S)
        measure_until = duration
    if main and not explicit:
        core_config["scenario"] = dict(config["scenario"], duration_s=MAIN_LIMIT_S)
    em = Emulation(core_config, seed, names, file, max_lag_ms, pcap=pcap)
    for item in sysctls:
        key, sep, value = item.partition("=")
        if not sep or not key.startswith("net."):
            raise InputError("--sysctl", "", f"{item!r}: expected net.KEY=VALUE")
        em.extra_sysctl[key.strip()] = value.strip()
    work = Path(workdir or work_root()) / f"{WORK_PREFIX}{os.getpid()}"
    em.work = work
    result: dict = {}
    failure: list = []

    ports: list = []

    def loop():
        try:
            text = core.impl().emulate(json.dumps(core_config), seed, ports, stop_fd=em.stop_r,
                                max_lag_ms=max_lag_ms, log_dir=pcap and str(Path(pcap) / "tun"),
                                pcap=pcap, measure_until_s=measure_until,
                                end_fd=em.end_r if main else None)
            result.update(json.loads(text))
        except BaseException as e:  # reported by the main thread
            failure.append(e)

    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    th = None
    try:
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        em.save_state()
        work.mkdir(parents=True, exist_ok=True)
        em.start_pidns()
        em.setup()
        for c in cmds:
            if c.server:
                em.start(c, time.monotonic(), work)
        if any(c.server for c in cmds):
            time.sleep(0.3)  # servers listening before the clock starts
        th = _Worker(loop, "wifitcp-emulator")
        ports[:] = em.fds
        em.fds = []  # the core owns (and closes) the descriptors now
        t0 = time.monotonic()
        th.start()
        pending = sorted((c for c in cmds if not c.server), key=lambda c: c.start_s)
        main_cmd = next((c for c in cmds if c.main), None)
        ended = False
        while th.running():
            now = time.monotonic() - t0
            while pending and pending[0].start_s <= now:
                em.start(pending.pop(0), t0, work)
            if (main_cmd is not None and not ended and main_cmd.proc is not None
                    and main_cmd.proc.poll() is not None):
                em.end_now()
                ended = True
            th.wait(0.05)
        for c in cmds:
            if c.proc is not None:
                c.rc = c.proc.poll()
                if c.rc is None:
                    c.stopped = True
                    _kill(c)
    except KeyboardInterrupt:
        em.stop()
        if th is not None:
            th.wait(10)
        raise
    finally:
        for c in cmds:
            if c.proc is not None and c.proc.poll() is None:
                _kill(c)
        em.teardown()
        try:
            work.rmdir()  # only when empty: no command wrote to it
        except OSError:
            pass
        if em.state:
            em.state_path().unlink(missing_ok=True)
        for s, h in old.items():
            signal.signal(s, h)
    if failure:
        e = failure[0]
        if isinstance(e, ValueError):
            from .errors import split_core_message

            path, reason = split_core_message(str(e))
            raise InputError(file, path, reason)
        raise RunError(f"emulation failed: {e}")
    result["commands"] = [_finish_command(c) for c in cmds]
    scenario_flows(result, cmds)
    result["emulation"]["ignored_settings"] = em.ignored
    result["emulation"]["sysctl"] = em.extra_sysctl
    result["emulation"]["output_dir"] = str(work) if work.is_dir() else None
    return result


def scenario_flows(result: dict, cmds: list) -> None:
    """Goodput and Jain index over the scenario's flows, as `run` counts
    them: one value per flow of the scenario (its iperf3 data connection's
    goodput at the MAC, 0 for a flow that never carried data, e.g. one
    whose SYNs were all lost), instead of over the 5-tuples seen."""
    clients = [c for c in cmds if c.iperf_json and not c.server]
    if not clients:
        return
    flows = result.get("flows", [])
    out = []
    for c in clients:
        port = int(c.argv[c.argv.index("-p") + 1])
        peer = c.argv[c.argv.index("-c") + 1]
        if "-R" in c.argv:  # download: data from the peer's port to the station
            mine = [f for f in flows if f["src"] == peer and f["dst"] == c.node and f["src_port"] == port]
        else:
            mine = [f for f in flows if f["src"] == c.node and f["dst"] == peer and f["dst_port"] == port]
        best = max(mine, key=lambda f: f["bytes_delivered"], default=None)
        out.append({"name": c.label, "src": c.node if "-R" not in c.argv else peer,
                    "dst": peer if "-R" not in c.argv else c.node,
                    "goodput_mbps": best["goodput_mbps"] if best else 0.0,
                    "mac_flow": best["name"] if best else None})
    g = [f["goodput_mbps"] for f in out]
    s = sum(g)
    sq = sum(x * x for x in g)
    result["scenario_flows"] = out
    result["aggregate_mbps"] = s
    result["jain_index"] = s * s / (len(g) * sq) if sq > 0 else 1.0


def _group(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` (zombies left out)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                f = (d / "stat").read_text().rsplit(")", 1)[1].split()
                if int(f[2]) == pgid and f[0] != "Z":
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _kill(c: Command) -> None:
    """Stop a command still running: SIGTERM to its process group, SIGKILL
    to what is left 2 s later. The group's leader is the ``nsenter`` that
    waits for the command: it is spared the SIGTERM (it would die at once
    and leave the command, say an iperf3 writing its report, to the end of
    the run's PID namespace) and exits as the command does."""
    pid = c.proc.pid
    for p in _group(pid):
        if p != pid:
            try:
                os.kill(p, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
    try:
        c.proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    c.proc.wait()
    c.rc = c.proc.poll()
