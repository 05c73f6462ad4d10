//! Background jobs: the agent's tools and the headless run's cleanup.

mod agent;
mod headless;
mod sessions;
