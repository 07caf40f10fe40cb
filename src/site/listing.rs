//! The listing every command starts from: the records loaded, each language's order, and
//! the map (the shape with its page counts).

use std::sync::Arc;

use crate::config::Project;
use crate::error::Failure;
use crate::load::{self, Dataset};
use crate::routes::Map;
use crate::sort;

/// A loaded, sorted listing: the records, per language their order, and its map (the
/// shape with its page counts), made once here for whatever the command does next.
pub struct Listing {
    pub data: Dataset,
    pub orders: Vec<Arc<[u32]>>,
    pub map: Map,
}

/// Loads and sorts; every problem in the input, or the listing.
pub fn load(project: &Project) -> Result<Listing, Failure> {
    let data = load::load(project).map_err(Failure::Invalid)?;
    let orders = sort::order(&data.records, &project.sort, project.shape.languages.len());
    let map = Map::new(&project.shape, data.records.len());
    Ok(Listing { data, orders, map })
}
