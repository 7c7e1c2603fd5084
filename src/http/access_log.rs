//! Which route and tool a request path names, for the request log's `route` and `tool`.

use super::ROUTES;

/// The route template `path` falls under (whatever the method) and the tool it names: the
/// `{id}` of `/catalog/tools/{id}` or a `{toolName}`.
pub(crate) fn match_route(path: &str) -> (Option<&'static str>, Option<&str>) {
    let segments: Vec<&str> = path.split('/').collect();
    for (_, template) in ROUTES {
        let parts: Vec<&str> = template.split('/').collect();
        if parts.len() != segments.len() {
            continue;
        }
        let mut tool = None;
        let fits = parts.iter().zip(&segments).all(|(p, s)| {
            if p.starts_with('{') && p.ends_with('}') {
                if (*p == "{toolName}" || (*p == "{id}" && template.starts_with("/catalog/tools/")))
                    && !s.is_empty()
                {
                    tool = Some(*s);
                }
                !s.is_empty()
            } else {
                p == s
            }
        });
        if fits {
            return (Some(template), tool);
        }
    }
    (None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_and_tools_from_paths() {
        assert_eq!(match_route("/health"), (Some("/health"), None));
        assert_eq!(
            match_route("/catalog/tools/ripgrep"),
            (Some("/catalog/tools/{id}"), Some("ripgrep"))
        );
        assert_eq!(
            match_route("/tools/info/localSearchCode"),
            (Some("/tools/info/{toolName}"), Some("localSearchCode"))
        );
        assert_eq!(
            match_route("/prompts/info/find-tool"),
            (Some("/prompts/info/{name}"), None)
        );
        assert_eq!(match_route("/tools/info/"), (None, None));
        assert_eq!(match_route("/nope"), (None, None));
    }
}
