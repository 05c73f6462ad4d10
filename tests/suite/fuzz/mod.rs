//! The fuzz targets' corpora and seeds, replayed as ordinary tests.

mod corpus;
mod seeds;
