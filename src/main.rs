//! The `toolscout` binary: the command line lives in `cli/`, everything it calls in the
//! library.

mod cli;

fn main() -> std::process::ExitCode {
    return_freed_memory();
    cli::main()
}

/// Has glibc give freed heap memory back to the system past 1 MB. By default it keeps what
/// a burst freed: embedding the catalog at start and the threads of a loaded server left a
/// serving process at 345 MB where 203 MB were in use (measured with the same build through
/// `MALLOC_TRIM_THRESHOLD_`; distinct searches on two connections answered as fast either way).
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tuning parameter of the allocator; it is called before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 20);
    }
}
