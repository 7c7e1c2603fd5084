//! The `toolscout` binary: the command line lives in `cli/`, everything it calls in the
//! library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
