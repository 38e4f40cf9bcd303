//! Keeping stdout for protocol messages only.
//!
//! On Unix the runtime takes a private duplicate of the real stdout for itself, then points
//! file descriptor 1 at stderr: a stray `println!` in a tool, or a child process inheriting
//! stdout, then lands in the log instead of corrupting the JSON-RPC stream.

use std::io::{self, Write};

/// The protocol output: the real stdout, which nothing else in the process writes to any more.
#[cfg(unix)]
pub(crate) fn take_protocol_output() -> io::Result<impl Write + Send + 'static> {
    use std::fs::File;
    use std::os::fd::{AsRawFd, FromRawFd};

    // Whatever the program printed before serving belongs before the protocol stream.
    io::stdout().lock().flush()?;
    // SAFETY: plain fd syscalls on descriptors this process owns; `F_DUPFD_CLOEXEC` returns a
    // fresh descriptor nobody else holds, so the `File` built from it owns it alone.
    let protocol = unsafe {
        let fd = libc::fcntl(libc::STDOUT_FILENO, libc::F_DUPFD_CLOEXEC, 3);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        File::from_raw_fd(fd)
    };
    // SAFETY: as above; dup2 atomically repoints descriptor 1.
    if unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) } < 0 {
        // No usable stderr: silence stray output rather than let it reach the protocol.
        let error = io::Error::last_os_error();
        let null = File::options().write(true).open("/dev/null")?;
        // SAFETY: as above.
        if unsafe { libc::dup2(null.as_raw_fd(), libc::STDOUT_FILENO) } < 0 {
            return Err(error);
        }
    }
    Ok(protocol)
}

/// The protocol output. Elsewhere than Unix the descriptors stay as they are.
#[cfg(not(unix))]
pub(crate) fn take_protocol_output() -> io::Result<impl Write + Send + 'static> {
    Ok(io::stdout())
}
