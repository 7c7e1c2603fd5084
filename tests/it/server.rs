//! A real `toolscout serve` process on an ephemeral loopback port, for integration tests.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A loopback address where nothing listens (the discard port): connections are refused
/// at once.
pub const CLOSED_PORT: &str = "http://127.0.0.1:9";

pub struct Server {
    pub child: Child,
    pub base: String,
    pub stderr: mpsc::Receiver<String>,
    /// The server's log directory (`TOOLSCOUT_LOG_DIR`), so no test writes to the real home;
    /// a `--log-dir` flag in the arguments overrides it.
    pub log_dir: tempfile::TempDir,
}

impl Server {
    /// Starts the binary with `serve --addr 127.0.0.1:0` plus `args`, without the embedding
    /// model (keyword search only, fast to start), and waits for it to print its address.
    pub fn start(catalog: &Path, args: &[&str]) -> Server {
        let mut all = vec!["--models", "/nonexistent-models-dir"];
        all.extend_from_slice(args);
        Server::start_with_model(catalog, &all)
    }

    /// Like `start`, with the embedding model found as the binary finds it by default.
    pub fn start_with_model(catalog: &Path, args: &[&str]) -> Server {
        Server::start_env(catalog, args, &[])
    }

    /// Like `start_with_model`, with extra environment variables (after the defaults, so
    /// they win). By default the tools' workspace is the test's working directory and GitHub
    /// and the package registries point at a closed loopback port: no test reaches the
    /// network by accident.
    pub fn start_env(catalog: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        let log_dir = tempfile::tempdir().expect("temporary log directory");
        let mut child = Command::new(super::common::toolscout_bin())
            .args([
                "--catalog",
                catalog.to_str().unwrap(),
                "serve",
                "--addr",
                "127.0.0.1:0",
            ])
            .args(args)
            .env_remove("TOOLSCOUT_AUTH_TOKEN")
            .env_remove("TOOLSCOUT_ADDR")
            .env_remove("TOOLSCOUT_MODELS_DIR")
            .env_remove("TOOLSCOUT_CORS_ORIGINS")
            .env("TOOLSCOUT_LOG_DIR", log_dir.path())
            .env("TOOLSCOUT_CACHE_DIR", log_dir.path().join("cache"))
            .env("TOOLSCOUT_DATA_DIR", log_dir.path().join("data"))
            .env_remove("TOOLSCOUT_WORKSPACE_ROOT")
            .env_remove("TOOLSCOUT_ALLOWED_PATHS")
            .env_remove("TOOLSCOUT_GITHUB_TOKEN")
            .env_remove("GH_TOKEN")
            .env_remove("GITHUB_TOKEN")
            .env("TOOLSCOUT_GITHUB_API_URL", CLOSED_PORT)
            .env("TOOLSCOUT_NPM_REGISTRY", CLOSED_PORT)
            .env("TOOLSCOUT_PYPI_URL", CLOSED_PORT)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolscout serve");
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let (etx, erx) = mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = etx.send(line);
            }
        });
        let line = rx
            .recv_timeout(Duration::from_secs(300))
            .expect("server printed its address within 300 s");
        let base = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {line}"))
            .to_string();
        Server {
            child,
            base,
            stderr: erx,
            log_dir,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Sends SIGTERM and waits for the exit status.
    pub fn terminate(self) -> (std::process::ExitStatus, Vec<String>) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
        self.terminate_wait()
    }

    /// Waits (up to 30 s) for the server, signalled already, to exit: its status and stderr.
    pub fn terminate_wait(mut self) -> (std::process::ExitStatus, Vec<String>) {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let lines: Vec<String> = self.stderr.try_iter().collect();
                return (status, lines);
            }
            assert!(
                std::time::Instant::now() < deadline,
                "server did not exit after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
