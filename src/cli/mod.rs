//! The `toolscout` command line: parses arguments into a `Config`, opens the service and
//! makes one call on it per command. Exit codes are decided in one place for every command
//! (`common::exit_code`): 0 done, 1 invalid input found (an invalid catalog, a failed tool
//! call), 2 the request could not be served.

mod call;
mod common;
mod compare;
mod eval;
mod import;
mod mcp;
mod progress;
mod recommend;
mod search;
mod serve;

use clap::{Parser, Subcommand, ValueEnum};
use common::fail;
use std::path::PathBuf;
use std::process::ExitCode;
use toolscout::catalog;
use toolscout::config::{Config, Overrides};
use toolscout::Error;

#[derive(Parser)]
#[command(
    name = "toolscout",
    version,
    about = "Finds the right tool for an agent's task, explains why, and runs it",
    long_about = "toolscout ranks the tools of a catalog for a natural-language need and serves \
                  the results over HTTP, MCP and the command line.\n\nConfiguration comes from defaults, then \
                  toolscout.toml (or --config), then TOOLSCOUT_* environment variables, then \
                  flags. `toolscout serve --print-config` shows the result."
)]
struct Cli {
    /// Configuration file (default: ./toolscout.toml when present; env TOOLSCOUT_CONFIG)
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Catalog directory (default: the installed catalog; env TOOLSCOUT_CATALOG_DIR)
    #[arg(long, global = true, value_name = "DIR")]
    catalog: Option<PathBuf>,
    /// Log filter, e.g. info or toolscout=debug (env TOOLSCOUT_LOG_LEVEL)
    #[arg(long, global = true, value_name = "FILTER")]
    log_level: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the HTTP API and MCP at /mcp (default 127.0.0.1:1987)
    Serve(serve::ServeArgs),
    /// Serve MCP over stdin and stdout, for an MCP client that starts toolscout itself
    Mcp(mcp::McpArgs),
    /// Work with the tool catalog
    Catalog {
        #[command(subcommand)]
        command: CatalogCommand,
    },
    /// Find tools for a need, ranked and explained
    Search(search::SearchArgs),
    /// What to use, in what order, for a task: analysis, explained picks and a workflow
    Recommend(recommend::RecommendArgs),
    /// Measure retrieval quality on a JSONL tool set and query set
    Eval(eval::EvalArgs),
    /// Compare 2 to 10 tools on evidence from the catalog, for a stated situation
    Compare(compare::CompareArgs),
    /// Run one of the 13 research tools on 1 to 5 queries and print the JSON result
    Call(call::CallArgs),
}

#[derive(Subcommand)]
enum CatalogCommand {
    /// Check every tool file: schema, layout, ids, relations, examples, parameters
    #[command(
        long_about = "Checks every <category>/<tool_id>.json file under DIR against the tool \
                      schema and the cross-file rules, and reports every problem as \
                      `file: /json/pointer: expected X, found Y`.\n\nExit codes: 0 valid, 1 \
                      invalid (or warnings with --strict), 2 usage or I/O error (the same \
                      codes as every command)."
    )]
    Validate {
        /// Catalog directory (default: --catalog, else the configured or installed catalog)
        dir: Option<PathBuf>,
        /// Treat warnings as errors
        #[arg(long)]
        strict: bool,
        /// Output format
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Write one catalog file per tool of an MCP server, for maintainers to curate
    Import(import::ImportArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
}

/// Runs the command line; every error is printed with its hints and mapped to its exit code.
pub(crate) fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => fail(&e),
    }
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    let mut flags = Overrides {
        config_file: cli.config,
        catalog_dir: cli.catalog,
        log_level: cli.log_level,
        ..Overrides::default()
    };
    match cli.command {
        Command::Serve(args) => serve::run(flags, args),
        Command::Mcp(args) => mcp::run(flags, args),
        Command::Catalog {
            command:
                CatalogCommand::Validate {
                    dir,
                    strict,
                    format,
                },
        } => {
            if dir.is_some() {
                flags.catalog_dir = dir;
            }
            validate(&Config::load(&flags)?, strict, format)
        }
        Command::Catalog {
            command: CatalogCommand::Import(args),
        } => {
            flags.models_dir = args.models.clone();
            import::run(&Config::load(&flags)?, args)
        }
        Command::Recommend(args) => {
            flags.models_dir = args.models.clone();
            recommend::recommend(&Config::load(&flags)?, args)
        }
        Command::Search(args) => {
            flags.models_dir = args.models.clone();
            search::search(&Config::load(&flags)?, args)
        }
        Command::Eval(args) => {
            flags.models_dir = args.models.clone();
            eval::eval(&Config::load(&flags)?, args)
        }
        Command::Compare(args) => {
            flags.models_dir = args.models.clone();
            compare::compare(&Config::load(&flags)?, args)
        }
        Command::Call(args) => call::call(&Config::load(&flags)?, args),
    }
}

/// `catalog validate`: every file's problems, then exit 1 when any is an error.
fn validate(config: &Config, strict: bool, format: Format) -> Result<ExitCode, Error> {
    let sources = catalog::read_dir(&config.catalog_dir)?;
    let validation = catalog::validate(&sources);
    match format {
        Format::Human => print!("{}", catalog::render_human(&validation, strict)),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&catalog::render_json(&validation, strict))
                .map_err(|e| Error::Internal(e.to_string()))?
        ),
    }
    Ok(if validation.is_valid(strict) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
