//! Tests of the configuration layers, kept beside `config.rs` to keep that file readable.

use super::*;

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn layers_flags_over_env_over_file_over_default() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("toolscout.toml"),
        "addr = \"127.0.0.1:2000\"\nmax_body_bytes = 10\nlog_level = \"debug\"\n",
    )
    .unwrap();
    let e = env(&[
        ("TOOLSCOUT_ADDR", "127.0.0.1:3000"),
        ("TOOLSCOUT_MAX_BODY_BYTES", "20"),
    ]);
    let flags = Overrides {
        addr: Some("127.0.0.1:4000".into()),
        ..Default::default()
    };
    let c = Config::from_sources(&flags, &e, dir.path()).unwrap();
    assert_eq!(c.addr.port(), 4000);
    assert_eq!(c.max_body_bytes, 20);
    assert_eq!(c.log_level, "debug");
    assert_eq!(c.sources["addr"], "flag --addr");
    assert_eq!(c.sources["max_body_bytes"], "env TOOLSCOUT_MAX_BODY_BYTES");
    assert_eq!(c.sources["log_level"], "file");
    assert_eq!(c.sources["catalog_dir"], "default");
}

#[test]
fn unknown_file_keys_are_refused_with_location() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("toolscout.toml"), "adr = \"x\"\n").unwrap();
    let err = Config::from_sources(&Overrides::default(), &env(&[]), dir.path()).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("unknown field `adr`"), "{msg}");
    assert!(msg.contains("line 1"), "{msg}");
}

#[test]
fn non_loopback_needs_a_token() {
    let e = env(&[("TOOLSCOUT_ADDR", "0.0.0.0:1987")]);
    let err =
        Config::from_sources(&Overrides::default(), &e, Path::new("/nonexistent")).unwrap_err();
    assert!(err.to_string().contains("not a loopback address"), "{err}");
    let e = env(&[
        ("TOOLSCOUT_ADDR", "0.0.0.0:1987"),
        ("TOOLSCOUT_AUTH_TOKEN", "0123456789abcdef"),
    ]);
    let c = Config::from_sources(&Overrides::default(), &e, Path::new("/nonexistent")).unwrap();
    assert!(c.to_toml().contains("********"));
    assert!(!c.to_toml().contains("0123456789abcdef"));
}

#[test]
fn bad_values_name_the_key_and_source() {
    let e = env(&[("TOOLSCOUT_ADDR", "localhost")]);
    let err =
        Config::from_sources(&Overrides::default(), &e, Path::new("/nonexistent")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid configuration: addr (env TOOLSCOUT_ADDR): expected host:port such as 127.0.0.1:1987, found \"localhost\""
    );
}

#[test]
fn log_dir_defaults_under_home_and_can_be_turned_off() {
    let none = Path::new("/nonexistent");
    let c =
        Config::from_sources(&Overrides::default(), &env(&[("HOME", "/home/u")]), none).unwrap();
    assert_eq!(c.log_dir, Some(PathBuf::from("/home/u/.toolscout/logs")));
    assert_eq!(c.sources["log_dir"], "default");
    let c = Config::from_sources(&Overrides::default(), &env(&[]), none).unwrap();
    assert_eq!(c.log_dir, None);
    let e = env(&[("HOME", "/home/u"), ("TOOLSCOUT_LOG_DIR", "")]);
    let c = Config::from_sources(&Overrides::default(), &e, none).unwrap();
    assert_eq!(c.log_dir, None);
    assert!(c
        .to_toml()
        .contains("log_dir = \"\"  # env TOOLSCOUT_LOG_DIR"));
    let flags = Overrides {
        log_dir: Some("/tmp/logs".into()),
        ..Default::default()
    };
    let c = Config::from_sources(&flags, &e, none).unwrap();
    assert_eq!(c.log_dir, Some(PathBuf::from("/tmp/logs")));
    assert!(c
        .to_toml()
        .contains("log_dir = \"/tmp/logs\"  # flag --log-dir"));
}

#[test]
fn cors_origins_from_every_layer_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("toolscout.toml"),
        "cors_origins = [\"https://a.example\", \"http://localhost:3000\"]\n",
    )
    .unwrap();
    let c = Config::from_sources(&Overrides::default(), &env(&[]), dir.path()).unwrap();
    assert_eq!(
        c.cors_origins,
        ["https://a.example", "http://localhost:3000"]
    );
    assert!(c
        .to_toml()
        .contains("cors_origins = [\"https://a.example\", \"http://localhost:3000\"]  # file"));
    let e = env(&[("TOOLSCOUT_CORS_ORIGINS", "https://b.example, *")]);
    let c = Config::from_sources(&Overrides::default(), &e, dir.path()).unwrap();
    assert_eq!(c.cors_origins, ["https://b.example", "*"]);
    let none = Path::new("/nonexistent");
    assert!(Config::from_sources(&Overrides::default(), &env(&[]), none)
        .unwrap()
        .cors_origins
        .is_empty());
    let e = env(&[("TOOLSCOUT_CORS_ORIGINS", "https://b.example/app")]);
    let err = Config::from_sources(&Overrides::default(), &e, none).unwrap_err();
    assert!(
        err.to_string()
            .contains("cors_origins (env TOOLSCOUT_CORS_ORIGINS): expected origins"),
        "{err}"
    );
}

#[test]
fn default_dirs_do_not_depend_on_cwd() {
    assert!(default_dir("catalog").is_absolute());
}

#[test]
fn search_mode_is_typed_and_a_bad_one_is_refused_with_location() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("toolscout.toml");
    std::fs::write(&file, "[search]\ndefault_search_mode = \"keyword\"\n").unwrap();
    let c = Config::from_sources(&Overrides::default(), &env(&[]), dir.path()).unwrap();
    assert_eq!(c.search.default_search_mode, SearchMode::Keyword);
    std::fs::write(&file, "[search]\ndefault_search_mode = \"fuzzy\"\n").unwrap();
    let err = Config::from_sources(&Overrides::default(), &env(&[]), dir.path()).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("unknown variant `fuzzy`"), "{msg}");
    assert!(msg.contains("`hybrid`") && msg.contains("line 2"), "{msg}");
}

#[test]
fn limits_and_the_tool_time_limit_are_read_checked_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("toolscout.toml");
    let load = |text: &str| {
        std::fs::write(&file, text).unwrap();
        Config::from_sources(&Overrides::default(), &env(&[]), dir.path())
    };
    let c = load("[limits]\nworkers = 3\nqueue = 9\n[tools]\ntimeout_ms = 1500\n").unwrap();
    assert_eq!((c.limits.limits().workers, c.limits.limits().queue), (3, 9));
    assert_eq!(c.exec.timeout, Some(std::time::Duration::from_millis(1500)));
    let shown = c.to_toml();
    assert!(
        shown.contains("[limits]  # file\nworkers = 3\nqueue = 9\n"),
        "{shown}"
    );
    assert!(shown.contains("timeout_ms = 1500"), "{shown}");
    let msg = load("[tools]\ntimeout_ms = 0\n").unwrap_err().to_string();
    assert!(
        msg.contains("expected 1 to 600000 milliseconds, found 0"),
        "{msg}"
    );
    let msg = load("[limits]\nworkerz = 1\n").unwrap_err().to_string();
    assert!(msg.contains("unknown field `workerz`"), "{msg}");
}

/// A configuration file nested 100,000 deep (arrays, inline tables) is an error naming the
/// file, not a stack overflow: the TOML parser has a depth limit, and nothing here lifts it.
#[test]
fn deeply_nested_config_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolscout.toml");
    let depth = 100_000;
    for (open, close) in [("[", "]"), ("{a = ", "}")] {
        let text = format!(
            "log_level = {}1{}\n",
            open.repeat(depth),
            close.repeat(depth)
        );
        std::fs::write(&path, text).unwrap();
        match read_file(&path) {
            Err(Error::Config(message)) => {
                assert!(message.contains("toolscout.toml"), "{message}")
            }
            Err(other) => panic!("expected a configuration error, found {other}"),
            Ok(_) => panic!("a nested value was accepted as log_level"),
        }
    }
}

#[test]
fn data_dir_defaults_under_home_comes_from_file_or_env_and_can_be_turned_off() {
    let none = Path::new("/nonexistent");
    let home = env(&[("HOME", "/home/u")]);
    let c = Config::from_sources(&Overrides::default(), &home, none).unwrap();
    assert_eq!(c.data_dir, Some(PathBuf::from("/home/u/.toolscout/data")));
    assert!(c
        .to_toml()
        .contains("data_dir = \"/home/u/.toolscout/data\"  # default"));
    let c = Config::from_sources(&Overrides::default(), &env(&[]), none).unwrap();
    assert_eq!(c.data_dir, None);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("toolscout.toml"),
        "data_dir = \"/srv/ts\"\n",
    )
    .unwrap();
    let c = Config::from_sources(&Overrides::default(), &home, dir.path()).unwrap();
    assert_eq!(c.data_dir, Some(PathBuf::from("/srv/ts")));
    assert_eq!(c.sources["data_dir"], "file");
    let e = env(&[("HOME", "/home/u"), ("TOOLSCOUT_DATA_DIR", " ")]);
    let c = Config::from_sources(&Overrides::default(), &e, dir.path()).unwrap();
    assert_eq!(c.data_dir, None);
    assert!(c
        .to_toml()
        .contains("data_dir = \"\"  # env TOOLSCOUT_DATA_DIR"));
}

#[test]
fn the_usage_table_is_read_checked_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("toolscout.toml");
    let load = |text: &str| {
        std::fs::write(&file, text).unwrap();
        Config::from_sources(&Overrides::default(), &env(&[]), dir.path())
    };
    let c = load("").unwrap();
    assert_eq!(c.usage, UsageConfig::default());
    assert!(c.to_toml().contains(
        "[usage]  # default\nretention_days = 90\nretention_rows = 1000000\nqueue = 4096\nmin_calls = 20\n"
    ));
    let c = load("[usage]\nretention_days = 7\nqueue = 64\n").unwrap();
    assert_eq!((c.usage.retention_days, c.usage.queue), (7, 64));
    assert_eq!(c.usage.min_calls, 20);
    assert!(c
        .to_toml()
        .contains("[usage]  # file\nretention_days = 7\n"));
    let msg = load("[usage]\nqueue = 0\n").unwrap_err().to_string();
    assert_eq!(
        msg,
        "invalid configuration: [usage]: expected queue from 1 to 1048576, found 0"
    );
    let msg = load("[usage]\nretention = 3\n").unwrap_err().to_string();
    assert!(msg.contains("unknown field `retention`"), "{msg}");
    let msg = load("[usage]\nmin_calls = -1\n").unwrap_err().to_string();
    assert!(
        msg.contains("min_calls") || msg.contains("invalid value"),
        "{msg}"
    );
}
