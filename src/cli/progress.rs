//! A progress bar for long embedding work started from the command line (`serve` and `mcp`
//! starting on a new catalog, `catalog import`, `eval`): the passages done, their rate and the
//! time left, on stderr. Only when stderr is a terminal and the work is long (at least
//! [`MIN_TEXTS`] texts in one call, a few hundred tools' worth of passages); logs and pipes
//! stay clean. The model reports its chunks (`OnnxEmbedder::set_progress`), so showing progress
//! changes no batch and no vector.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use toolscout::embed::onnx::{OnnxEmbedder, Progress};

/// Calls with fewer texts than this show nothing (a query, a few changed tools).
const MIN_TEXTS: usize = 256;

/// Gives `embedder` a progress bar on stderr when stderr is a terminal.
pub(crate) fn attach(embedder: &mut OnnxEmbedder) {
    if std::io::stderr().is_terminal() {
        embedder.set_progress(observer());
    }
}

fn observer() -> Progress {
    let bar: Mutex<Option<ProgressBar>> = Mutex::new(None);
    Box::new(move |done, total| {
        let Ok(mut bar) = bar.lock() else {
            return;
        };
        if total < MIN_TEXTS {
            return;
        }
        if done == 0 {
            let new = ProgressBar::new(total as u64).with_style(style());
            new.set_message("embedding");
            *bar = Some(new);
        } else if let Some(b) = bar.as_ref() {
            b.set_position(done as u64);
            if done >= total {
                b.finish_and_clear();
                *bar = None;
            }
        }
    })
}

fn style() -> ProgressStyle {
    ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} texts, {per_sec}, {eta} left")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}
