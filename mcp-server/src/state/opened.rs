//! Where an open file really is: what a check made after opening relies
//! on, since a path checked before opening may lead elsewhere by then.

use std::path::PathBuf;

/// The path of what `file` is open on, as the kernel resolved it at open
/// time; `None` where the system does not say (no `/proc`, not Linux).
pub(crate) fn opened_path(file: &std::fs::File) -> Option<PathBuf> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        std::fs::read_link(fd_path(file)).ok()
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = file;
        None
    }
}

/// `/proc/self/fd/N`: a path that leads to the open file itself.
pub(crate) fn fd_path(file: &std::fs::File) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd as _;
        PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()))
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        PathBuf::new()
    }
}

/// Whether two metadata are of one file (device and inode).
pub(crate) fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        true
    }
}
