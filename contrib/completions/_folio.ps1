
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'folio' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'folio'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'folio' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Start a project: a commented folio.toml, sample data, templates/ and a .gitignore')
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Build every page, error document and index into the output folder')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Load and validate the data only; print every problem or a summary')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Preview: serve the API from memory with its exact semantics; reload on changes')
            [CompletionResult]::new('deploy', 'deploy', [CompletionResultType]::ParameterValue, 'Publish the finished build to object storage (S3 and S3-compatible, GCS, Azure, a folder), incrementally; say what a CDN must purge')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to stdout')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff) to stdout, or write one page per command into a folder')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'folio;init' {
            [CompletionResult]::new('--languages', '--languages', [CompletionResultType]::ParameterName, 'The languages of the listing, comma-separated')
            [CompletionResult]::new('--default-language', '--default-language', [CompletionResultType]::ParameterName, 'The language served without a language segment (default: the first one)')
            [CompletionResult]::new('--resource', '--resource', [CompletionResultType]::ParameterName, 'The resource name in the URLs (`/api/{lang}/RESOURCE`)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write into a folder that already has a folio.toml or data/: the old folio.toml is kept as folio.toml.bak, other existing files are kept as they are, and no sample data goes into an existing data/')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'folio;build' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file (default: folio.toml in the working directory)')
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'The data folder, overriding `data_dir`')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'The output folder, overriding `output_dir`')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'The public URL the output is served at, overriding `base_url`')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'When another folio command (a build or a deploy) is using the output folder, refuse at once (exit 1) instead of waiting for it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'folio;check' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file (default: folio.toml in the working directory)')
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'The data folder, overriding `data_dir`')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to report')
            [CompletionResult]::new('--missing', '--missing', [CompletionResultType]::ParameterName, 'List each record that lacks a translation (language, id, fields, file and line): a worklist for translators, also in `--format json` (`missing_records`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'folio;serve' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file (default: folio.toml in the working directory)')
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'The port to listen on; 0 picks a free one')
            [CompletionResult]::new('--bind', '--bind', [CompletionResultType]::ParameterName, 'The address to listen on')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'folio;deploy' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The config file (default: folio.toml in the working directory)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Where to publish, overriding `[deploy] url`: s3://bucket/prefix, gs://bucket/prefix, az://container/prefix or file:///dir')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'An S3-compatible store''s endpoint (R2, MinIO, Ceph), overriding `[deploy] endpoint`')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The S3 region, overriding `[deploy] region` (R2: auto)')
            [CompletionResult]::new('--max-deletes', '--max-deletes', [CompletionResultType]::ParameterName, 'Refuse to delete more stale objects than this, overriding `[deploy] max_deletes`')
            [CompletionResult]::new('--purge-list', '--purge-list', [CompletionResultType]::ParameterName, 'Write the URLs a CDN must purge (CloudFront paths, Cloudflare requests) as JSON; `-` for standard output (a FIFO or a device is written through). It names every change since the last purge list was written, also those of deploys without one')
            [CompletionResult]::new('--purge', '--purge', [CompletionResultType]::ParameterName, 'Purge this CDN once the store holds the build, instead of `[deploy] purge`: `cloudfront:DISTRIBUTION_ID` or `cloudflare:ZONE_ID` (repeat for more)')
            [CompletionResult]::new('--purge-wait', '--purge-wait', [CompletionResultType]::ParameterName, 'Give the purges this many seconds in all, requests and waits for a CDN that asks to wait included, overriding `[deploy] purge_wait`')
            [CompletionResult]::new('--max-purge-paths', '--max-purge-paths', [CompletionResultType]::ParameterName, 'Send a CDN at most this many paths (CloudFront; a wildcard counts as one) or URLs and prefixes (Cloudflare), folding into wildcards past it, overriding `[deploy] max_purge_paths`')
            [CompletionResult]::new('--drop-owed', '--drop-owed', [CompletionResultType]::ParameterName, 'Drop what the store''s record says this CDN is owed (one that no longer exists, or was never meant): nothing is sent for it (repeat for more)')
            [CompletionResult]::new('--move-owed', '--move-owed', [CompletionResultType]::ParameterName, 'Move what the store''s record says this CDN is owed to the CDNs this deploy purges (an id corrected): they are sent it (repeat for more)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to report what was done')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and send nothing that writes')
            [CompletionResult]::new('--from-data', '--from-data', [CompletionResultType]::ParameterName, 'Publish straight from the data: load and check it as `folio build` does, and render each file in memory when it is hashed and when it is sent; the output folder is neither read nor written, so the pages need no room on this machine')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Upload every object, changed or not')
            [CompletionResult]::new('--no-purge', '--no-purge', [CompletionResultType]::ParameterName, 'Purge no CDN this time (what is owed stays owed, in the store''s record)')
            [CompletionResult]::new('--repair', '--repair', [CompletionResultType]::ParameterName, 'When folio''s record on the store cannot be read: survey every object below the prefix, delete those that carry folio''s metadata and the build does not have, and purge every key of the build')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'When a build is writing the output folder, refuse at once (exit 1) instead of waiting for it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'folio;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'folio;man' {
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write folio.1 and folio-COMMAND.1 for every command into this folder (created if missing) instead of printing folio.1')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'folio;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Start a project: a commented folio.toml, sample data, templates/ and a .gitignore')
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Build every page, error document and index into the output folder')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Load and validate the data only; print every problem or a summary')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Preview: serve the API from memory with its exact semantics; reload on changes')
            [CompletionResult]::new('deploy', 'deploy', [CompletionResultType]::ParameterValue, 'Publish the finished build to object storage (S3 and S3-compatible, GCS, Azure, a folder), incrementally; say what a CDN must purge')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to stdout')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff) to stdout, or write one page per command into a folder')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'folio;help;init' {
            break
        }
        'folio;help;build' {
            break
        }
        'folio;help;check' {
            break
        }
        'folio;help;serve' {
            break
        }
        'folio;help;deploy' {
            break
        }
        'folio;help;completions' {
            break
        }
        'folio;help;man' {
            break
        }
        'folio;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
