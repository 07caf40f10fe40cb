use clap::Parser;

fn main() {
    let cli = folio::cli::Cli::parse();
    if let Err(failure) = folio::cmd::run(cli) {
        for line in failure.details() {
            eprintln!("{line}");
        }
        eprintln!("error: {failure}");
        if let folio::error::Failure::Io(e) = &failure {
            for cause in e.chain().skip(1) {
                eprintln!("caused by: {cause}");
            }
        }
        std::process::exit(failure.exit_code());
    }
}
