# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_folio_global_optspecs
    string join \n h/help V/version
end

function __fish_folio_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_folio_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_folio_using_subcommand
    set -l cmd (__fish_folio_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c folio -n "__fish_folio_needs_command" -s h -l help -d 'Print help'
complete -c folio -n "__fish_folio_needs_command" -s V -l version -d 'Print version'
complete -c folio -n "__fish_folio_needs_command" -f -a "init" -d 'Start a project: a commented folio.toml, sample data, templates/ and a .gitignore'
complete -c folio -n "__fish_folio_needs_command" -f -a "build" -d 'Build every page, error document and index into the output folder'
complete -c folio -n "__fish_folio_needs_command" -f -a "check" -d 'Load and validate the data only; print every problem or a summary'
complete -c folio -n "__fish_folio_needs_command" -f -a "serve" -d 'Preview: serve the API from memory with its exact semantics; reload on changes'
complete -c folio -n "__fish_folio_needs_command" -f -a "deploy" -d 'Publish the finished build to object storage (S3 and S3-compatible, GCS, Azure, a folder), incrementally; say what a CDN must purge'
complete -c folio -n "__fish_folio_needs_command" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c folio -n "__fish_folio_needs_command" -f -a "man" -d 'Print the man page (roff) to stdout, or write one page per command into a folder'
complete -c folio -n "__fish_folio_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c folio -n "__fish_folio_using_subcommand init" -l languages -d 'The languages of the listing, comma-separated' -r
complete -c folio -n "__fish_folio_using_subcommand init" -l default-language -d 'The language served without a language segment (default: the first one)' -r
complete -c folio -n "__fish_folio_using_subcommand init" -l resource -d 'The resource name in the URLs (`/api/{lang}/RESOURCE`)' -r
complete -c folio -n "__fish_folio_using_subcommand init" -l force -d 'Write into a folder that already has a folio.toml or data/: the old folio.toml is kept as folio.toml.bak, other existing files are kept as they are, and no sample data goes into an existing data/'
complete -c folio -n "__fish_folio_using_subcommand init" -s h -l help -d 'Print help'
complete -c folio -n "__fish_folio_using_subcommand build" -l config -d 'The config file (default: folio.toml in the working directory)' -r -F
complete -c folio -n "__fish_folio_using_subcommand build" -l data -d 'The data folder, overriding `data_dir`' -r -F
complete -c folio -n "__fish_folio_using_subcommand build" -l out -d 'The output folder, overriding `output_dir`' -r -F
complete -c folio -n "__fish_folio_using_subcommand build" -l base-url -d 'The public URL the output is served at, overriding `base_url`' -r
complete -c folio -n "__fish_folio_using_subcommand build" -l no-wait -d 'When another folio command (a build or a deploy) is using the output folder, refuse at once (exit 1) instead of waiting for it'
complete -c folio -n "__fish_folio_using_subcommand build" -s q -l quiet -d 'Print only problems'
complete -c folio -n "__fish_folio_using_subcommand build" -s h -l help -d 'Print help'
complete -c folio -n "__fish_folio_using_subcommand check" -l config -d 'The config file (default: folio.toml in the working directory)' -r -F
complete -c folio -n "__fish_folio_using_subcommand check" -l data -d 'The data folder, overriding `data_dir`' -r -F
complete -c folio -n "__fish_folio_using_subcommand check" -l format -d 'How to report' -r -f -a "text\t'Lines for people: problems on stderr, the summary on stdout'
json\t'One JSON object on stdout with the summary and every problem (stable keys)'
github\t'GitHub Actions annotations on stdout, one `::error` (`::warning`) line a problem, at its file, line and column; then the text format\'s summary'"
complete -c folio -n "__fish_folio_using_subcommand check" -l missing -d 'List each record that lacks a translation (language, id, fields, file and line): a worklist for translators, also in `--format json` (`missing_records`)'
complete -c folio -n "__fish_folio_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c folio -n "__fish_folio_using_subcommand serve" -l config -d 'The config file (default: folio.toml in the working directory)' -r -F
complete -c folio -n "__fish_folio_using_subcommand serve" -l port -d 'The port to listen on; 0 picks a free one' -r
complete -c folio -n "__fish_folio_using_subcommand serve" -l bind -d 'The address to listen on' -r
complete -c folio -n "__fish_folio_using_subcommand serve" -s h -l help -d 'Print help'
complete -c folio -n "__fish_folio_using_subcommand deploy" -l config -d 'The config file (default: folio.toml in the working directory)' -r -F
complete -c folio -n "__fish_folio_using_subcommand deploy" -l to -d 'Where to publish, overriding `[deploy] url`: s3://bucket/prefix, gs://bucket/prefix, az://container/prefix or file:///dir' -r
complete -c folio -n "__fish_folio_using_subcommand deploy" -l endpoint -d 'An S3-compatible store\'s endpoint (R2, MinIO, Ceph), overriding `[deploy] endpoint`' -r
complete -c folio -n "__fish_folio_using_subcommand deploy" -l region -d 'The S3 region, overriding `[deploy] region` (R2: auto)' -r
complete -c folio -n "__fish_folio_using_subcommand deploy" -l max-deletes -d 'Refuse to delete more stale objects than this, overriding `[deploy] max_deletes`' -r
complete -c folio -n "__fish_folio_using_subcommand deploy" -l purge-list -d 'Write the URLs a CDN must purge (CloudFront paths, Cloudflare requests) as JSON; `-` for standard output (a FIFO or a device is written through). It names every change since the last purge list was written, also those of deploys without one' -r -F
complete -c folio -n "__fish_folio_using_subcommand deploy" -l purge -d 'Purge this CDN once the store holds the build, instead of `[deploy] purge`: `cloudfront:DISTRIBUTION_ID` or `cloudflare:ZONE_ID` (repeat for more)' -r
complete -c folio -n "__fish_folio_using_subcommand deploy" -l purge-wait -d 'Give the purges this many seconds in all, requests and waits for a CDN that asks to wait included, overriding `[deploy] purge_wait`' -r
complete -c folio -n "__fish_folio_using_subcommand deploy" -l max-purge-paths -d 'Send a CDN at most this many paths (CloudFront; a wildcard counts as one) or URLs and prefixes (Cloudflare), folding into wildcards past it, overriding `[deploy] max_purge_paths`' -r
complete -c folio -n "__fish_folio_using_subcommand deploy" -l drop-owed -d 'Drop what the store\'s record says this CDN is owed (one that no longer exists, or was never meant): nothing is sent for it (repeat for more)' -r
complete -c folio -n "__fish_folio_using_subcommand deploy" -l move-owed -d 'Move what the store\'s record says this CDN is owed to the CDNs this deploy purges (an id corrected): they are sent it (repeat for more)' -r
complete -c folio -n "__fish_folio_using_subcommand deploy" -l format -d 'How to report what was done' -r -f -a "text\t'A summary line on stdout (with --dry-run, the plan first); warnings on stderr'
json\t'One JSON object on stdout: the counts, the plan with --dry-run, the purges, the changed `hosting/` files and the warnings (stable keys)'"
complete -c folio -n "__fish_folio_using_subcommand deploy" -l dry-run -d 'Print the plan and send nothing that writes'
complete -c folio -n "__fish_folio_using_subcommand deploy" -l from-data -d 'Publish straight from the data: load and check it as `folio build` does, and render each file in memory when it is hashed and when it is sent; the output folder is neither read nor written, so the pages need no room on this machine'
complete -c folio -n "__fish_folio_using_subcommand deploy" -l force -d 'Upload every object, changed or not'
complete -c folio -n "__fish_folio_using_subcommand deploy" -l no-purge -d 'Purge no CDN this time (what is owed stays owed, in the store\'s record)'
complete -c folio -n "__fish_folio_using_subcommand deploy" -l repair -d 'When folio\'s record on the store cannot be read: survey every object below the prefix, delete those that carry folio\'s metadata and the build does not have, and purge every key of the build'
complete -c folio -n "__fish_folio_using_subcommand deploy" -l no-wait -d 'When a build is writing the output folder, refuse at once (exit 1) instead of waiting for it'
complete -c folio -n "__fish_folio_using_subcommand deploy" -s q -l quiet -d 'Print only problems'
complete -c folio -n "__fish_folio_using_subcommand deploy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c folio -n "__fish_folio_using_subcommand completions" -s h -l help -d 'Print help'
complete -c folio -n "__fish_folio_using_subcommand man" -l out-dir -d 'Write folio.1 and folio-COMMAND.1 for every command into this folder (created if missing) instead of printing folio.1' -r -F
complete -c folio -n "__fish_folio_using_subcommand man" -s h -l help -d 'Print help'
complete -c folio -n "__fish_folio_using_subcommand help; and not __fish_seen_subcommand_from init build check serve deploy completions man help" -f -a "init" -d 'Start a project: a commented folio.toml, sample data, templates/ and a .gitignore'
complete -c folio -n "__fish_folio_using_subcommand help; and not __fish_seen_subcommand_from init build check serve deploy completions man help" -f -a "build" -d 'Build every page, error document and index into the output folder'
complete -c folio -n "__fish_folio_using_subcommand help; and not __fish_seen_subcommand_from init build check serve deploy completions man help" -f -a "check" -d 'Load and validate the data only; print every problem or a summary'
complete -c folio -n "__fish_folio_using_subcommand help; and not __fish_seen_subcommand_from init build check serve deploy completions man help" -f -a "serve" -d 'Preview: serve the API from memory with its exact semantics; reload on changes'
complete -c folio -n "__fish_folio_using_subcommand help; and not __fish_seen_subcommand_from init build check serve deploy completions man help" -f -a "deploy" -d 'Publish the finished build to object storage (S3 and S3-compatible, GCS, Azure, a folder), incrementally; say what a CDN must purge'
complete -c folio -n "__fish_folio_using_subcommand help; and not __fish_seen_subcommand_from init build check serve deploy completions man help" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c folio -n "__fish_folio_using_subcommand help; and not __fish_seen_subcommand_from init build check serve deploy completions man help" -f -a "man" -d 'Print the man page (roff) to stdout, or write one page per command into a folder'
complete -c folio -n "__fish_folio_using_subcommand help; and not __fish_seen_subcommand_from init build check serve deploy completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
