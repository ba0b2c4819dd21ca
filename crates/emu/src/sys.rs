//! The Linux calls the emulator makes: a TUN interface (`/dev/net/tun`,
//! `TUNSETIFF`), epoll over the interfaces' descriptors, a timerfd for the
//! next wake-up with nanosecond resolution, and non-blocking reads and
//! writes. Every call returns `io::Result`; nothing here panics on a
//! failed system call.
//!
//! Invariant: each wrapper owns its descriptor and closes it once, on drop
//! (a TUN interface created without `TUNSETPERSIST` disappears with its last
//! descriptor, so an emulator killed with SIGKILL leaves no interface
//! behind; only the namespaces need `--cleanup`).
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Longest interface name Linux accepts (IFNAMSIZ - 1).
pub const IFNAMSIZ_MAX: usize = 15;

/// `struct ifreq` as `TUNSETIFF` reads it: the name, then the flags.
#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// A TUN interface in layer-3 mode without packet information
/// (`IFF_TUN | IFF_NO_PI`): each read returns one IPv4 (or IPv6) datagram
/// the kernel routed to the interface, each write hands one datagram to the
/// kernel as if received on it. No `IFF_VNET_HDR`: the kernel segments
/// (GSO) and checksums every packet before handing it over, so each read is
/// one MTU-sized datagram with valid checksums.
pub struct Tun {
    fd: OwnedFd,
    name: String,
}

impl Tun {
    /// Create the interface `name` in the caller's network namespace,
    /// non-blocking and close-on-exec.
    pub fn create(name: &str) -> io::Result<Tun> {
        if name.is_empty() || name.len() > IFNAMSIZ_MAX || name.contains(['/', ' ', '\0']) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("bad interface name {name:?}")));
        }
        let path = c"/dev/net/tun";
        // SAFETY: a valid NUL-terminated path; the result is checked.
        let raw = cvt(unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) })?;
        // SAFETY: `raw` is a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req = IfReq {
            name: [0; libc::IFNAMSIZ],
            flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short,
            _pad: [0; 22],
        };
        for (d, s) in req.name.iter_mut().zip(name.bytes()) {
            *d = s as libc::c_char;
        }
        // SAFETY: TUNSETIFF reads a `struct ifreq`, which `IfReq` lays out.
        cvt(unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF as _, &mut req as *mut IfReq) })?;
        Ok(Tun { fd, name: name.to_string() })
    }

    /// Wrap a descriptor opened elsewhere (made non-blocking here).
    pub fn from_fd(fd: OwnedFd, name: &str) -> io::Result<Tun> {
        set_nonblocking(fd.as_raw_fd())?;
        Ok(Tun { fd, name: name.to_string() })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Give the descriptor away (to Python, which passes it back later).
    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }

    /// One datagram, or `None` when none is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        read_nb(self.fd.as_raw_fd(), buf)
    }

    /// Hand one datagram to the kernel.
    pub fn send(&self, bytes: &[u8]) -> io::Result<()> {
        // SAFETY: `bytes` is a valid buffer of its length.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl AsRawFd for Tun {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

pub fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns; results checked.
    let fl = cvt(unsafe { libc::fcntl(fd, libc::F_GETFL) })?;
    cvt(unsafe { libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) })?;
    Ok(())
}

/// A non-blocking read: `None` on EAGAIN.
pub fn read_nb(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: `buf` is a valid writable buffer of its length.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock => Ok(None),
            io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}

/// An epoll instance; each registered descriptor is reported with the
/// token given at registration.
pub struct Epoll {
    fd: OwnedFd,
    events: Vec<libc::epoll_event>,
}

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: plain syscall; result checked.
        let raw = cvt(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        // SAFETY: a fresh descriptor we own.
        Ok(Epoll {
            fd: unsafe { OwnedFd::from_raw_fd(raw) },
            events: vec![libc::epoll_event { events: 0, u64: 0 }; 64],
        })
    }

    /// Watch `fd` for input (level-triggered), reported as `token`.
    pub fn add(&self, fd: RawFd, token: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: token };
        // SAFETY: valid epoll and target descriptors; `ev` lives across the call.
        cvt(unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) })?;
        Ok(())
    }

    /// Block until a descriptor is ready (no timeout: the timerfd bounds
    /// the wait); the tokens of the ready ones.
    pub fn wait(&mut self, out: &mut Vec<u64>) -> io::Result<()> {
        out.clear();
        // SAFETY: `events` is a valid array of its length.
        let n =
            unsafe { libc::epoll_wait(self.fd.as_raw_fd(), self.events.as_mut_ptr(), self.events.len() as i32, -1) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted { Ok(()) } else { Err(e) };
        }
        out.extend(self.events[..n as usize].iter().map(|e| e.u64));
        Ok(())
    }
}

/// A CLOCK_MONOTONIC timerfd armed at absolute instants.
pub struct Timer {
    fd: OwnedFd,
}

impl Timer {
    pub fn new() -> io::Result<Timer> {
        // SAFETY: plain syscall; result checked.
        let raw = cvt(unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) })?;
        // SAFETY: a fresh descriptor we own.
        Ok(Timer { fd: unsafe { OwnedFd::from_raw_fd(raw) } })
    }

    /// Fire at the CLOCK_MONOTONIC instant `ns` (an instant in the past
    /// fires at once).
    pub fn arm_at(&self, ns: u64) -> io::Result<()> {
        let ns = ns.max(1); // all zero would disarm
        let its = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec { tv_sec: (ns / 1_000_000_000) as _, tv_nsec: (ns % 1_000_000_000) as _ },
        };
        // SAFETY: valid descriptor and `itimerspec`; result checked.
        cvt(unsafe {
            libc::timerfd_settime(self.fd.as_raw_fd(), libc::TFD_TIMER_ABSTIME, &its, std::ptr::null_mut())
        })?;
        Ok(())
    }

    /// Consume the expiry count (so level-triggered epoll stops reporting).
    pub fn clear(&self) {
        let mut b = [0u8; 8];
        let _ = read_nb(self.fd.as_raw_fd(), &mut b);
    }
}

impl AsRawFd for Timer {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// CLOCK_MONOTONIC now, in nanoseconds (the clock the timerfd uses).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out-pointer; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Ask the kernel to wake this thread within 1 us of a timer instead of the
/// default 50 us slack (prctl PR_SET_TIMERSLACK); best effort.
pub fn tight_timer_slack() {
    // SAFETY: plain prctl; failure only leaves the default slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong) };
}

/// Run the calling thread under SCHED_FIFO at `priority` (1..99), so that
/// the loop preempts ordinary processes when a timer or a datagram wakes
/// it (the kernel's RT throttling, `sched_rt_runtime_us`, still leaves
/// other tasks 5 % of each CPU). Needs CAP_SYS_NICE; whether it worked.
pub fn realtime(priority: i32) -> bool {
    let p = libc::sched_param { sched_priority: priority };
    // SAFETY: valid `sched_param`; 0 = the calling thread.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0 }
}
