//! A reload reaches MCP clients: after `Service::reload` swaps in a changed catalog, every
//! session hears `notifications/tools/list_changed`, and the meta-tools' descriptions (written
//! from the live catalog) and the resources follow the new catalog.

use crate::mcp::{connect_to, service_with};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use toolscout::catalog::{Catalog, SourceReport};
use toolscout::embed::Embedder;
use toolscout::mcp::Options;
use toolscout::service::{CatalogLoader, LoadFuture};

/// A catalog source whose next reading has one tool fewer than the catalog it replaces.
struct OneFewer;

impl CatalogLoader for OneFewer {
    fn load<'a>(&'a self, serving: &'a Catalog, _: Option<Arc<dyn Embedder>>) -> LoadFuture<'a> {
        Box::pin(async move {
            let mut tools = serving.tools().to_vec();
            tools.pop();
            let catalog = Catalog::from_tools(serving.dir().to_path_buf(), tools);
            Ok((catalog, Vec::<SourceReport>::new()))
        })
    }
}

#[tokio::test]
async fn a_reload_tells_every_session_the_tool_list_changed() {
    let mut service = service_with(&BTreeMap::new());
    service.set_loader(Arc::new(OneFewer));
    let service = Arc::new(service);
    let before = service.catalog().len();
    let (client, listener) = connect_to(service.clone(), Options::default()).await;
    let describes = |n: usize| format!("{n} tools in");
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools[0]
        .description
        .as_deref()
        .unwrap()
        .contains(&describes(before)));

    let reloaded = service.reload().await.unwrap();
    assert_eq!(reloaded.removed.len(), 1, "{reloaded:?}");
    for _ in 0..100 {
        if listener.tool_lists_changed.load(Ordering::SeqCst) > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(listener.tool_lists_changed.load(Ordering::SeqCst), 1);
    let tools = client.list_all_tools().await.unwrap();
    let description = tools[0].description.as_deref().unwrap();
    assert!(
        description.contains(&describes(before - 1)),
        "{description}"
    );
    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), before - 1);
    client.cancel().await.unwrap();
}
