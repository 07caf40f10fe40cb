//! Integration tests: the `folio` binary driven on temporary projects.

mod build;
mod ci_log;
mod clients;
mod crawl;
mod damage;
mod databases;
mod deploy;
mod emulators;
mod envelopes;
mod environment;
mod frontend;
mod harness;
mod hints;
mod hosts;
mod house;
mod inputs;
mod limits;
mod oracle;
mod recipes;
mod release;
mod safety;
mod serve;
mod shapes;
mod slips;
mod start;
mod table;
