
use builtin;
use str;

set edit:completion:arg-completer[folio] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'folio'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'folio'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand init 'Start a project: a commented folio.toml, sample data, templates/ and a .gitignore'
            cand build 'Build every page, error document and index into the output folder'
            cand check 'Load and validate the data only; print every problem or a summary'
            cand serve 'Preview: serve the API from memory with its exact semantics; reload on changes'
            cand deploy 'Publish the finished build to object storage (S3 and S3-compatible, GCS, Azure, a folder), incrementally; say what a CDN must purge'
            cand completions 'Print a shell completion script to stdout'
            cand man 'Print the man page (roff) to stdout, or write one page per command into a folder'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'folio;init'= {
            cand --languages 'The languages of the listing, comma-separated'
            cand --default-language 'The language served without a language segment (default: the first one)'
            cand --resource 'The resource name in the URLs (`/api/{lang}/RESOURCE`)'
            cand --force 'Write into a folder that already has a folio.toml or data/: the old folio.toml is kept as folio.toml.bak, other existing files are kept as they are, and no sample data goes into an existing data/'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'folio;build'= {
            cand --config 'The config file (default: folio.toml in the working directory)'
            cand --data 'The data folder, overriding `data_dir`'
            cand --out 'The output folder, overriding `output_dir`'
            cand --base-url 'The public URL the output is served at, overriding `base_url`'
            cand --no-wait 'When another folio command (a build or a deploy) is using the output folder, refuse at once (exit 1) instead of waiting for it'
            cand -q 'Print only problems'
            cand --quiet 'Print only problems'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'folio;check'= {
            cand --config 'The config file (default: folio.toml in the working directory)'
            cand --data 'The data folder, overriding `data_dir`'
            cand --format 'How to report'
            cand --missing 'List each record that lacks a translation (language, id, fields, file and line): a worklist for translators, also in `--format json` (`missing_records`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'folio;serve'= {
            cand --config 'The config file (default: folio.toml in the working directory)'
            cand --port 'The port to listen on; 0 picks a free one'
            cand --bind 'The address to listen on'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'folio;deploy'= {
            cand --config 'The config file (default: folio.toml in the working directory)'
            cand --to 'Where to publish, overriding `[deploy] url`: s3://bucket/prefix, gs://bucket/prefix, az://container/prefix or file:///dir'
            cand --endpoint 'An S3-compatible store''s endpoint (R2, MinIO, Ceph), overriding `[deploy] endpoint`'
            cand --region 'The S3 region, overriding `[deploy] region` (R2: auto)'
            cand --max-deletes 'Refuse to delete more stale objects than this, overriding `[deploy] max_deletes`'
            cand --purge-list 'Write the URLs a CDN must purge (CloudFront paths, Cloudflare requests) as JSON; `-` for standard output (a FIFO or a device is written through). It names every change since the last purge list was written, also those of deploys without one'
            cand --purge 'Purge this CDN once the store holds the build, instead of `[deploy] purge`: `cloudfront:DISTRIBUTION_ID` or `cloudflare:ZONE_ID` (repeat for more)'
            cand --purge-wait 'Give the purges this many seconds in all, requests and waits for a CDN that asks to wait included, overriding `[deploy] purge_wait`'
            cand --max-purge-paths 'Send a CDN at most this many paths (CloudFront; a wildcard counts as one) or URLs and prefixes (Cloudflare), folding into wildcards past it, overriding `[deploy] max_purge_paths`'
            cand --drop-owed 'Drop what the store''s record says this CDN is owed (one that no longer exists, or was never meant): nothing is sent for it (repeat for more)'
            cand --move-owed 'Move what the store''s record says this CDN is owed to the CDNs this deploy purges (an id corrected): they are sent it (repeat for more)'
            cand --format 'How to report what was done'
            cand --dry-run 'Print the plan and send nothing that writes'
            cand --from-data 'Publish straight from the data: load and check it as `folio build` does, and render each file in memory when it is hashed and when it is sent; the output folder is neither read nor written, so the pages need no room on this machine'
            cand --force 'Upload every object, changed or not'
            cand --no-purge 'Purge no CDN this time (what is owed stays owed, in the store''s record)'
            cand --repair 'When folio''s record on the store cannot be read: survey every object below the prefix, delete those that carry folio''s metadata and the build does not have, and purge every key of the build'
            cand --no-wait 'When a build is writing the output folder, refuse at once (exit 1) instead of waiting for it'
            cand -q 'Print only problems'
            cand --quiet 'Print only problems'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'folio;completions'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'folio;man'= {
            cand --out-dir 'Write folio.1 and folio-COMMAND.1 for every command into this folder (created if missing) instead of printing folio.1'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'folio;help'= {
            cand init 'Start a project: a commented folio.toml, sample data, templates/ and a .gitignore'
            cand build 'Build every page, error document and index into the output folder'
            cand check 'Load and validate the data only; print every problem or a summary'
            cand serve 'Preview: serve the API from memory with its exact semantics; reload on changes'
            cand deploy 'Publish the finished build to object storage (S3 and S3-compatible, GCS, Azure, a folder), incrementally; say what a CDN must purge'
            cand completions 'Print a shell completion script to stdout'
            cand man 'Print the man page (roff) to stdout, or write one page per command into a folder'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'folio;help;init'= {
        }
        &'folio;help;build'= {
        }
        &'folio;help;check'= {
        }
        &'folio;help;serve'= {
        }
        &'folio;help;deploy'= {
        }
        &'folio;help;completions'= {
        }
        &'folio;help;man'= {
        }
        &'folio;help;help'= {
        }
    ]
    $completions[$command]
}
